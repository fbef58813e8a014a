"""A spec's ``register:`` layers (docs/guides/model-registry.md): the fleet's, ``defaults``' and each city's, checked
and merged into the city's :class:`~sagemaker_fleet.fleetspec.model.RegisterSpec`.

Merged as ``job:`` is: key by key, ``inference`` member by member with a later list replacing an earlier one, and
``register: null`` on a city leaves the city out. ``margin`` and ``margin_abs`` are one rule, so the one a layer
writes replaces the other from the layers below (both in one layer is an error). A layer is checked once; what
depends on the city — its group's name once filled, its job's ``MetricDefinitions``, the inference's strings once
rendered — is checked per city, and a shared layer failing for many cities is reported once, naming a few.
"""

from __future__ import annotations

import difflib
import json
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from sagemaker_fleet.fleetspec.job_fields import OwnedField
from sagemaker_fleet.fleetspec.job_layers import SAMPLE_RUN_KEY
from sagemaker_fleet.fleetspec.job_merge import merge_job
from sagemaker_fleet.fleetspec.model_check import LayerCheck, missing_members, value_problems
from sagemaker_fleet.fleetspec.names import JOB_NAME_MAX, TAG_PREFIX
from sagemaker_fleet.fleetspec.paths import join
from sagemaker_fleet.fleetspec.placeholders import PlaceholderError, names_in, render
from sagemaker_fleet.fleetspec.register_model import (
    DEFAULT_APPROVE,
    DEFAULT_LOSERS,
    REGISTER_TAGS_MAX,
    RegisterLayer,
    RegisterSpec,
)

if TYPE_CHECKING:
    from sagemaker_fleet.fleetspec.job_template import JobTemplate
    from sagemaker_fleet.fleetspec.model import CityLayer, FleetLayer
    from sagemaker_fleet.fleetspec.model_check import Deferred
    from sagemaker_fleet.fleetspec.request_model import RequestModel

#: A model package group's name is botocore's EntityName, as a training job's is: what ``register.group`` must
#: give once filled.
GROUP_NAME_MAX = JOB_NAME_MAX
_GROUP_RE = re.compile(r"[a-zA-Z0-9](-*[a-zA-Z0-9]){0,62}")
#: The InferenceSpecification fields the provider fills: each package's model is its training job's.
INFERENCE_OWNED: dict[str, OwnedField] = {
    field.path: field
    for field in (
        OwnedField(
            "Containers.ModelDataUrl",
            "`output_s3_uri`",
            "each package's model is its training job's artifact (ModelArtifacts.S3ModelArtifacts)",
        ),
        OwnedField(
            "Containers.ModelDataSource",
            "`output_s3_uri`",
            "each package's model is its training job's artifact, given as the container's ModelDataUrl",
        ),
    )
}
#: Keys a layer writes that make the rule: one of the two margins.
_MARGINS = ("margin", "margin_abs")
#: A shared layer's rule failing for many cities is reported for this many, then counted.
_NAMED_CITIES = 3
_REQUIRED_FIXES = {
    "group": 'a model package group per city, such as `group: "{fleet}-{city}"`',
    "metric": "the Name of one of the job's MetricDefinitions, such as `metric: validation:rmse`",
    "direction": "`direction: minimize` (lower is better, a loss) or `direction: maximize`",
    "inference": "`inference: {Containers: [{Image: <serving image URI>}]}`, in CreateModelPackage's names",
}

Report = Callable[[str, str], None]


@dataclass
class _Layer:
    at: str
    values: dict[str, Any]
    deferred: list[Deferred]
    #: keys written but refused (reported): not also missing
    refused: set[str]


@dataclass(frozen=True)
class _Merged:
    """A city's layers merged: each value with the path of the layer that wrote it."""

    values: dict[str, Any]
    paths: dict[str, str]
    at: str  # the least specific layer's path: where a key no layer writes is missing
    refused: frozenset[str]

    def path(self, key: str) -> str:
        return self.paths.get(key) or join(self.at, key)


class RegisterLayers:
    """The fleet-level and ``defaults`` layers, checked; :meth:`for_city` adds a city's own and resolves it.
    ``report`` files a problem at a field path and keeps later checks quiet there (a refused value is not also
    missing)."""

    def __init__(
        self,
        shared: list[tuple[str, RegisterLayer | None]],
        model: RequestModel | None,
        report: Report,
        fleet: str,
    ) -> None:
        self.model = model
        self._report = report
        self.fleet = fleet
        self.shared = [layer for at, raw in shared if (layer := self._check(raw, at)) is not None]
        self._specs: dict[str, RegisterSpec] = {}
        self._checked: set[str] = set()
        self._failing: dict[tuple[str, str], list[str]] = {}
        self._shared_merged: tuple[_Merged, str] | None = None

    @classmethod
    def of(cls, top: FleetLayer, model: RequestModel | None, report: Report) -> RegisterLayers:
        """The fleet's and ``defaults``' layers of a spec's top level."""
        return cls(
            [("register", top.register), ("defaults.register", top.defaults.register)],
            model,
            report,
            top.fleet,
        )

    def for_city(
        self, index: int, layer: CityLayer, city: str, job: JobTemplate | None
    ) -> RegisterSpec | None:
        """The city's register spec (None: not registered — it writes ``register: null``, or nothing registers —
        or not valid: the problems are reported). ``city``: the city's name as messages give it."""
        if "register" in layer.model_fields_set and layer.register is None:
            return None
        own = self._check(layer.register, f"cities[{index}].register")
        if not self.shared and own is None:
            return None
        layers = [*self.shared, own] if own is not None else self.shared
        merged, key = self._merged(layers, shared=own is None)
        if key not in self._checked:
            self._checked.add(key)
            self._check_merged(merged)
        problems = self._city_problems(merged, layers, city, job)
        for path, problem in problems:
            if own is None:
                self._failing.setdefault((path, problem), []).append(city)
            else:
                self._report(path, problem)
        if problems or not _complete(merged.values):
            return None
        return self._spec(merged, key)

    def _merged(self, layers: list[_Layer], *, shared: bool) -> tuple[_Merged, str]:
        """The layers merged and their key (the cities without a layer of their own share one)."""
        if shared and self._shared_merged is not None:
            return self._shared_merged
        merged = _merge(layers)
        result = merged, json.dumps([merged.values, merged.paths], sort_keys=True, default=str)
        if shared:
            self._shared_merged = result
        return result

    def finish(self) -> None:
        """Report the shared layers' rules that fail per city: a few cities by name, the rest counted."""
        for (path, problem), cities in self._failing.items():
            shown = ", ".join(cities[:_NAMED_CITIES])
            more = f" and {len(cities) - _NAMED_CITIES:,} more" if len(cities) > _NAMED_CITIES else ""
            self._report(path, f"for city {shown}{more}: {problem}")

    # -- one layer ----------------------------------------------------------------------------------------

    def _check(self, raw: RegisterLayer | None, at: str) -> _Layer | None:
        if raw is None:
            return None
        values = {key: getattr(raw, key) for key in raw.model_fields_set if getattr(raw, key) is not None}
        if not values and not raw.model_fields_set:
            return None
        refused: set[str] = set()
        if all(key in values for key in _MARGINS):
            self._report(
                join(at, "margin_abs"),
                "`margin` (relative) and `margin_abs` (absolute) are both set; the gate uses one rule: keep one",
            )
            values.pop("margin_abs")
        if "group" in values and not self._group_ok(values["group"], join(at, "group")):
            values.pop("group")
            refused.add("group")
        if "tags" in values:
            values["tags"] = self._tags(values["tags"], join(at, "tags"))
        deferred: list[Deferred] = []
        if "inference" in values:
            check = LayerCheck(
                self.model,
                self._report,
                what="CreateModelPackage's InferenceSpecification",
                root=self.model.inference if self.model is not None else None,
                owned_at=INFERENCE_OWNED.get,
            )
            values["inference"] = check.check(values["inference"], join(at, "inference"))
            deferred = check.deferred
        return _Layer(at, values, deferred, refused)

    def _group_ok(self, group: str, path: str) -> bool:
        try:
            names = names_in(group)
        except PlaceholderError as exc:
            self._report(path, str(exc))
            return False
        if "city" not in names:
            self._report(
                path,
                f"{group!r} has no {{city}}: each city's models need a group of their own (its champion is the "
                'group\'s latest Approved package); write a pattern such as "{fleet}-{city}"',
            )
            return False
        if "run_key" in names:
            self._report(
                path,
                "`{run_key}` would make a new group each run, and a group holds the city's champion from run to "
                "run: use {city} and {fleet} only",
            )
            return False
        return True

    def _tags(self, tags: Mapping[str, str], path: str) -> dict[str, str]:
        kept = {}
        for key, value in tags.items():
            if key.startswith(TAG_PREFIX):
                self._report(join(path, key), f"`{TAG_PREFIX}*` tags are the provider's; use another key")
            elif not 1 <= len(key) <= 128 or len(value) > 256:
                self._report(
                    join(path, key), "SageMaker takes tag keys of 1-128 and values of 0-256 characters"
                )
            else:
                kept[key] = value
        if len(kept) > REGISTER_TAGS_MAX:
            self._report(
                path,
                f"{len(kept)} tags; at most {REGISTER_TAGS_MAX} (SageMaker allows 50 on a group, the provider adds "
                "its own): remove some",
            )
        return kept

    # -- a city's layers merged ---------------------------------------------------------------------------

    def _check_merged(self, merged: _Merged) -> None:
        """What the merged layers miss, whatever the city."""
        values = merged.values
        for key, fix in _REQUIRED_FIXES.items():
            if key not in values and key not in merged.refused:
                self._report(join(merged.at, key), f"required field is missing; add {fix}")
        if not any(key in values for key in _MARGINS):
            self._report(
                join(merged.at, "margin"),
                "required field is missing; add `margin` (relative: 0.02 beats the champion by 2 %) or "
                "`margin_abs` (in the metric's unit); 0 approves a model as good as its champion",
            )
        inference = values.get("inference")
        if isinstance(inference, Mapping) and self.model is not None and self.model.inference is not None:
            for where, member in missing_members(inference, self.model.inference):
                at = merged.path("inference")
                self._report(
                    at if not where else f"{at}.{'.'.join(str(w) for w in where)}",
                    f"`{member}` is required here by CreateModelPackage's InferenceSpecification; add it",
                )

    def _city_problems(
        self, merged: _Merged, layers: list[_Layer], city: str, job: JobTemplate | None
    ) -> list[tuple[str, str]]:
        problems: list[tuple[str, str]] = []
        group = merged.values.get("group")
        if isinstance(group, str):
            name = render(group, {"fleet": self.fleet, "city": city})
            if len(name) > GROUP_NAME_MAX:
                problem = f"the group's name {name!r} has {len(name)} characters, SageMaker takes at most "
                problems.append((merged.path("group"), f"{problem}{GROUP_NAME_MAX}; shorten the pattern"))
            elif not _GROUP_RE.fullmatch(name):
                problems.append(
                    (
                        merged.path("group"),
                        f"the group's name {name!r} is not a model package group's name (letters and digits, "
                        "single '-' between them); write the pattern with those only",
                    )
                )
        metric = merged.values.get("metric")
        if isinstance(metric, str):
            wrong = _metric_problem(metric, job.metric_names if job is not None else ())
            if wrong:
                problems.append((merged.path("metric"), wrong))
        values = {"city": city, "fleet": self.fleet, "run_key": SAMPLE_RUN_KEY}
        for layer in layers:
            for deferred in layer.deferred:
                for problem in value_problems(render(deferred.text, values), deferred.shape):
                    problems.append((deferred.path, f"rendered: {problem}"))
        return problems

    def _spec(self, merged: _Merged, key: str) -> RegisterSpec:
        spec = self._specs.get(key)
        if spec is None:
            values = merged.values
            spec = self._specs[key] = RegisterSpec(
                group=str(values["group"]),
                metric=str(values["metric"]),
                direction=values["direction"],
                margin=_number(values.get("margin")),
                margin_abs=_number(values.get("margin_abs")),
                bound=_number(values.get("bound")),
                inference=json.dumps(values["inference"], separators=(",", ":"), ensure_ascii=False),
                approve=values.get("approve", DEFAULT_APPROVE),
                losers=values.get("losers", DEFAULT_LOSERS),
                tags=tuple(sorted((values.get("tags") or {}).items())),
            )
        return spec


def _merge(layers: list[_Layer]) -> _Merged:
    values: dict[str, Any] = {}
    paths: dict[str, str] = {}
    for layer in layers:
        for key, value in layer.values.items():
            if key in _MARGINS:
                for other in _MARGINS:
                    values.pop(other, None)
                    paths.pop(other, None)
            if key in ("inference", "tags") and isinstance(values.get(key), Mapping):
                value = merge_job(values[key], value)
            values[key] = value
            paths[key] = join(layer.at, key)
    refused = frozenset(key for layer in layers for key in layer.refused if key not in values)
    return _Merged(values, paths, layers[0].at, refused)


def _complete(values: Mapping[str, Any]) -> bool:
    return all(key in values for key in _REQUIRED_FIXES) and any(key in values for key in _MARGINS)


def _metric_problem(metric: str, names: tuple[str, ...]) -> str | None:
    """Why ``metric`` cannot be the gate's: the job reports no such final metric."""
    if metric in names:
        return None
    if not names:
        return (
            f"{metric!r} is not a metric of this city's job: its job: defines no MetricDefinitions, so SageMaker "
            "reports no final metric to compare; add job.AlgorithmSpecification.MetricDefinitions with "
            f"`{{Name: {metric}, Regex: …}}`"
        )
    close = difflib.get_close_matches(metric, names, n=1)
    hint = f"did you mean {close[0]!r}?" if close else f"use one of {', '.join(names)}"
    return (
        f"{metric!r} is not one of the job's MetricDefinitions ({', '.join(names)}), so SageMaker reports no such "
        f"final metric; {hint}"
    )


def _number(value: object) -> float | None:
    return None if value is None else float(value)  # type: ignore[arg-type]
