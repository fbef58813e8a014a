"""A spec's ``job:`` layers: the fleet's and ``defaults``' checked once, each city's merged on top of them and
resolved into what the city needs — the fields lifted into it (instance type, role, …) and its template.

Per city this is set look-ups and the rendering of the strings that hold a placeholder, so 20,000 cities sharing a
fleet-level template cost little more than 20,000 without (benchmarks/bench_validate.py measures it).
"""

from __future__ import annotations

import functools
import json
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Protocol

from pydantic import ValidationError

from sagemaker_fleet.fleetspec.job_fields import (
    KEYED_SHORTHANDS,
    PROVIDED,
    SHORTHANDS,
    TRAIN_CHANNEL,
    Shorthand,
    shorthand_named,
)
from sagemaker_fleet.fleetspec.job_merge import merge_job, without
from sagemaker_fleet.fleetspec.job_template import JobTemplate
from sagemaker_fleet.fleetspec.messages import plain
from sagemaker_fleet.fleetspec.model import HYPERPARAMETERS_MAX, CityLayer
from sagemaker_fleet.fleetspec.model_check import Deferred, LayerCheck, missing_members, value_problems
from sagemaker_fleet.fleetspec.names import PROVIDER_TAGS_MAX, TAG_PREFIX, TAGS_MAX
from sagemaker_fleet.fleetspec.paths import join
from sagemaker_fleet.fleetspec.placeholders import names_in, render

if TYPE_CHECKING:
    from sagemaker_fleet.fleetspec.request_model import RequestModel

#: ``{run_key}`` as checks render it: 16 characters, the longest a run key may have.
SAMPLE_RUN_KEY = "20261129t0000000"
#: A shared layer's rule failing for many cities is reported for this many, then counted.
_NAMED_CITIES = 3
#: A path into a request: member names, and ``(member, value)`` for a list item known by its name.
Where = tuple[Any, ...]


@dataclass(frozen=True)
class Lifted:
    """A shorthand's value written in ``job:``, and where."""

    value: Any
    path: str


@dataclass(frozen=True)
class CityJob:
    """What a city's ``job:`` layers give it: values lifted into the city, and its template (None without one)."""

    lifted: Mapping[str, Lifted] = field(default_factory=dict)
    template: JobTemplate | None = None
    #: the template has data channels, none named ``train``: without ``train_s3_uri`` the job has only those
    without_train_channel: bool = False


NO_JOB = CityJob()


class Written(Protocol):
    """Where a city's shorthands are written (None: not written, left at its default)."""

    def written(self, key: str) -> str | None: ...

    def map_keys(self, key: str) -> Mapping[str, str]: ...


@dataclass(frozen=True)
class _Facts:
    """What a merged template says whatever the city: the shorthand fields it writes (raw), its maps merged key by
    key with shorthands, its template less the lifted fields, and whether its channels stand without ``train``."""

    present: dict[str, Any]
    maps: dict[str, Mapping[str, Any]]
    template: JobTemplate | None
    alone: bool


@dataclass
class _Layer:
    at: str
    value: dict[str, Any]
    deferred: list[Deferred]


class JobLayers:
    """The fleet-level and ``defaults`` layers, checked; :meth:`for_city` adds a city's own. ``report`` files a
    problem at a field path (and keeps later checks quiet there)."""

    def __init__(
        self,
        layers: list[tuple[str, object]],
        model: RequestModel | None,
        report: Callable[[str, str], None],
        fleet: str,
    ) -> None:
        self.model = model
        self._report = report
        self.refused: set[str] = set()  # paths whose value was refused (and dropped): no "missing" there
        self.fleet = fleet
        self.shared = [layer for at, raw in layers if (layer := self._check(raw, at)) is not None]
        self.merged: dict[str, Any] = {}
        for layer in self.shared:
            self.merged = merge_job(self.merged, layer.value)
        self._templates: dict[str, JobTemplate] = {}
        self._shared: _Facts | None = None
        self._lifted: dict[tuple[str, str, str], Any] = {}
        self._shared_paths: dict[str, str] = {}
        self._complete: dict[str, list[tuple[Where, str]]] = {}
        self._failing: dict[tuple[str, str], list[str]] = {}

    def report(self, path: str, message: str) -> None:
        self.refused.add(path)
        self._report(path, message)

    def _check(self, raw: object, at: str) -> _Layer | None:
        if not isinstance(raw, Mapping) or not raw:
            return None
        check = LayerCheck(self.model, self.report)
        return _Layer(at, check.check(raw, at), check.deferred)

    def for_city(self, index: int, raw: object, name: str, written: Written) -> CityJob:
        """The city's lifted values and template; its problems are reported. What does not depend on the city is
        worked out once per merged template (once for every city without a ``job:`` of its own)."""
        own = self._check(raw, f"cities[{index}].job")
        if not self.shared and own is None:
            return NO_JOB
        if own is None:
            layers, facts = self.shared, self._shared_facts()
        else:
            layers = [*self.shared, own]
            facts = self._facts(merge_job(self.merged, own.value), layers)
        self._conflicts(facts, layers, written)
        lifted = self._lift(facts, layers, written, name)
        self._rendered(layers, own, name)
        return CityJob(lifted, facts.template, facts.alone)

    def fleet_value(self, path: str) -> Any:
        """A field of the fleet-level ``job:`` with ``{fleet}`` filled (other placeholders as written), or None."""
        for layer in self.shared:
            if layer.at == "job":
                value = _get(layer.value, path)
                if isinstance(value, str):
                    return render(value, {"fleet": self.fleet, "city": "{city}", "run_key": "{run_key}"})
                return value
        return None

    def finish(self) -> None:
        """Report the shared layers' strings that fail once rendered: a few cities by name, the rest counted."""
        for (path, problem), cities in self._failing.items():
            shown = ", ".join(cities[:_NAMED_CITIES])
            more = f" and {len(cities) - _NAMED_CITIES:,} more" if len(cities) > _NAMED_CITIES else ""
            self.report(path, f"rendered for city {shown}{more}: {problem}")

    # -- the checks of one city --------------------------------------------------------------------------

    def _locate_shared(self, path: str) -> str:
        found = self._shared_paths.get(path)
        if found is None:
            found = self._shared_paths[path] = _locate(self.shared, path)
        return found

    def _shared_facts(self) -> _Facts:
        if self._shared is None:
            self._shared = self._facts(self.merged, self.shared)
        return self._shared

    def _facts(self, merged: dict[str, Any], layers: list[_Layer]) -> _Facts:
        """The shorthand fields ``merged`` writes, its template less the lifted ones, and its city-free checks."""
        present = {s.key: raw for s in SHORTHANDS if (raw := _get(merged, s.path)) is not None}
        template = merged
        for shorthand in SHORTHANDS:
            if shorthand.lifted and shorthand.key in present:
                template = _without_path(template, shorthand.path)
        self._required(template, layers)
        self._tags(merged, layers)
        channels = [c for c in template.get("InputDataConfig") or () if isinstance(c, Mapping)]
        alone = bool(channels) and all(c.get("ChannelName") != TRAIN_CHANNEL for c in channels)
        maps = {
            member: values for member in KEYED_SHORTHANDS if isinstance(values := merged.get(member), Mapping)
        }
        return _Facts(present, maps, self._intern(template) if template else None, alone)

    def _conflicts(self, facts: _Facts, layers: list[_Layer], written: Written) -> None:
        for key in facts.present:
            there = written.written(key)
            if there is None:
                continue
            path = shorthand_named(key).path
            self.report(
                _locate(layers, path),
                f"`{path}` is also set by `{there}`; set it one way: keep `{key}` or this field, not both",
            )
        for member, values in facts.maps.items():
            key = KEYED_SHORTHANDS[member]
            keys = written.map_keys(key)
            for name in values:
                if name in keys:
                    self.report(
                        join(_locate(layers, member), name),
                        f"also set by `{keys[name]}`; set it one way: in `{key}` or in `{member}`, not both",
                    )
            if len(keys.keys() | values.keys()) > HYPERPARAMETERS_MAX:
                self.report(
                    _locate(layers, member),
                    f"{len(keys.keys() | values.keys())} entries with `{key}`; SageMaker accepts at most "
                    f"{HYPERPARAMETERS_MAX}: remove some",
                )

    def _lift(self, facts: _Facts, layers: list[_Layer], written: Written, city: str) -> dict[str, Lifted]:
        lifted: dict[str, Lifted] = {}
        for key, raw in facts.present.items():
            shorthand = shorthand_named(key)
            if not shorthand.lifted or written.written(key) is not None:
                continue
            path = _locate(layers, shorthand.path)
            text = (
                render(raw, {"city": city, "fleet": self.fleet, "run_key": "{run_key}"})
                if isinstance(raw, str)
                else None
            )
            memo = (key, path, text if text is not None else json.dumps(raw, sort_keys=True, default=str))
            if memo not in self._lifted:
                self._lifted[memo] = self._shorthand_value(shorthand, raw, path, city)
            value = self._lifted[memo]
            if value is not None:
                lifted[key] = Lifted(value, path)
        return lifted

    def _shorthand_value(self, shorthand: Shorthand, raw: Any, path: str, city: str) -> Any:
        """``raw`` as the shorthand's value (placeholders filled, checked as the shorthand is), or None."""
        if isinstance(raw, str):
            if "run_key" in names_in(raw):
                self.report(
                    path,
                    "`{run_key}` is not known before a run, and the plan and the account checks read this field "
                    "before one: use {city} or {fleet} here",
                )
                return None
            raw = render(raw, {"city": city, "fleet": self.fleet})
        if shorthand.key == "vpc" and isinstance(raw, Mapping):
            raw = {"subnets": raw.get("Subnets"), "security_group_ids": raw.get("SecurityGroupIds")}
        try:
            parsed = CityLayer.model_validate({shorthand.key: raw})
        except ValidationError as exc:
            error = exc.errors()[0]
            self.report(path, f"{plain(error['msg'])} (as `{shorthand.key}` checks it)")
            return None
        return getattr(parsed, shorthand.key)

    def _required(self, template: dict[str, Any], layers: list[_Layer]) -> None:
        if self.model is None:
            return
        key = JobTemplate.of(template).text
        missing = self._complete.get(key)
        if missing is None:
            request = merge_job(PROVIDED, template)
            missing = self._complete[key] = list(missing_members(request, self.model.request))
        for where, member in missing:
            path = _locate(layers, where)
            if join(path, member) not in self.refused:  # a refused value is reported already
                self.report(path, f"`{member}` is required here by CreateTrainingJob; add it")

    def _tags(self, merged: dict[str, Any], layers: list[_Layer]) -> None:
        tags = merged.get("Tags")
        if isinstance(tags, list) and len(tags) + PROVIDER_TAGS_MAX > TAGS_MAX:
            self.report(
                _locate(layers, "Tags"),
                f"{len(tags)} tags, and the provider adds up to {PROVIDER_TAGS_MAX} of its own "
                f"({TAG_PREFIX}*): SageMaker allows {TAGS_MAX} on a job; keep at most "
                f"{TAGS_MAX - PROVIDER_TAGS_MAX}",
            )

    def _rendered(self, layers: list[_Layer], own: _Layer | None, city: str) -> None:
        values = {"city": city, "fleet": self.fleet, "run_key": SAMPLE_RUN_KEY}
        for layer in layers:
            for deferred in layer.deferred:
                for problem in value_problems(render(deferred.text, values), deferred.shape):
                    if layer is own:
                        self.report(deferred.path, f"rendered: {problem}")
                    else:
                        self._failing.setdefault((deferred.path, problem), []).append(city)

    def _intern(self, template: dict[str, Any]) -> JobTemplate:
        value = JobTemplate.of(template)
        return self._templates.setdefault(value.text, value)


def written_for_all(shared: Sequence[object], cities: Sequence[object], path: str) -> bool:
    """Whether ``job:`` writes the field at ``path`` for every city: in a shared layer, or in each city's own."""
    return any(_get(job, path) is not None for job in shared) or (
        bool(cities) and all(_get(job, path) is not None for job in cities)
    )


@functools.lru_cache(maxsize=1024)
def _steps(path: str | Where) -> Where:
    """A shorthand's path (``InputDataConfig[train].DataSource…``) as steps."""
    if not isinstance(path, str):
        return path
    steps: list[Any] = []
    for part in path.split("."):
        if part.endswith("]") and "[" in part:
            member, _, name = part[:-1].partition("[")
            steps += [member, ("ChannelName", name)]
        else:
            steps.append(part)
    return tuple(steps)


def _get(value: Any, path: str | Where) -> Any:
    for step in _steps(path):
        if isinstance(step, tuple):
            member, name = step
            value = (
                next((item for item in value if isinstance(item, Mapping) and item.get(member) == name), None)
                if isinstance(value, list)
                else None
            )
        elif isinstance(step, int):
            value = value[step] if isinstance(value, list) and step < len(value) else None
        else:
            value = value.get(step) if isinstance(value, Mapping) else None
        if value is None:
            return None
    return value


def _locate(layers: list[_Layer], path: str | Where) -> str:
    """The spec path of ``path`` in the most specific layer that writes it (or the deepest part of it)."""
    steps = _steps(path)
    for depth in range(len(steps), 0, -1):
        for layer in reversed(layers):
            found = _spec_path(layer, steps[:depth])
            if found is not None:
                return found
    return layers[-1].at if layers else "job"


def _spec_path(layer: _Layer, steps: Where) -> str | None:
    value: Any = layer.value
    path = layer.at
    for step in steps:
        if isinstance(step, tuple | int) and isinstance(value, list):
            index = (
                step
                if isinstance(step, int)
                else next(
                    (
                        i
                        for i, item in enumerate(value)
                        if isinstance(item, Mapping) and item.get(step[0]) == step[1]
                    ),
                    None,
                )
            )
            if index is None or index >= len(value):
                return None
            value, path = value[index], f"{path}[{index}]"
        elif isinstance(step, str) and isinstance(value, Mapping) and step in value:
            value, path = value[step], join(path, step)
        else:
            return None
    return path


def _without_path(template: dict[str, Any], path: str) -> dict[str, Any]:
    steps = _steps(path)
    if steps and steps[0] == "InputDataConfig":
        channels = []
        for channel in template.get("InputDataConfig") or ():
            if isinstance(channel, Mapping) and channel.get("ChannelName") == TRAIN_CHANNEL:
                channel = without(channel, tuple(steps[2:]))
            channels.append(channel)
        return {**template, "InputDataConfig": channels} if "InputDataConfig" in template else template
    return without(template, tuple(str(step) for step in steps))
