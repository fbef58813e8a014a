"""Check one fleet spec and resolve it: every problem collected with its field path and YAML line, or the spec.

Two passes. The structural one validates the pydantic layers (:mod:`sagemaker_fleet.fleetspec.model`): the top
level, then each city on its own, so that one bad city never hides another's errors; a refused value is reported
(:mod:`~sagemaker_fleet.fleetspec.messages`), dropped (:mod:`~sagemaker_fleet.fleetspec.repair`) and the layer
validated again. The semantic one checks the values pydantic accepted: formats
(:mod:`~sagemaker_fleet.fleetspec.formats`), limits (:mod:`~sagemaker_fleet.fleetspec.resource_rules` for a city's
resources), and the rules between fields (:mod:`~sagemaker_fleet.fleetspec.crossfield`), each city with
``defaults`` underneath (:mod:`~sagemaker_fleet.fleetspec.resolve`) and its ``job:`` layers
(:mod:`~sagemaker_fleet.fleetspec.job_layers`, checked against botocore's model when the reader hands one in). A
path with a structural error stays quiet in the semantic pass.
"""

from __future__ import annotations

import copy
import re
from collections.abc import Mapping
from typing import TYPE_CHECKING, TypeVar, cast

from pydantic import BaseModel, ValidationError

from sagemaker_fleet.fleetspec.crossfield import (
    count_vs_quota,
    duplicate_cities,
    expected_vs_limits,
    output_uri_length,
)
from sagemaker_fleet.fleetspec.ecr import ecr_image
from sagemaker_fleet.fleetspec.formats import (
    CITY_RE,
    FIXES,
    FLEET_RE,
    REGION_RE,
    ROLE_ARN_RE,
    S3_URI_RE,
)
from sagemaker_fleet.fleetspec.instance_types import is_training_instance_type, unknown_instance_type
from sagemaker_fleet.fleetspec.issue import SpecIssue
from sagemaker_fleet.fleetspec.job_layers import JobLayers, written_for_all
from sagemaker_fleet.fleetspec.messages import UNION_TAG_RE, mapping_not_bool, plain, unknown_key, with_fix
from sagemaker_fleet.fleetspec.model import (
    ASSUMED_QUOTA,
    DEFAULT_EXPECTED,
    DEFAULT_INSTANCE_COUNT,
    DEFAULT_MAX_RUNTIME,
    MAX_RUNTIME_LIMIT,
    S3_URI_MAX,
    CityLayer,
    CitySpec,
    FleetLayer,
    FleetSpec,
    InputMode,
    InstanceQuota,
    SpotSettings,
)
from sagemaker_fleet.fleetspec.paths import join, lineage
from sagemaker_fleet.fleetspec.price_table import unpriced_warnings
from sagemaker_fleet.fleetspec.register import RegisterLayers
from sagemaker_fleet.fleetspec.render import label_cities
from sagemaker_fleet.fleetspec.repair import repair, stand_in
from sagemaker_fleet.fleetspec.resolve import Resolved, city_spec
from sagemaker_fleet.fleetspec.resource_rules import resource_problems
from sagemaker_fleet.fleetspec.sharing import parse_sharing
from sagemaker_fleet.fleetspec.spot_rules import keep_alive_of, spot_of
from sagemaker_fleet.fleetspec.triggerer import triggerer_warnings
from sagemaker_fleet.fleetspec.yamlread import SPEC_DOCS

if TYPE_CHECKING:
    from pydantic_core import ErrorDetails

    from sagemaker_fleet.fleetspec.request_model import ModelSource, RequestModel

_M = TypeVar("_M", bound=BaseModel)


class SpecBuilder:
    """Collects every problem of one spec. Each bookkeeping step is a set look-up, never a scan of the problems
    so far, so that checking stays linear: a spec with 20,000 broken cities takes about the time of a valid one."""

    def __init__(self, lines: Mapping[str, int], model: ModelSource | None = None) -> None:
        self.lines = lines
        self.model = model
        self.issues: list[SpecIssue] = []
        self._reported: set[SpecIssue] = set()
        # ordered, each once (a default shared by many cities warns once)
        self._warnings: dict[str, None] = {}
        self.poisoned: set[str] = set()  # paths with a structural error: later checks stay quiet there
        self._above_poisoned: set[str] = set()  # every path holding a poisoned one
        self.city_names: dict[int, str] = {}  # index -> name of each city whose name is valid, for messages

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

    def refuse(self, path: str, message: str) -> None:
        """An error at ``path`` after which later checks stay quiet there (a template's refused value)."""
        self.error(path, message)
        self._poison(path)

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
        self.city_names = self._names(layers)
        if top is None:
            return None
        top = self._required_top(top, layers)
        self._check_top(top)
        sharing = parse_sharing(top.sharing, top.output_s3_uri, self.error)
        quotas = self._quotas(top)
        model = self._request_model(top, layers)
        jobs = JobLayers(
            [("job", top.job), ("defaults.job", top.defaults.job)], model, self.refuse, top.fleet
        )
        registers = RegisterLayers.of(top, model, self.refuse)
        cities = [
            self._resolve(top, layer, i, quotas, (jobs, registers))
            for i, layer in enumerate(layers)
            if layer is not None
        ]
        jobs.finish()
        registers.finish()
        self._check_unique(layers)
        names = [layer.name for layer in layers if layer is not None and layer.name is not None]
        if names and not self._under_poisoned("output_s3_uri"):
            for path, message in output_uri_length(top.output_s3_uri, max(names, key=len)):
                self.error(path, message)
        if self.issues:
            return None
        for warning in triggerer_warnings(len(cities)):
            self.warn(warning)
        resolved = [c for c in cities if c is not None]
        for warning in unpriced_warnings(top.region, top.prices or {}, resolved):
            self.warn(warning)
        return FleetSpec(
            fleet=top.fleet,
            region=top.region,
            role_arn=top.role_arn or str(jobs.fleet_value("RoleArn")),
            image_uri=top.image_uri or str(jobs.fleet_value("AlgorithmSpecification.TrainingImage")),
            output_s3_uri=top.output_s3_uri.rstrip("/"),
            cities=tuple(resolved),
            input_mode=self._input_mode(top, jobs),
            orchestration_latency_seconds=top.orchestration_latency_seconds,
            deadline_seconds=top.deadline_seconds,
            quotas=quotas,
            quotas_given=top.quotas is not None,
            prices={k: float(v) for k, v in (top.prices or {}).items()},
            sharing=sharing,
            warnings=tuple(label_cities(warning, self.city_names) for warning in self.warnings),
        )

    def _names(self, layers: list[CityLayer | None]) -> dict[int, str]:
        """The cities whose ``name`` is valid, by index: only those are named in messages."""
        return {
            index: layer.name
            for index, layer in enumerate(layers)
            if layer is not None
            and layer.name is not None
            and CITY_RE.fullmatch(layer.name)
            and not self._under_poisoned(f"cities[{index}].name")
        }

    def _required_top(self, top: FleetLayer, cities: list[CityLayer | None]) -> FleetLayer:
        """``role_arn`` and ``image_uri`` are required unless ``job:`` writes them for every city; a missing one is
        reported as pydantic would, and a stand-in lets the other checks run."""
        jobs = [top.job, top.defaults.job], [city.job for city in cities if city is not None]
        given = {
            "role_arn": top.role_arn is not None or written_for_all(*jobs, "RoleArn"),
            "image_uri": top.image_uri is not None
            or written_for_all(*jobs, "AlgorithmSpecification.TrainingImage"),
        }
        missing = {key: stand_in(key) for key, ok in given.items() if not ok}
        for key in missing:
            self.error(key, with_fix(key, ["required field is missing; add it"], []))
            self._poison(key)
        return top.model_copy(update=missing) if missing else top

    def _request_model(self, top: FleetLayer, layers: list[CityLayer | None]) -> RequestModel | None:
        """botocore's model, loaded only for a spec with a ``job:`` or ``register:`` layer (and only when the reader
        gave a source)."""
        if self.model is None:
            return None
        if any(layer is not None and (layer.job or layer.register) for layer in (top, top.defaults, *layers)):
            return self.model.load()
        return None

    @staticmethod
    def _input_mode(top: FleetLayer, jobs: JobLayers) -> InputMode:
        """The fleet's input mode: ``input_mode``, else the fleet-level ``job:``'s TrainingInputMode."""
        mode = jobs.fleet_value("AlgorithmSpecification.TrainingInputMode")
        if "input_mode" not in top.model_fields_set and mode in ("File", "FastFile", "Pipe"):
            return cast("InputMode", mode)
        return top.input_mode

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
                if not repair(data, locs, model):
                    return None
        return None

    def _report(self, exc: ValidationError, prefix: str, *, skip_cities: bool) -> list[list[int | str]]:
        grouped: dict[str, list[str]] = {}
        locs: list[list[int | str]] = []
        types: dict[str, list[ErrorDetails]] = {}
        for err in exc.errors():
            loc = [part for part in err["loc"] if not (isinstance(part, str) and UNION_TAG_RE.match(part))]
            if skip_cities and len(loc) >= 2 and loc[0] == "cities" and isinstance(loc[1], int):
                continue  # cities are parsed one by one with their own paths
            locs.append(loc)
            path = prefix
            for part in loc:
                path = f"{path}[{part}]" if isinstance(part, int) else join(path, str(part))
            if self._is_poisoned(path) or (path == "sharing" and mapping_not_bool(err)):
                continue
            if err["type"] == "extra_forbidden":
                grouped.setdefault(path, []).append(unknown_key(loc, prefix))
            elif err["type"] == "missing":
                grouped.setdefault(path, []).append("required field is missing; add it")
            else:
                grouped.setdefault(path, []).append(plain(err["msg"]))
            types.setdefault(path, []).append(err)
        for path, messages in grouped.items():
            self.error(path, with_fix(path, list(dict.fromkeys(messages)), types.get(path, [])))
            self._poison(path)
        return locs

    def under_poisoned(self, path: str) -> bool:
        return self._under_poisoned(path)

    def _under_poisoned(self, path: str) -> bool:
        """``path`` or a field holding it has a structural error: its value was dropped, say nothing more."""
        return any(probe in self.poisoned for probe in lineage(path))

    def _is_poisoned(self, path: str) -> bool:
        """``path`` or a value inside it already has a structural error (a bad list item leaves the list short)."""
        return path in self.poisoned or (bool(path) and path in self._above_poisoned)

    # -- semantic ------------------------------------------------------------------------------------------

    def _check_top(self, top: FleetLayer) -> None:
        self._match(FLEET_RE, top.fleet, "fleet")
        self._match(REGION_RE, top.region, "region")
        if top.role_arn is not None:
            self._match(ROLE_ARN_RE, top.role_arn, "role_arn")
        self._match(S3_URI_RE, top.output_s3_uri, "output_s3_uri")
        if top.image_uri is not None:
            self._check_image(top.image_uri, "image_uri")
        for field in ("quotas", "prices"):
            for instance_type in getattr(top, field) or {}:
                self._check_instance_type(instance_type, join(field, instance_type))
        if top.defaults.name is not None:
            self.error("defaults.name", "a name belongs to one city; move it into `cities`")
        if top.defaults.train_s3_uri is not None:
            self.error("defaults.train_s3_uri", "training data is per city; set `train_s3_uri` on each city")

    def _check_instance_type(self, value: str, path: str) -> bool:
        """A SageMaker training instance type, or an error suggesting the nearest one (a typo would otherwise be
        refused by SageMaker at the first job, or here as a type with no quota)."""
        if is_training_instance_type(value):
            return True
        self.error(path, unknown_instance_type(value))
        return False

    def _match(self, pattern: re.Pattern[str], value: str, path: str, field: str | None = None) -> bool:
        if pattern.fullmatch(value):
            return True
        self.error(path, f"{value!r} is not valid; {FIXES[field or path.rsplit('.', 1)[-1]]}")
        return False

    def _check_image(self, value: str, path: str) -> None:
        if not value or any(ch.isspace() for ch in value) or len(value) > 255:
            self.error(path, "use a container image URI without spaces, at most 255 characters")
        elif ecr_image(value) is None:
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
        for path, message in duplicate_cities([layer.name if layer else None for layer in layers]):
            self.error(path, message)

    def _resolve(
        self,
        top: FleetLayer,
        city: CityLayer,
        index: int,
        quotas: dict[str, InstanceQuota],
        layers: tuple[JobLayers, RegisterLayers],
    ) -> CitySpec | None:
        jobs, registers = layers
        resolved = Resolved(top, city, index, self.poisoned)
        before = len(self.issues)
        label = self.city_names.get(index, f"cities[{index}]")
        resolved.job = jobs.for_city(index, city.job, label, resolved)
        resolved.register = registers.for_city(index, city, label, resolved.job.template)
        name = self._required_match(resolved, "name", CITY_RE, "add the city's name")
        train = self._required_match(resolved, "train_s3_uri", S3_URI_RE, "add the city's data URI")
        role: str = resolved.value("role_arn") or top.role_arn or ""
        if (
            city.role_arn is not None
            or top.defaults.role_arn is not None
            or "role_arn" in resolved.job.lifted
        ):
            self._match(ROLE_ARN_RE, role, resolved.path("role_arn"), "role_arn")
        image: str = resolved.value("image_uri") or top.image_uri or ""
        if (
            city.image_uri is not None
            or top.defaults.image_uri is not None
            or "image_uri" in resolved.job.lifted
        ):
            self._check_image(image, resolved.path("image_uri"))
        instance_type = self._instance_type(resolved, quotas)
        max_runtime = resolved.value("max_runtime_seconds") or DEFAULT_MAX_RUNTIME
        if max_runtime > MAX_RUNTIME_LIMIT:
            self.error(
                resolved.path("max_runtime_seconds"),
                f"{max_runtime} s is over SageMaker's 28-day limit ({MAX_RUNTIME_LIMIT} s); lower it",
            )
        keep_alive = keep_alive_of(self, resolved)
        spot = spot_of(self, resolved, max_runtime, keep_alive)
        self._check_expected(resolved, max_runtime)
        if instance_type in quotas:
            self._check_count(resolved, instance_type, quotas[instance_type], spot)
        self._check_resources(resolved)
        if len(self.issues) > before or name is None or train is None or instance_type is None:
            return None
        return city_spec(resolved, name, train, role, image, instance_type, keep_alive, spot)

    def _required_match(
        self, resolved: Resolved, field: str, pattern: re.Pattern[str], fix: str
    ) -> str | None:
        value: str | None = resolved.value(field)
        path = resolved.path(field)
        if value is None:
            self.error(path, f"required field is missing; {fix}")
        elif len(value) > S3_URI_MAX and field == "train_s3_uri":
            self.error(path, f"the URI has {len(value)} characters; SageMaker accepts at most {S3_URI_MAX}")
        elif value:  # "" for a city whose job: channels have no `train` one: no train_s3_uri to check
            self._match(pattern, value, path, field)
        return value

    def _check_expected(self, resolved: Resolved, max_runtime: int) -> None:
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
        self, resolved: Resolved, instance_type: str, quota: InstanceQuota, spot: SpotSettings | None
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

    def _instance_type(self, resolved: Resolved, quotas: dict[str, InstanceQuota]) -> str | None:
        """Check the city's instance type and that it has a quota (or assume one when no quotas are given)."""
        instance_type: str | None = resolved.value("instance_type")
        path = resolved.path("instance_type")
        if instance_type is None:
            self.error(path, "required field is missing; set `instance_type` in defaults or on the city")
            return None
        if not self._check_instance_type(instance_type, path) or instance_type in quotas:
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

    def _check_resources(self, resolved: Resolved) -> None:
        """The city's KMS key, VPC ids, environment and hyperparameters (:mod:`~sagemaker_fleet.fleetspec.resource_rules`)."""
        for path, message in resource_problems(resolved):
            self.error(path, message)
