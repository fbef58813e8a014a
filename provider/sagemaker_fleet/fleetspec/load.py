"""Read a fleet spec from YAML, check every rule (docs/reference.md#fleet-spec) and resolve defaults into :class:`FleetSpec`.

All problems are collected and raised together as :class:`FleetSpecError`, each naming its field path, the YAML
line where PyYAML knows it, and the fix. Nothing here touches the network.
"""

from __future__ import annotations

import copy
import difflib
import re
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

from pydantic import BaseModel, ValidationError

from sagemaker_fleet.fleetspec.crossfield import (
    count_vs_quota,
    expected_vs_limits,
    has_line_break,
    output_uri_length,
)
from sagemaker_fleet.fleetspec.errors import FleetSpecError, SpecIssue
from sagemaker_fleet.fleetspec.model import (
    ASSUMED_QUOTA,
    DEFAULT_EXPECTED,
    DEFAULT_INSTANCE_COUNT,
    DEFAULT_MAX_ATTEMPTS,
    DEFAULT_MAX_RUNTIME,
    DEFAULT_SPOT_FALLBACK,
    DEFAULT_VOLUME_SIZE_GB,
    ENVIRONMENT_MAX,
    ENVIRONMENT_VALUE_MAX,
    HYPERPARAMETER_KEY_MAX,
    HYPERPARAMETER_VALUE_MAX,
    HYPERPARAMETERS_MAX,
    KEEP_ALIVE_API_MAX,
    KEEP_ALIVE_GUIDE_MAX,
    MAX_RUNTIME_LIMIT,
    S3_URI_MAX,
    CityLayer,
    CitySpec,
    FleetLayer,
    FleetSpec,
    InstanceQuota,
    QuotaLayer,
    SpotLayer,
    SpotSettings,
    VpcLayer,
    VpcSettings,
)
from sagemaker_fleet.fleetspec.paths import join, lineage
from sagemaker_fleet.fleetspec.yamlread import SPEC_DOCS, read_yaml

if TYPE_CHECKING:
    from pydantic_core import ErrorDetails

_M = TypeVar("_M", bound=BaseModel)

#: No '-' in a fleet's name: job names are ``{fleet}-{city}-{run_key}``, so the first '-' ends the fleet and two
#: fleets can never name the same job (fleet ``city`` + city ``demand-paris`` vs fleet ``city-demand`` + ``paris``).
FLEET_RE = re.compile(r"[a-z0-9]{1,20}")
CITY_RE = re.compile(r"^[a-z0-9][a-z0-9-]{0,199}$")
REGION_RE = re.compile(r"^[a-z]{2}(-gov|-iso[a-z]?)?-[a-z]+-\d$")
ROLE_ARN_RE = re.compile(r"^arn:aws[a-z-]*:iam::\d{12}:role/[A-Za-z0-9+=,.@_/-]{1,512}$")
S3_URI_RE = re.compile(r"^s3://[a-z0-9][a-z0-9.-]{1,61}[a-z0-9](/[^\s]*)?$")
INSTANCE_TYPE_RE = re.compile(r"^ml\.[a-z0-9-]+\.[a-z0-9]+$")
KMS_RE = re.compile(r"^[a-zA-Z0-9:/_-]{1,2048}$")
SUBNET_RE = re.compile(r"^subnet-[0-9a-z]{1,25}$")
SECURITY_GROUP_RE = re.compile(r"^sg-[0-9a-z]{1,25}$")
ENV_KEY_RE = re.compile(r"^[a-zA-Z_][a-zA-Z0-9_]{0,511}$")
ECR_RE = re.compile(r"^\d{12}\.dkr\.ecr\.[a-z0-9-]+\.amazonaws\.com(\.cn)?/\S+$")

_FIXES: dict[str, str] = {
    "fleet": (
        "use 1-20 lowercase letters or digits, without '-' (e.g. 'citydemand'): the fleet starts every job "
        "name, {fleet}-{city}-{run_key}, and a '-' in it would let two fleets name the same job"
    ),
    "name": "use lowercase letters, digits and '-', starting with a letter or digit",
    "region": "use an AWS region code such as us-east-1",
    "role_arn": "use an IAM role ARN such as arn:aws:iam::111122223333:role/FleetTraining",
    "output_s3_uri": "use an S3 URI such as s3://bucket/prefix",
    "train_s3_uri": "use an S3 URI such as s3://bucket/data/city/",
    "instance_type": "use a SageMaker instance type such as ml.m5.xlarge",
    "keep_alive": f"use `auto` or whole seconds from 0 to {KEEP_ALIVE_API_MAX}",
    "image_uri": "use a container image URI such as 111122223333.dkr.ecr.us-east-1.amazonaws.com/demand:1.4",
    "input_mode": "use File, FastFile or Pipe",
    "fallback": "use on_demand or fail",
    "cities": "list the fleet's cities, each a mapping with at least `name` and `train_s3_uri`",
    "instances": "give the account's quota of concurrent training instances of this type, e.g. `instances: 20`",
    "subnets": "list 1-16 subnet ids such as subnet-0a1b2c3d",
    "security_group_ids": "list 1-5 security group ids such as sg-0a1b2c3d",
}

#: The fix for a structural (pydantic) error of a field without its own entry in ``_FIXES``.
_TYPE_FIXES: dict[str, str] = {
    "int_type": "write a whole number without quotes",
    "int_parsing": "write a whole number without quotes",
    "int_from_float": "write a whole number without quotes",
    "float_type": "write a number without quotes",
    "finite_number": "write a finite number (YAML reads 1e400 as infinity and .nan as not a number)",
    "invalid_key": "write the key as text: quote it if YAML would read it as a number, boolean or null (`~`)",
    "bool_type": "write true or false without quotes",
    "string_type": "write text (quote it if YAML would read it as a number, boolean, date or null)",
    "list_type": "write a list: `[a, b]` or one `- item` per line",
    "dict_type": "write a mapping of `key: value` pairs",
    "model_type": "write a mapping of `key: value` pairs",
    "greater_than_equal": "use a value ≥ {ge}",
    "greater_than": "use a value > {gt}",
    "less_than_equal": "use a value ≤ {le}",
    "less_than": "use a value < {lt}",
    "too_short": "give at least {min_length}",
    "too_long": "give at most {max_length}",
}
_TYPE_NOUNS: dict[str, str] = {
    "int_type": "a whole number",
    "float_type": "a number",
    "finite_number": "a finite number",
    "bool_type": "true/false",
    "string_type": "text",
}

_ALLOWED: dict[str, type[BaseModel]] = {
    "fleet": FleetLayer,
    "city": CityLayer,
    "spot": SpotLayer,
    "vpc": VpcLayer,
    "quota": QuotaLayer,
}

_UNION_TAG_RE = re.compile(
    r"^(int|str|float|bool|list\[.*\]|dict\[.*\]|literal\[.*\]|constrained-.*|function-.*|is-instance\[.*\]|"
    r"nullable\[.*\]|json-or-python\[.*\]|lax-.*|union\[.*\]|\[key\])$"
)


def load_fleet_spec(path: str | Path) -> FleetSpec:
    """Load and validate the fleet file at ``path``; raises :class:`FleetSpecError` listing every problem."""
    path = Path(path)
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as exc:
        raise FleetSpecError([SpecIssue("", f"cannot read the file: {exc.strerror}")], str(path)) from exc
    except UnicodeDecodeError as exc:
        issue = SpecIssue("", f"the file is not UTF-8 text ({exc.reason}); save it as UTF-8")
        raise FleetSpecError([issue], str(path)) from exc
    return parse_fleet_spec(text, source=str(path))


def parse_fleet_spec(text: str, source: str = "<spec>") -> FleetSpec:
    """Parse YAML text into a validated :class:`FleetSpec`."""
    data, lines, duplicates = read_yaml(text, source)
    return _build(data, source, lines, duplicates)


def build_fleet_spec(
    data: object, source: str = "<spec>", lines: Mapping[str, int] | None = None
) -> FleetSpec:
    """Validate an already-parsed document (a mapping) and resolve it."""
    return _build(data, source, lines or {}, [])


def _build(data: object, source: str, lines: Mapping[str, int], issues: list[SpecIssue]) -> FleetSpec:
    builder = _SpecBuilder(lines)
    builder.extend(issues)
    spec = builder.build(data)
    if builder.issues or spec is None:
        raise FleetSpecError(builder.issues, source)
    return spec


# ---------------------------------------------------------------------------------------------------- checks


#: Airflow's default ``[triggerer] capacity``: triggers one triggerer runs at once.
TRIGGERER_CAPACITY_DEFAULT = 1000
#: Airflow's default ``[triggerer] max_trigger_to_select_per_loop``: new triggers a triggerer takes per loop.
TRIGGERER_SELECT_DEFAULT = 50
#: Cities × triggers per loop a triggerer was seen to take safely (200 × 50). Airflow 3.3 sends every city task
#: that starts in the triggerer with the whole serialized DAG (~1.5 kB per city), so a batch of new triggers grows
#: with cities × batch; at 1,000 × 50 the triggerer deadlocked here (its supervisor blocked sending a batch while
#: its trigger process blocked writing logs), at 1,000 × 5 it did not.
TRIGGERER_BATCH_BUDGET = 10_000


def triggerer_select_per_loop(cities: int) -> int:
    """The ``[triggerer] max_trigger_to_select_per_loop`` a fleet of ``cities`` should run with."""
    return max(1, min(TRIGGERER_SELECT_DEFAULT, TRIGGERER_BATCH_BUDGET // max(1, cities)))


class _SpecBuilder:
    """Collects every problem of one spec. Each bookkeeping step is a set look-up, so a spec with 20,000 broken
    cities is checked in about the time of a valid one (a list scan per error made it quadratic)."""

    def __init__(self, lines: Mapping[str, int]) -> None:
        self.lines = lines
        self.issues: list[SpecIssue] = []
        self._reported: set[SpecIssue] = set()
        self._warnings: dict[
            str, None
        ] = {}  # ordered, each once (a default shared by many cities warns once)
        self.poisoned: set[str] = set()  # paths with a structural error: later checks stay quiet there
        self._above_poisoned: set[str] = set()  # every path holding a poisoned one

    @property
    def warnings(self) -> tuple[str, ...]:
        return tuple(self._warnings)

    def warn(self, message: str) -> None:
        self._warnings.setdefault(message, None)

    def error(self, path: str, message: str) -> None:
        issue = SpecIssue(path, message, self._line(path))
        if issue in self._reported or self._under_poisoned(path):
            return  # already reported (a default shared by many cities is reported once)
        self._reported.add(issue)
        self.issues.append(issue)

    def extend(self, issues: list[SpecIssue]) -> None:
        for issue in issues:
            if issue not in self._reported:
                self._reported.add(issue)
                self.issues.append(issue)

    def _poison(self, path: str) -> None:
        self.poisoned.add(path)
        self._above_poisoned.update(list(lineage(path))[1:])

    def _line(self, path: str) -> int | None:
        for probe in lineage(path):
            if probe in self.lines:
                return self.lines[probe]
        return self.lines.get("")

    def build(self, data: object) -> FleetSpec | None:
        if not isinstance(data, Mapping):
            self.error("", f"a fleet spec is a mapping with keys fleet, region, role_arn, ... ({SPEC_DOCS})")
            return None
        top = self._parse(FleetLayer, data, "")
        raw_cities = data.get("cities")
        layers: list[CityLayer | None] = []
        if isinstance(raw_cities, list):
            layers = [self._parse(CityLayer, raw, f"cities[{i}]") for i, raw in enumerate(raw_cities)]
        if top is None:
            return None
        self._check_top(top)
        quotas = self._quotas(top)
        cities = [self._resolve(top, layer, i, quotas) for i, layer in enumerate(layers) if layer is not None]
        self._check_unique(layers)
        names = [layer.name for layer in layers if layer is not None and layer.name is not None]
        if names and not self._under_poisoned("output_s3_uri"):
            for path, message in output_uri_length(top.output_s3_uri, max(names, key=len)):
                self.error(path, message)
        if self.issues:
            return None
        if len(cities) > TRIGGERER_CAPACITY_DEFAULT:
            self.warn(
                f"cities: {len(cities)} cities are {len(cities)} triggers for a whole run (each city starts, waits "
                f"and trains in the triggerer); Airflow's `[triggerer] capacity` is {TRIGGERER_CAPACITY_DEFAULT} "
                f"by default: raise it above {len(cities)} or run "
                f"{-(-len(cities) // TRIGGERER_CAPACITY_DEFAULT)} triggerers"
            )
        select = triggerer_select_per_loop(len(cities))
        if select < TRIGGERER_SELECT_DEFAULT:
            self.warn(
                f"cities: {len(cities)} cities start in the triggerer, each sent to it with the whole DAG; set "
                f"Airflow's `[triggerer] max_trigger_to_select_per_loop` to {select} "
                f"or less (default {TRIGGERER_SELECT_DEFAULT}) so that it takes them in small batches: with the "
                "default a 1,000-city run deadlocked the triggerer (docs/troubleshooting.md)"
            )
        return FleetSpec(
            fleet=top.fleet,
            region=top.region,
            role_arn=top.role_arn,
            image_uri=top.image_uri,
            output_s3_uri=top.output_s3_uri.rstrip("/"),
            cities=tuple(c for c in cities if c is not None),
            input_mode=top.input_mode,
            orchestration_latency_seconds=top.orchestration_latency_seconds,
            deadline_seconds=top.deadline_seconds,
            quotas=quotas,
            quotas_given=top.quotas is not None,
            prices={k: float(v) for k, v in (top.prices or {}).items()},
            warnings=self.warnings,
        )

    # -- structural (pydantic) ----------------------------------------------------------------------------

    def _parse(self, model: type[_M], raw: object, prefix: str) -> _M | None:
        """Validate ``raw``; on errors, report them, drop the bad values and try again so that the checks
        that follow still see every good value (all errors at once, not only the first layer's)."""
        if model is CityLayer and not isinstance(raw, Mapping):
            self.error(prefix, "each city is a mapping with at least `name` and `train_s3_uri`")
            return None
        data = copy.deepcopy(raw)
        for _ in range(6):
            try:
                return model.model_validate(data)
            except ValidationError as exc:
                locs = self._report(exc, prefix, skip_cities=model is FleetLayer)
                if not _repair(data, locs, model):
                    return None
        return None

    def _report(self, exc: ValidationError, prefix: str, *, skip_cities: bool) -> list[list[int | str]]:
        grouped: dict[str, list[str]] = {}
        locs: list[list[int | str]] = []
        types: dict[str, list[ErrorDetails]] = {}
        for err in exc.errors():
            loc = [part for part in err["loc"] if not (isinstance(part, str) and _UNION_TAG_RE.match(part))]
            if skip_cities and len(loc) >= 2 and loc[0] == "cities" and isinstance(loc[1], int):
                continue  # cities are parsed one by one with their own paths
            locs.append(loc)
            path = prefix
            for part in loc:
                path = f"{path}[{part}]" if isinstance(part, int) else join(path, str(part))
            if self._is_poisoned(path):
                continue
            if err["type"] == "extra_forbidden":
                grouped.setdefault(path, []).append(self._unknown_key(loc, prefix))
            elif err["type"] == "missing":
                grouped.setdefault(path, []).append("required field is missing; add it")
            else:
                grouped.setdefault(path, []).append(_plain(err["msg"]))
            types.setdefault(path, []).append(err)
        for path, messages in grouped.items():
            self.error(path, _with_fix(path, list(dict.fromkeys(messages)), types.get(path, [])))
            self._poison(path)
        return locs

    def _under_poisoned(self, path: str) -> bool:
        """``path`` or a field holding it has a structural error: its value was dropped, say nothing more."""
        return any(probe in self.poisoned for probe in lineage(path))

    def _is_poisoned(self, path: str) -> bool:
        """``path`` or a value inside it already has a structural error (a bad list item leaves the list short)."""
        return path in self.poisoned or (bool(path) and path in self._above_poisoned)

    def _unknown_key(self, loc: list[int | str], prefix: str) -> str:
        key = str(loc[-1])
        parent = loc[-2] if len(loc) >= 2 else None
        grand = loc[-3] if len(loc) >= 3 else None
        if parent in ("spot", "vpc"):
            model = _ALLOWED[str(parent)]
        elif grand == "quotas":
            model = _ALLOWED["quota"]
        elif (
            parent == "defaults"
            or isinstance(parent, int)
            or (parent is None and prefix.startswith("cities"))
        ):
            model = _ALLOWED["city"]
        else:
            model = _ALLOWED["fleet"]
        allowed = sorted(model.model_fields)
        close = difflib.get_close_matches(key, allowed, n=1)
        hint = f"did you mean `{close[0]}`?" if close else f"allowed keys: {', '.join(allowed)}"
        return f"unknown key `{key}`; {hint}"

    # -- semantic ------------------------------------------------------------------------------------------

    def _check_top(self, top: FleetLayer) -> None:
        self._match(FLEET_RE, top.fleet, "fleet")
        self._match(REGION_RE, top.region, "region")
        self._match(ROLE_ARN_RE, top.role_arn, "role_arn")
        self._match(S3_URI_RE, top.output_s3_uri, "output_s3_uri")
        self._check_image(top.image_uri, "image_uri")
        for instance_type in top.quotas or {}:
            if not INSTANCE_TYPE_RE.fullmatch(instance_type):
                self.error(
                    join("quotas", instance_type),
                    f"{instance_type!r} is not an instance type; " + _FIXES["instance_type"],
                )
        for instance_type in top.prices or {}:
            if not INSTANCE_TYPE_RE.fullmatch(instance_type):
                self.error(
                    join("prices", instance_type),
                    f"{instance_type!r} is not an instance type; " + _FIXES["instance_type"],
                )
        if top.defaults.name is not None:
            self.error("defaults.name", "a name belongs to one city; move it into `cities`")
        if top.defaults.train_s3_uri is not None:
            self.error("defaults.train_s3_uri", "training data is per city; set `train_s3_uri` on each city")

    def _match(self, pattern: re.Pattern[str], value: str, path: str) -> bool:
        if pattern.fullmatch(value):
            return True
        self.error(path, f"{value!r} is not valid; {_FIXES[path.rsplit('.', 1)[-1]]}")
        return False

    def _check_image(self, value: str, path: str) -> None:
        if not value or any(ch.isspace() for ch in value) or len(value) > 255:
            self.error(path, "use a container image URI without spaces, at most 255 characters")
        elif not ECR_RE.fullmatch(value):
            self.warn(
                f"{path}: {value!r} is not an Amazon ECR image; SageMaker pulls from ECR "
                "unless a private registry is configured"
            )

    def _quotas(self, top: FleetLayer) -> dict[str, InstanceQuota]:
        if top.quotas is None:
            return {}
        return {
            itype: InstanceQuota(q.instances, q.warm_pools, q.spot_instances)
            for itype, q in top.quotas.items()
        }

    def _check_unique(self, layers: list[CityLayer | None]) -> None:
        first: dict[str, int] = {}
        for index, layer in enumerate(layers):
            if layer is None or layer.name is None:
                continue
            if layer.name in first:
                self.error(
                    f"cities[{index}].name",
                    f"duplicate city {layer.name!r} (first at cities[{first[layer.name]}]); "
                    "city names must be unique in a fleet",
                )
            else:
                first[layer.name] = index

    def _resolve(
        self, top: FleetLayer, city: CityLayer, index: int, quotas: dict[str, InstanceQuota]
    ) -> CitySpec | None:
        resolved = _Resolved(top, city, index, self.poisoned)
        before = len(self.issues)
        name = self._required_match(resolved, "name", CITY_RE, "add the city's name")
        train = self._required_match(resolved, "train_s3_uri", S3_URI_RE, "add the city's data URI")
        role = resolved.value("role_arn") or top.role_arn
        if city.role_arn is not None or top.defaults.role_arn is not None:
            self._match(ROLE_ARN_RE, role, resolved.path("role_arn"))
        image = resolved.value("image_uri") or top.image_uri
        if city.image_uri is not None or top.defaults.image_uri is not None:
            self._check_image(image, resolved.path("image_uri"))
        instance_type = self._instance_type(resolved, quotas)
        max_runtime = resolved.value("max_runtime_seconds") or DEFAULT_MAX_RUNTIME
        if max_runtime > MAX_RUNTIME_LIMIT:
            self.error(
                resolved.path("max_runtime_seconds"),
                f"{max_runtime} s is over SageMaker's 28-day limit ({MAX_RUNTIME_LIMIT} s); lower it",
            )
        keep_alive = self._keep_alive(resolved)
        spot = self._spot(resolved, max_runtime, keep_alive)
        self._check_expected(resolved, max_runtime)
        if instance_type in quotas:
            self._check_count(resolved, instance_type, quotas[instance_type], spot)
        self._check_resources(resolved)
        if len(self.issues) > before or name is None or train is None or instance_type is None:
            return None
        return _city_spec(resolved, name, train, role, image, instance_type, keep_alive, spot)

    def _required_match(
        self, resolved: _Resolved, field: str, pattern: re.Pattern[str], fix: str
    ) -> str | None:
        value: str | None = resolved.value(field)
        path = f"cities[{resolved.index}].{field}"
        if value is None:
            self.error(path, f"required field is missing; {fix}")
        elif len(value) > S3_URI_MAX and field == "train_s3_uri":
            self.error(path, f"the URI has {len(value)} characters; SageMaker accepts at most {S3_URI_MAX}")
        else:
            self._match(pattern, value, path)
        return value

    def _check_expected(self, resolved: _Resolved, max_runtime: int) -> None:
        """The expected duration must fit the city's MaxRuntime: see :func:`expected_vs_limits`."""
        runtime_at = resolved.path("max_runtime_seconds")
        expected_at = resolved.path("expected_seconds")
        if self._under_poisoned(runtime_at) or self._under_poisoned(expected_at):
            return
        written = resolved.value("expected_seconds")
        expected = written if written is not None else min(DEFAULT_EXPECTED, max_runtime)
        for path, message in expected_vs_limits((expected, expected_at), (max_runtime, runtime_at)):
            self.error(path, message)

    def _check_count(
        self, resolved: _Resolved, instance_type: str, quota: InstanceQuota, spot: SpotSettings | None
    ) -> None:
        count_at = resolved.path("instance_count")
        if self._under_poisoned(count_at) or self._is_poisoned(join("quotas", instance_type)):
            return
        count = resolved.value("instance_count") or DEFAULT_INSTANCE_COUNT
        spot_at = resolved.path("spot")
        for path, message in count_vs_quota(
            instance_type, (count, count_at), quota, spot=spot is not None, spot_at=spot_at
        ):
            self.error(path, message)

    def _instance_type(self, resolved: _Resolved, quotas: dict[str, InstanceQuota]) -> str | None:
        """Check the city's instance type and that it has a quota (or assume one when no quotas are given)."""
        instance_type: str | None = resolved.value("instance_type")
        path = resolved.path("instance_type")
        if instance_type is None:
            self.error(path, "required field is missing; set `instance_type` in defaults or on the city")
            return None
        if not self._match(INSTANCE_TYPE_RE, instance_type, path) or instance_type in quotas:
            return instance_type
        if resolved.top.quotas is None:
            quotas[instance_type] = ASSUMED_QUOTA
            self.warn(
                f"quotas: none given for {instance_type}; assuming {ASSUMED_QUOTA.instances} instances and "
                f"{ASSUMED_QUOTA.warm_pools} warm pools (the AWS default warm-pool quota is 0); "
                "add a `quotas` block with your account's Service Quotas"
            )
        elif not self._is_poisoned(join("quotas", instance_type)):  # a broken entry is reported already
            self.error(
                path,
                f"no quota for {instance_type}; add `quotas: {{{instance_type}: "
                "{instances: N, warm_pools: N}}` or use an instance type listed in `quotas`",
            )
        return instance_type

    def _keep_alive(self, resolved: _Resolved) -> int | str | None:
        keep_alive: int | str | None = resolved.value("keep_alive")
        path = resolved.path("keep_alive")
        if isinstance(keep_alive, int):
            if keep_alive > KEEP_ALIVE_API_MAX:
                self.error(
                    path,
                    f"{keep_alive} s is over the API maximum of {KEEP_ALIVE_API_MAX} s; "
                    f"use `auto` or at most {KEEP_ALIVE_API_MAX}",
                )
            elif keep_alive > KEEP_ALIVE_GUIDE_MAX:
                warning = (
                    f"{path}: {keep_alive} s is above the {KEEP_ALIVE_GUIDE_MAX} s the developer "
                    "guide documents; the API accepts it, your account may not"
                )
                self.warn(warning)  # a default shared by many cities warns once
        return keep_alive

    def _spot(
        self, resolved: _Resolved, max_runtime: int, keep_alive: int | str | None
    ) -> SpotSettings | None:
        spot = resolved.spot()
        if spot is None:
            return None
        max_wait, wait_path = spot.get("max_wait_seconds", (None, ""))
        base = resolved.path("spot")
        if max_wait is None:
            self.error(
                f"{base}.max_wait_seconds",
                f"spot needs max_wait_seconds (total time incl. waiting for capacity); set it ≥ {max_runtime}",
            )
            return None
        self._check_max_wait(resolved, max_wait, wait_path, max_runtime)
        if isinstance(keep_alive, int) and keep_alive > 0:
            path = resolved.path("keep_alive")
            if path.startswith("defaults."):
                self.error(
                    base,
                    f"this spot city inherits keep_alive {keep_alive} from defaults.keep_alive, but warm "
                    "pools do not work with managed spot training; set `keep_alive: 0` on the city",
                )
            else:
                self.error(
                    path,
                    "warm pools do not work with managed spot training; remove keep_alive "
                    "(or set 0/auto) or turn spot off for this city",
                )
        attempts = spot.get("max_attempts", (None, ""))[0]
        fallback = spot.get("fallback", (None, ""))[0]
        return SpotSettings(
            max_wait_seconds=max_wait,
            max_attempts=attempts if attempts is not None else DEFAULT_MAX_ATTEMPTS,
            fallback=fallback if fallback is not None else DEFAULT_SPOT_FALLBACK,
        )

    def _check_max_wait(self, resolved: _Resolved, max_wait: int, wait_path: str, max_runtime: int) -> None:
        runtime_path = resolved.path("max_runtime_seconds")
        if max_wait < max_runtime and not self._under_poisoned(runtime_path):
            # a default max_wait can be too short for one city only: name the city's own runtime then
            own = f" (set at {runtime_path})" if runtime_path.split(".")[0] != wait_path.split(".")[0] else ""
            self.error(
                wait_path,
                f"max_wait_seconds {max_wait} is below max_runtime_seconds {max_runtime}{own}; "
                f"SageMaker requires MaxWaitTimeInSeconds ≥ MaxRuntimeInSeconds: raise it to ≥ {max_runtime}",
            )
        if max_wait > MAX_RUNTIME_LIMIT:
            self.error(wait_path, f"{max_wait} s is over the 28-day limit ({MAX_RUNTIME_LIMIT} s); lower it")

    def _check_resources(self, resolved: _Resolved) -> None:
        kms = resolved.value("volume_kms_key_id")
        if kms is not None and not KMS_RE.fullmatch(kms):
            self.error(
                resolved.path("volume_kms_key_id"),
                "use a KMS key id, alias or ARN (letters, digits, ':', '/', '_', '-')",
            )
        vpc = resolved.value("vpc")
        if vpc is not None:
            self._check_ids(f"{resolved.path('vpc')}.subnets", vpc.subnets, SUBNET_RE)
            self._check_ids(
                f"{resolved.path('vpc')}.security_group_ids", vpc.security_group_ids, SECURITY_GROUP_RE
            )
        self._check_environment(resolved)
        self._check_hyperparameters(resolved)

    def _check_ids(self, path: str, ids: list[str], pattern: re.Pattern[str]) -> None:
        example = "subnet-0a1b2c3d" if path.endswith(".subnets") else "sg-0a1b2c3d"
        for i, value in enumerate(ids):
            if not pattern.fullmatch(value):
                self.error(f"{path}[{i}]", f"{value!r} is not valid; use an id such as {example}")

    def _check_environment(self, resolved: _Resolved) -> None:
        env: dict[str, str] = resolved.value("environment") or {}
        if len(env) > ENVIRONMENT_MAX:
            self.error(
                resolved.path("environment"),
                f"SageMaker accepts at most {ENVIRONMENT_MAX} environment variables",
            )
        for key, value in env.items():
            if not ENV_KEY_RE.fullmatch(key):
                self.error(
                    f"{resolved.path('environment')}[{key}]",
                    "environment names are letters, digits and '_', not starting with a digit; rename it",
                )
            elif len(value) > ENVIRONMENT_VALUE_MAX:
                self.error(
                    f"{resolved.path('environment')}[{key}]",
                    f"the value has {len(value)} characters; SageMaker accepts at most {ENVIRONMENT_VALUE_MAX}, "
                    "shorten it",
                )

    def _check_hyperparameters(self, resolved: _Resolved) -> None:
        hyper = resolved.value("hyperparameters") or {}
        if len(hyper) > HYPERPARAMETERS_MAX:
            self.error(
                resolved.path("hyperparameters"),
                f"SageMaker accepts at most {HYPERPARAMETERS_MAX} hyperparameters",
            )
        for key, value in hyper.items():
            path = f"{resolved.path('hyperparameters')}[{key}]"
            text = _hyper(value)
            if len(key) > HYPERPARAMETER_KEY_MAX or len(text) > HYPERPARAMETER_VALUE_MAX:
                self.error(
                    path,
                    f"hyperparameter names are ≤ {HYPERPARAMETER_KEY_MAX} and values ≤ {HYPERPARAMETER_VALUE_MAX} "
                    "characters; shorten it",
                )
            elif has_line_break(key) or has_line_break(text):
                self.error(
                    path,
                    "SageMaker refuses a hyperparameter name or value with a line break in it; write it on one "
                    "line (or pass multi-line text through an S3 file)",
                )


def _city_spec(
    resolved: _Resolved,
    name: str,
    train: str,
    role: str,
    image: str,
    instance_type: str,
    keep_alive: int | str | None,
    spot: SpotSettings | None,
) -> CitySpec:
    vpc = resolved.value("vpc")
    max_runtime = resolved.value("max_runtime_seconds") or DEFAULT_MAX_RUNTIME
    return CitySpec(
        name=name,
        train_s3_uri=train,
        role_arn=role,
        image_uri=image,
        instance_type=instance_type,
        instance_count=resolved.value("instance_count") or DEFAULT_INSTANCE_COUNT,
        volume_size_gb=resolved.value("volume_size_gb") or DEFAULT_VOLUME_SIZE_GB,
        volume_kms_key_id=resolved.value("volume_kms_key_id"),
        vpc=VpcSettings(tuple(vpc.subnets), tuple(vpc.security_group_ids)) if vpc else None,
        enable_network_isolation=bool(resolved.value("enable_network_isolation")),
        enable_inter_container_traffic_encryption=bool(
            resolved.value("enable_inter_container_traffic_encryption")
        ),
        max_runtime_seconds=max_runtime,
        expected_seconds=resolved.value("expected_seconds") or min(DEFAULT_EXPECTED, max_runtime),
        keep_alive=None if keep_alive in (None, "auto") else int(keep_alive),
        spot=spot,
        hyperparameters=tuple(
            sorted((k, _hyper(v)) for k, v in (resolved.value("hyperparameters") or {}).items())
        ),
        environment=tuple(sorted((resolved.value("environment") or {}).items())),
    )


class _Resolved:
    """A city's fields with ``defaults`` underneath, remembering where each value was written."""

    def __init__(self, top: FleetLayer, city: CityLayer, index: int, poisoned: set[str]) -> None:
        self.top = top
        self.city = city
        self.index = index
        self.poisoned = poisoned

    def value(self, name: str) -> Any:
        if name in self.city.model_fields_set:
            return getattr(self.city, name)
        return getattr(self.top.defaults, name)

    def path(self, name: str) -> str:
        """Where the value of ``name`` comes from; a broken default (already reported) keeps its own path."""
        if name in self.city.model_fields_set:
            return f"cities[{self.index}].{name}"
        if name in self.top.defaults.model_fields_set or {"defaults", f"defaults.{name}"} & self.poisoned:
            return f"defaults.{name}"
        return f"cities[{self.index}].{name}"

    def spot(self) -> dict[str, tuple[Any, str]] | None:
        """Spot settings merged key by key; a city's ``spot: null`` turns spot off for that city."""
        layers: list[tuple[SpotLayer | None, str]] = [
            (self.top.defaults.spot, "defaults.spot"),
            (self.city.spot, f"cities[{self.index}].spot"),
        ]
        if "spot" in self.city.model_fields_set and self.city.spot is None:
            return None
        merged: dict[str, tuple[Any, str]] = {}
        present = False
        for layer, path in layers:
            if layer is None:
                continue
            present = True
            for key in layer.model_fields_set:
                merged[key] = (getattr(layer, key), f"{path}.{key}")
        return merged if present else None


#: Stand-ins for required top-level values that failed, so the remaining checks can still run.
_PLACEHOLDERS: dict[str, object] = {
    "fleet": "x",
    "region": "us-east-1",
    "role_arn": "arn:aws:iam::000000000000:role/x",
    "image_uri": "000000000000.dkr.ecr.us-east-1.amazonaws.com/x",
    "output_s3_uri": "s3://placeholder",
    "cities": [{}],
}
#: Stand-ins for required values inside a layer: (the key that holds the layer, field) -> value.
_NESTED_PLACEHOLDERS: dict[tuple[str, str], object] = {
    ("quotas", "instances"): 1,
    ("vpc", "subnets"): ["subnet-0"],
    ("vpc", "security_group_ids"): ["sg-0"],
}
_MISSING = object()


def _repair(data: object, locs: list[list[int | str]], model: type[BaseModel]) -> bool:
    """Remove (or stand in for) the values at ``locs``; False when nothing could be repaired."""
    if not isinstance(data, dict) or not all(locs):
        return False
    removals: list[tuple[list[Any], int]] = []
    changed = [_repair_one(data, loc, model, removals) for loc in locs]
    for items, index in sorted(removals, key=lambda removal: removal[1], reverse=True):
        del items[index]  # from the back, so the other indices stay valid
    return any(changed)


def _repair_one(
    data: dict[Any, Any], loc: list[int | str], model: type[BaseModel], removals: list[tuple[list[Any], int]]
) -> bool:
    parent = _walk(data, loc[:-1])
    last = loc[-1]
    stand_in = _stand_in(loc, model)
    if stand_in is not _MISSING and isinstance(parent, dict):
        parent[last] = copy.deepcopy(stand_in)
    elif isinstance(parent, dict) and last in parent:
        del parent[last]
    elif isinstance(parent, list) and isinstance(last, int) and 0 <= last < len(parent):
        if all(items is not parent or index != last for items, index in removals):
            removals.append((parent, last))  # one item can fail several union members
    elif parent is None and str(loc[0]) in data and len(loc) > 1:
        # the value cannot be reached: give up on its whole top-level entry (already reported)
        top_stand_in = _stand_in(loc[:1], model)
        if top_stand_in is _MISSING:
            del data[str(loc[0])]
        else:
            data[str(loc[0])] = copy.deepcopy(top_stand_in)
    else:
        return False  # already removed by another error at the same place
    return True


def _walk(data: Any, parts: list[int | str]) -> Any:
    for part in parts:
        try:
            data = data[part]
        except (KeyError, IndexError, TypeError):
            return None
    return data


def _stand_in(loc: list[int | str], model: type[BaseModel]) -> object:
    if len(loc) == 1 and model is FleetLayer and loc[0] in _PLACEHOLDERS:
        return _PLACEHOLDERS[str(loc[0])]
    if len(loc) >= 3 and loc[-3] == "quotas":
        return _NESTED_PLACEHOLDERS.get(("quotas", str(loc[-1])), _MISSING)
    if len(loc) >= 2:
        return _NESTED_PLACEHOLDERS.get((str(loc[-2]), str(loc[-1])), _MISSING)
    return _MISSING


def _with_fix(path: str, messages: list[str], errors: list[ErrorDetails]) -> str:
    """Join pydantic's messages for one field and add the fix: the field's own, else one from the error type."""
    message = " or ".join(messages)
    if "unknown key" in message:
        return message  # already says which keys are allowed
    field = path.rsplit(".", 1)[-1]
    fix = _FIXES.get(field)
    if len(errors) > 1 and all(err["type"] in _TYPE_NOUNS for err in errors):
        # a union of scalar types (hyperparameter values): one readable sentence instead of four
        nouns = list(dict.fromkeys(_TYPE_NOUNS[err["type"]] for err in errors))
        message = f"input should be {', '.join(nouns[:-1])} or {nouns[-1]}"
        finite = any(err["type"] == "finite_number" for err in errors)
        fix = fix or (
            _TYPE_FIXES["finite_number"] if finite else "write one plain value, not a list or a mapping"
        )
    elif fix is None and errors:
        template = _TYPE_FIXES.get(errors[0]["type"])
        fix = template.format(**errors[0].get("ctx", {})) if template else None
    if errors and errors[0]["type"] in _TYPE_FIXES and _is_scalar(errors[0]["input"]):
        message = f"{message} (got {errors[0]['input']!r})"
    if fix is None:
        return message
    return f"{message} ({fix})" if message.endswith("add it") else f"{message}; {fix}"


def _is_scalar(value: object) -> bool:
    return isinstance(value, str | int | float | bool) and len(repr(value)) <= 60


def _hyper(value: object) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int) and value.bit_length() > 8_400:
        return "9" * (
            HYPERPARAMETER_VALUE_MAX + 1
        )  # too long to print (Python refuses > 4,300 digits): too long
    return str(value)


def _plain(message: str) -> str:
    message = re.sub(r" or instance of \w+", "", message)  # pydantic names our internal classes
    return message[0].lower() + message[1:] if message else message
