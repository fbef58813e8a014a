"""A fleet spec drafted from training jobs you already run (``sagemaker-fleet import``), pure.

Each job's CreateTrainingJob request (from a DescribeTrainingJob and its tags, or from a request file) loses what the
provider owns and what SageMaker fills in by default; the city's name in its strings becomes ``{city}``; what every
job shares goes in the fleet-level ``job:``, and each city's ``job:`` holds what differs. Every field left out is
listed with why, so nothing disappears silently.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import yaml

from sagemaker_fleet.fleetspec.job_fields import AWS_DEFAULTS, OWNED, OWNED_TAG
from sagemaker_fleet.fleetspec.job_merge import KEYED_LISTS
from sagemaker_fleet.fleetspec.names import TAG_PREFIX

#: Fields whose SageMaker default the provider does not share: kept even at SageMaker's value (the provider's
#: MaxRuntimeInSeconds default is 7200 s, SageMaker's 86400 s).
KEPT_AT_DEFAULT = frozenset({"StoppingCondition.MaxRuntimeInSeconds"})
#: Fields written once for the fleet even where some cities differ: the most common value goes to the fleet, the
#: others to their cities (the fleet-level ``job:`` must name a role and an image).
MAJORITY_FIELDS = (("RoleArn",), ("AlgorithmSpecification", "TrainingImage"))
_MISSING: Any = object()


@dataclass(frozen=True)
class ImportedJob:
    """One job to import: the city it becomes, its request (CreateTrainingJob's members, Tags included) and where
    it came from (``job NAME`` or a file)."""

    city: str
    request: Mapping[str, Any]
    source: str
    #: (field, why) of what was left out before the request was known: a description's read-only members, a
    #: request file's SDK-only keys.
    left_out: tuple[tuple[str, str], ...] = ()


@dataclass(frozen=True)
class Dropped:
    """A field left out of the draft: whose, which, and why."""

    source: str
    field: str
    why: str


@dataclass(frozen=True)
class Draft:
    """The drafted spec (a YAML document) and every field left out."""

    spec: dict[str, Any]
    dropped: tuple[Dropped, ...] = field(default_factory=tuple)

    def yaml(self, header: Sequence[str] = ()) -> str:
        """The spec as YAML, ``header`` and the dropped fields as comments around it."""
        top = "".join(f"# {line}\n" for line in header)
        body = yaml.safe_dump(self.spec, sort_keys=False, allow_unicode=True, width=110)
        tail = "".join(f"#   {line}\n" for line in self.left_out_lines())
        return top + body + ("# Left out:\n" + tail if tail else "")

    def left_out_lines(self) -> list[str]:
        """One line per field left out and why, naming its sources ("every job" when all of them): a field dropped
        from 200 jobs for one reason is one line."""
        jobs = len(self.spec["cities"])  # one city per job
        grouped: dict[tuple[str, str], list[str]] = {}
        for d in self.dropped:
            named = grouped.setdefault((d.field, d.why), [])
            if d.source not in named:
                named.append(d.source)
        lines = []
        for (field_path, why), named in grouped.items():
            who = f"every job ({jobs})" if len(named) == jobs > 1 else ", ".join(named)
            lines.append(f"{field_path} — {why}: {who}")
        return lines


def request_of_description(
    description: Mapping[str, Any], tags: Iterable[Mapping[str, str]], create_members: Iterable[str]
) -> tuple[dict[str, Any], list[tuple[str, str]]]:
    """A DescribeTrainingJob answer as the request that made it (its CreateTrainingJob members, plus the tags
    ListTags returned), and the members left out as read-only."""
    members = set(create_members)
    request = {key: value for key, value in description.items() if key in members}
    dropped = [
        (key, "read-only: DescribeTrainingJob reports it, CreateTrainingJob does not take it")
        for key in description
        if key not in members and key != "ResponseMetadata"
    ]
    tag_list = [{"Key": str(tag["Key"]), "Value": str(tag.get("Value", ""))} for tag in tags]
    if tag_list:
        request["Tags"] = tag_list
    return request, dropped


def draft_spec(jobs: Sequence[ImportedJob], fleet: str, region: str) -> Draft:
    """The fleet spec of ``jobs`` (one city each)."""
    dropped: list[Dropped] = []
    cleaned = []
    spots: list[dict[str, int] | None] = []
    outputs = []
    for job in jobs:
        dropped += (Dropped(job.source, path, why) for path, why in job.left_out)
        request, spot, output = _owned_out(job, dropped)
        defaults: list[str] = []
        request = strip_defaults(request, seen=defaults)
        dropped += (
            Dropped(job.source, path, f"SageMaker's default ({AWS_DEFAULTS[path]!r}): it is filled in again")
            for path in dict.fromkeys(defaults)
        )
        cleaned.append(_with_city(request, job.city))
        spots.append(spot)
        outputs.append(output.replace(job.city, "{city}") if output else None)
    common = _common(cleaned, "")
    common = {} if common is _MISSING else common
    for path in MAJORITY_FIELDS:
        _majority(common, cleaned, path)
    cities: list[dict[str, Any]] = []
    for job, request, spot in zip(jobs, cleaned, spots, strict=True):
        city: dict[str, Any] = {"name": job.city}
        own = _diff(request, common, "")
        if own is not _MISSING:
            city["job"] = own
        if spot is not None:
            city["spot"] = spot
        cities.append(city)
    spec: dict[str, Any] = {"fleet": fleet, "region": region, "output_s3_uri": _output_uri(outputs)}
    spec["job"] = common
    spec["cities"] = cities
    return Draft(spec, tuple(dropped))


def strip_defaults(value: Any, path: str = "", *, seen: list[str] | None = None) -> Any:
    """``value`` without the members equal to SageMaker's default (or empty), and containers left empty; the
    paths of the defaults dropped are appended to ``seen``."""
    if isinstance(value, Mapping):
        out = {}
        for key, item in value.items():
            inner = f"{path}.{key}" if path else str(key)
            item = strip_defaults(item, inner, seen=seen)
            default = AWS_DEFAULTS.get(inner, _MISSING)
            if item in ("", {}, []):
                continue
            if item == default and inner not in KEPT_AT_DEFAULT:
                if seen is not None:
                    seen.append(inner)
                continue
            out[key] = item
        return out
    if isinstance(value, list):
        return [strip_defaults(item, path, seen=seen) for item in value]
    return value


def _owned_out(job: ImportedJob, dropped: list[Dropped]) -> tuple[dict[str, Any], dict[str, int] | None, str]:
    """The request without the provider's fields; the spot settings and output path they held."""
    request = {key: value for key, value in job.request.items()}
    spot = None
    stopping = dict(request.get("StoppingCondition") or {})
    if request.get("EnableManagedSpotTraining") and "MaxWaitTimeInSeconds" in stopping:
        spot = {"max_wait_seconds": int(stopping["MaxWaitTimeInSeconds"])}
    output = str((request.get("OutputDataConfig") or {}).get("S3OutputPath") or "")
    for path, owned in OWNED.items():
        if _pop(request, path.split(".")) is not _MISSING:
            dropped.append(Dropped(job.source, path, f"the provider's: {owned.why}; set {owned.use}"))
    tags = request.get("Tags")
    if isinstance(tags, list):
        ours = [tag for tag in tags if str(tag.get("Key", "")).startswith(TAG_PREFIX)]
        request["Tags"] = [tag for tag in tags if tag not in ours]
        for tag in ours:
            dropped.append(Dropped(job.source, f"Tags[{tag['Key']}]", f"the provider's: {OWNED_TAG.why}"))
    return request, spot, output


def _pop(value: dict[str, Any], parts: list[str]) -> Any:
    """Remove the member at ``parts``; its value, or _MISSING."""
    head = parts[0]
    if head not in value:
        return _MISSING
    if len(parts) == 1:
        return value.pop(head)
    inner = value[head]
    if not isinstance(inner, Mapping):
        return _MISSING
    value[head] = dict(inner)
    return _pop(value[head], parts[1:])


def _with_city(value: Any, city: str) -> Any:
    """Strings with their literal braces doubled and the city's name made ``{city}`` (where it stands as a word)."""
    if isinstance(value, str):
        text = value.replace("{", "{{").replace("}", "}}")
        return re.sub(rf"(?<![A-Za-z0-9]){re.escape(city)}(?![A-Za-z0-9])", "{city}", text)
    if isinstance(value, Mapping):
        return {key: _with_city(item, city) for key, item in value.items()}
    if isinstance(value, list):
        return [_with_city(item, city) for item in value]
    return value


def _common(values: list[Any], path: str) -> Any:
    """What every value shares (equal members, recursively; keyed lists item by item), or _MISSING."""
    first = values[0]
    if all(value == first for value in values):
        return first
    if all(isinstance(value, Mapping) for value in values):
        out = {}
        for key in first:
            if all(key in value for value in values):
                shared = _common([value[key] for value in values], f"{path}.{key}" if path else key)
                if shared is not _MISSING:
                    out[key] = shared
        return out or _MISSING
    member = KEYED_LISTS.get(path)
    if member is not None and all(isinstance(value, list) for value in values):
        out_items = []
        for item in first:
            name = item.get(member) if isinstance(item, Mapping) else None
            found = [_find(value, member, name) for value in values]
            if name is None or any(entry is None for entry in found):
                continue
            shared = _common(found, path)
            if shared is not _MISSING and member in shared:
                out_items.append(shared)
        return out_items or _MISSING
    return _MISSING


def _diff(value: Any, common: Any, path: str) -> Any:
    """What ``value`` adds to ``common`` (so that merging the two gives ``value``), or _MISSING."""
    if common is _MISSING:
        return value
    if value == common:
        return _MISSING
    if isinstance(value, Mapping) and isinstance(common, Mapping):
        out = {}
        for key, item in value.items():
            inner = _diff(item, common.get(key, _MISSING), f"{path}.{key}" if path else key)
            if inner is not _MISSING:
                out[key] = inner
        return out or _MISSING
    member = KEYED_LISTS.get(path)
    if member is not None and isinstance(value, list) and isinstance(common, list):
        items = []
        for item in value:
            base = _find(common, member, item.get(member)) if isinstance(item, Mapping) else None
            inner = _diff(item, base, path) if base is not None else item
            if inner is not _MISSING:
                items.append({member: item[member], **inner} if base is not None else inner)
        return items or _MISSING
    return value


def _find(items: list[Any], member: str, name: Any) -> Any:
    return next((item for item in items if isinstance(item, Mapping) and item.get(member) == name), None)


def _majority(common: dict[str, Any], requests: list[dict[str, Any]], path: tuple[str, ...]) -> None:
    """Put the most common value at ``path`` in ``common`` when the jobs differ there."""
    values = [_get(request, path) for request in requests]
    present = [value for value in values if value is not _MISSING]
    if not present or _get(common, path) is not _MISSING:
        return
    chosen = Counter(repr(value) for value in present).most_common(1)[0][0]
    value = next(value for value in present if repr(value) == chosen)
    target = common
    for part in path[:-1]:
        target = target.setdefault(part, {})
    target[path[-1]] = value


def _get(value: Any, path: tuple[str, ...]) -> Any:
    for part in path:
        if not isinstance(value, Mapping) or part not in value:
            return _MISSING
        value = value[part]
    return value


def _output_uri(outputs: list[str | None]) -> str:
    """The fleet's ``output_s3_uri`` from the jobs' S3OutputPath: the part before the city, without a ``/``."""
    found = [output for output in outputs if output]
    if not found:
        return "s3://CHANGE-ME/fleets/imported"
    first = Counter(found).most_common(1)[0][0]
    return first.split("/{city}", 1)[0].rstrip("/")
