"""Rules between fields of one city that SageMaker would enforce only once a job is running (or never tell).

Each function returns the problems as ``(field path, message)`` pairs, the message saying why and the fix; the
loader reports them with the YAML line. They are pure, so each rule is tested on its own.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from sagemaker_fleet.fleetspec.model import MAX_RUNTIME_LIMIT, S3_URI_MAX
from sagemaker_fleet.fleetspec.names import checkpoint_s3_uri

if TYPE_CHECKING:
    from sagemaker_fleet.fleetspec.model import InstanceQuota

Problem = tuple[str, str]
#: The longest run key (``YYYYMMDDtHHMMSS`` or a hash), for the longest URI a run can derive.
_LONGEST_RUN_KEY = "x" * 16
#: Where a value was written, for messages that name the other field of a pair.
Located = tuple[int, str]


def _city_level(*paths: str) -> str:
    """The path to report a pair at: the city's own field if one of them is (a default is shared by others)."""
    return next((path for path in paths if path.startswith("cities[")), paths[0])


def expected_vs_limits(expected: Located, runtime: Located) -> list[Problem]:
    """``expected_seconds`` must fit MaxRuntime: SageMaker stops a job there, so every job of the city would end
    ``Stopped``/``MaxRuntimeExceeded``. (For spot, MaxWait ≥ MaxRuntime is a rule of its own, so the expected
    duration fits MaxWait too.)"""
    (seconds, at), (max_runtime, runtime_at) = expected, runtime
    if seconds > MAX_RUNTIME_LIMIT:
        return [
            (
                at,
                f"expected_seconds {seconds} is over 28 days ({MAX_RUNTIME_LIMIT} s), the longest SageMaker "
                "lets a training job run; write the expected training time in seconds (e.g. 5400 for 1.5 h)",
            )
        ]
    if seconds > max_runtime:
        return [
            (
                _city_level(at, runtime_at),
                f"expected_seconds {seconds} (at {at}) is over max_runtime_seconds {max_runtime} (at {runtime_at}): "
                "SageMaker stops a job at MaxRuntime, so every job of this city would be stopped before it ends; "
                f"raise max_runtime_seconds to at least {seconds} or correct expected_seconds",
            )
        ]
    return []


def count_vs_quota(
    instance_type: str, count: Located, quota: InstanceQuota, *, spot: bool, spot_at: str
) -> list[Problem]:
    """A job needs ``instance_count`` instances at once; a quota below that refuses it (ResourceLimitExceeded)
    on every submission, so the city could never train."""
    (instances, at) = count
    if spot and quota.spot_instances is not None:
        if quota.spot_instances == 0:
            return [
                (
                    spot_at,
                    f"quotas[{instance_type}].spot_instances is 0, so no spot job of {instance_type} can "
                    "start; raise the quota or turn spot off for this city (`spot: null`)",
                )
            ]
        limit, field = quota.spot_instances, "spot_instances"
    else:
        limit, field = quota.instances, "instances"
    if instances > limit:
        return [
            (
                at,
                f"instance_count {instances} is over quotas[{instance_type}].{field} {limit}: SageMaker "
                "refuses a job that needs more instances than the quota (ResourceLimitExceeded); lower "
                "instance_count or raise the quota",
            )
        ]
    return []


def output_uri_length(output_s3_uri: str, longest_city: str) -> list[Problem]:
    """Checkpoint and model URIs are ``{output_s3_uri}/checkpoints/{city}/{run_key}/``; SageMaker refuses an S3
    URI over 1024 characters."""
    longest = len(checkpoint_s3_uri(output_s3_uri, longest_city, _LONGEST_RUN_KEY))
    if longest <= S3_URI_MAX:
        return []
    return [
        (
            "output_s3_uri",
            f"with city {longest_city!r} the checkpoint URI under it has {longest} characters, "
            f"over SageMaker's {S3_URI_MAX}; shorten output_s3_uri (or the city's name)",
        )
    ]


#: Line breaks as Java's regular expressions see them: SageMaker's hyperparameter pattern ``.*`` matches none.
_LINE_BREAKS = frozenset("\n\r\u0085\u2028\u2029")


def has_line_break(text: str) -> bool:
    return any(ch in _LINE_BREAKS for ch in text)


def duplicate_cities(names: list[str | None]) -> list[Problem]:
    """Each city named like one before it (``names``: each city's name by index, None where it has none)."""
    first: dict[str, int] = {}
    problems = []
    for index, name in enumerate(names):
        if name is None:
            continue
        if name in first:
            problems.append(
                (
                    f"cities[{index}].name",
                    f"duplicate city {name!r} (first at cities[{first[name]}]); city names must be unique in a fleet",
                )
            )
        else:
            first[name] = index
    return problems
