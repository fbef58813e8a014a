"""A fleet spec drafted from training jobs you already run (``sagemaker-fleet import``), pure.

Each job's CreateTrainingJob request (from a DescribeTrainingJob and its tags, or from a request file) loses what the
provider owns and what SageMaker fills in by default; the city's name in its strings becomes ``{city}``; what every
job shares goes in the fleet-level ``job:``, and each city's ``job:`` holds what differs. Every field left out is
listed with why, so nothing disappears silently. ``output_s3_uri`` is where the jobs wrote, chosen so that the
fleet's own ``models/{city}/{run_key}/`` lands beside it; ``quotas`` are the account's as Service Quotas lists them
(read by the caller), else a ``TODO`` that ``validate`` refuses until a person writes the numbers.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import yaml

from sagemaker_fleet.fleetspec.formats import TODO
from sagemaker_fleet.fleetspec.job_fields import AWS_DEFAULTS, OWNED, OWNED_TAG
from sagemaker_fleet.fleetspec.job_merge import KEYED_LISTS
from sagemaker_fleet.fleetspec.model import QUOTA_MAX, InstanceQuota
from sagemaker_fleet.fleetspec.names import TAG_PREFIX, models_s3_prefix, split_s3_uri

#: Fields whose SageMaker default the provider does not share: kept even at SageMaker's value (the provider's
#: MaxRuntimeInSeconds default is 7200 s, SageMaker's 86400 s).
KEPT_AT_DEFAULT = frozenset({"StoppingCondition.MaxRuntimeInSeconds"})
#: Fields written once for the fleet even where some cities differ: the most common value goes to the fleet, the
#: others to their cities (the fleet-level ``job:`` must name a role and an image).
MAJORITY_FIELDS = (("RoleArn",), ("AlgorithmSpecification", "TrainingImage"))
#: ``output_s3_uri`` when no job names an output path (a request file without OutputDataConfig): refused by
#: ``validate`` until it is changed.
NO_OUTPUT_URI = "s3://CHANGE-ME/fleets/imported"
_MISSING: Any = object()


@dataclass(frozen=True)
class QuotaReading:
    """What Service Quotas said for the draft: the account's quotas of the types it lists (``found``), or why it
    was not read (``why_not``, e.g. AccessDenied); an instance type without a value becomes a ``TODO``."""

    found: Mapping[str, InstanceQuota] = field(default_factory=dict)
    why_not: str | None = None


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
    """The drafted spec (a YAML document), every field left out, what a person must still write (``todo``: each
    also a ``TODO`` value in the spec) and what they should know about the values drafted (``notes``)."""

    spec: dict[str, Any]
    dropped: tuple[Dropped, ...] = field(default_factory=tuple)
    todo: tuple[str, ...] = ()
    notes: tuple[str, ...] = ()

    def yaml(self, header: Sequence[str] = ()) -> str:
        """The spec as YAML, ``header``, the TODOs and the dropped fields as comments around it."""
        todo = [f"{TODO}: {line}" for line in self.todo]
        top = "".join(f"# {line}\n" for line in [*header, *todo])
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


def draft_spec(
    jobs: Sequence[ImportedJob], fleet: str, region: str, quotas: QuotaReading | None = None
) -> Draft:
    """The fleet spec of ``jobs`` (one city each), its ``quotas`` from ``quotas`` (None: not read)."""
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
        outputs.append(_output_prefix(output, job.city, str(job.request.get("TrainingJobName") or "")))
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
    output_uri, notes = _output_uri(outputs)
    types = sorted({t for r in cleaned if isinstance(t := _get(r, ("ResourceConfig", "InstanceType")), str)})
    block, todo, quota_notes = _quotas(types, any(spots), quotas or QuotaReading(why_not="not asked"))
    spec: dict[str, Any] = {"fleet": fleet, "region": region, "output_s3_uri": output_uri}
    if block:
        spec["quotas"] = block
    spec["job"] = common
    spec["cities"] = cities
    return Draft(spec, tuple(dropped), tuple(todo), (*notes, *quota_notes))


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


def _with_city(request: Mapping[str, Any], city: str) -> dict[str, Any]:
    """The request with its literal braces doubled and the city's name made ``{city}`` wherever it stands as a word
    of its own (``s3://b/lima/``, ``--city lima``, ``lima_v2``; never inside ``climate``). A channel's or a tag's
    own name (the member its list is merged by: ``KEYED_LISTS``) stays as written: layers merge by it."""
    return {key: _templated(item, city, KEYED_LISTS.get(key)) for key, item in request.items()}


def _templated(value: Any, city: str, keep: str | None = None) -> Any:
    """``value`` as :func:`_with_city` writes it (``city`` "": braces only); ``keep``: the member of each item of
    a list left without ``{city}``."""
    if isinstance(value, str):
        text = value.replace("{", "{{").replace("}", "}}")
        return _city_word(city).sub("{city}", text) if city else text
    if isinstance(value, list):
        return [_templated(item, city, keep) for item in value]
    if isinstance(value, Mapping):
        return {key: _templated(item, "" if key == keep else city) for key, item in value.items()}
    return value


def _city_word(city: str) -> re.Pattern[str]:
    """The city's name where no letter or digit touches it: a path segment, a word of a name or an argument."""
    return re.compile(rf"(?<![A-Za-z0-9]){re.escape(city)}(?![A-Za-z0-9])")


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


def _output_prefix(output: str, city: str, job_name: str) -> list[str]:
    """A job's S3OutputPath as [bucket, folder, …] up to the first folder naming its city or holding its job's
    name ([] for no S3 path): what the jobs of a fleet share once their own parts are set aside."""
    if not output.startswith("s3://"):
        return []
    bucket, key = split_s3_uri(output)
    folders = [folder for folder in key.split("/") if folder]
    own = _city_word(city)
    for index, folder in enumerate(folders):
        if own.search(folder) or (job_name and job_name in folder):
            return [bucket, *folders[:index]]
    return [bucket, *folders]


def _output_uri(prefixes: list[list[str]]) -> tuple[str, list[str]]:
    """The fleet's ``output_s3_uri`` and notes: the folders the jobs' output paths share (those of the bucket most
    jobs wrote to), without a last ``models`` folder — the fleet writes ``{output_s3_uri}/models/{city}/{run_key}/``,
    so jobs that wrote to ``s3://b/models/{city}/`` keep writing under ``s3://b/models/``, never ``models/models``."""
    found = [prefix for prefix in prefixes if prefix]
    if not found:
        return NO_OUTPUT_URI, [
            f"output_s3_uri: no job names an S3OutputPath; replace {NO_OUTPUT_URI} with your S3 prefix"
        ]
    buckets = Counter(prefix[0] for prefix in found)
    bucket = buckets.most_common(1)[0][0]
    notes = []
    if len(buckets) > 1:
        notes.append(
            f"output_s3_uri: the jobs wrote to {len(buckets)} buckets ({', '.join(sorted(buckets))}); the draft "
            f"uses {bucket}, where most did"
        )
    shared = [prefix for prefix in found if prefix[0] == bucket]
    length = 0
    while length < min(map(len, shared)) and all(p[length] == shared[0][length] for p in shared):
        length += 1
    uri = "s3://" + "/".join(shared[0][:length])
    parent = "s3://" + "/".join(shared[0][: length - 1])
    if length > 1 and models_s3_prefix(parent) == f"{uri}/":
        uri = parent
    return uri, notes


def _quotas(
    types: Sequence[str], spot: bool, reading: QuotaReading
) -> tuple[dict[str, dict[str, Any]], list[str], list[str]]:
    """The ``quotas`` block of ``types`` from the account's quotas, a ``TODO`` entry for each type without one;
    what is still to do, and notes (a warm-pool quota of 0 keeps no pool)."""
    block: dict[str, dict[str, Any]] = {}
    todo: list[str] = []
    notes: list[str] = []
    for itype in types:
        quota = reading.found.get(itype)
        if quota is None or quota.instances == 0:
            block[itype] = {"instances": TODO, "warm_pools": TODO} | (
                {"spot_instances": TODO} if spot else {}
            )
            why = (
                f"Service Quotas was not read ({reading.why_not})"
                if reading.why_not
                else "the account's training-instance quota is 0"
                if quota is not None
                else "Service Quotas lists no training quota for it in this region"
            )
            todo.append(
                f"quotas[{itype}]: {why}; write the account's quotas of {itype} (`aws service-quotas "
                "list-service-quotas --service-code sagemaker`); `validate` refuses the draft until you do"
            )
            continue
        entry: dict[str, Any] = {
            "instances": min(quota.instances, QUOTA_MAX),
            "warm_pools": min(quota.warm_pools, QUOTA_MAX),
        }
        if spot and quota.spot_instances is not None:
            entry["spot_instances"] = min(quota.spot_instances, QUOTA_MAX)
        block[itype] = entry
        if max(quota.instances, quota.warm_pools, quota.spot_instances or 0) > QUOTA_MAX:
            notes.append(f"quotas[{itype}]: the account's quotas over {QUOTA_MAX} are written as {QUOTA_MAX}")
        if quota.warm_pools == 0:
            notes.append(
                f"quotas[{itype}]: the account's warm-pool quota is 0 (AWS's default): no pool is kept and every "
                f"city starts cold; ask AWS for a higher warm-pool quota of {itype} in Service Quotas"
            )
    return block, todo, notes
