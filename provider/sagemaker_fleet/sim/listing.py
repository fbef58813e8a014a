"""ListTrainingJobs: filters, sorting and pagination as SageMaker applies them.

Every filter but StatusEquals selects before the page is cut; **StatusEquals is applied after the MaxResults cut**
(documented in the API reference: "the MaxResults number of training jobs are first retrieved ignoring the
StatusEquals parameter and then they are filtered"), so a page may hold fewer jobs than MaxResults — even none —
while a NextToken says more exist. Callers must follow NextToken, not stop at a short page.

Two documented doubts: the API reference gives SortOrder's default as Ascending but describes the unsorted listing
as "from the most current to the oldest"; we default to Descending (newest first), as the console and CLI show.
NameContains is matched case-insensitively.
"""

from __future__ import annotations

import base64
import binascii
import datetime as dt
import hashlib
import json
from collections.abc import Callable, Iterable, Mapping
from typing import TYPE_CHECKING, Any

from sagemaker_fleet.jobs.paging import PAGE_SIZE
from sagemaker_fleet.jobs.statuses import POOL_AVAILABLE
from sagemaker_fleet.sim.errors import constraint_violations, validation_error, violation
from sagemaker_fleet.sim.render import summary, timestamp

if TYPE_CHECKING:
    from sagemaker_fleet.sim.job import TrainingJob

DEFAULT_MAX_RESULTS = 10
#: ListTrainingJobs' largest MaxResults: the page the provider asks for.
MAX_RESULTS_LIMIT = PAGE_SIZE
DEFAULT_SORT_ORDER = "Descending"
SORT_BY = ("Name", "CreationTime", "Status", "FinalObjectiveMetricValue")
SORT_ORDERS = ("Ascending", "Descending")
JOB_STATUSES = ("InProgress", "Completed", "Failed", "Stopping", "Stopped", "Deleting")
POOL_STATUSES = (POOL_AVAILABLE, "Terminated", "Reused", "InUse")
_QUERY_KEYS = (
    "CreationTimeAfter",
    "CreationTimeBefore",
    "LastModifiedTimeAfter",
    "LastModifiedTimeBefore",
    "NameContains",
    "StatusEquals",
    "SortBy",
    "SortOrder",
    "WarmPoolStatusEquals",
)


def list_training_jobs(jobs: Iterable[TrainingJob], request: Mapping[str, Any], now: float) -> dict[str, Any]:
    query = _check(request)
    selected = list(filter(_selector(request), jobs))
    selected.sort(key=_sort_key(str(request.get("SortBy", "CreationTime"))))
    if request.get("SortOrder", DEFAULT_SORT_ORDER) == "Descending":
        selected.reverse()
    offset = page_offset(request.get("NextToken"), query)
    limit = int(request.get("MaxResults", DEFAULT_MAX_RESULTS))
    page = selected[offset : offset + limit]
    status = request.get("StatusEquals")
    if status is not None:
        page = [job for job in page if job.status == status]
    out: dict[str, Any] = {"TrainingJobSummaries": [summary(job, now) for job in page]}
    if offset + limit < len(selected):
        out["NextToken"] = page_token(offset + limit, query)
    return out


def _check(request: Mapping[str, Any]) -> str:
    problems: list[str] = []
    limit = request.get("MaxResults", DEFAULT_MAX_RESULTS)
    if isinstance(limit, bool) or not isinstance(limit, int):
        problems.append(violation(limit, "maxResults", "Member must be an integer"))
    elif not 1 <= limit <= MAX_RESULTS_LIMIT:
        bound = "greater than or equal to 1" if limit < 1 else f"less than or equal to {MAX_RESULTS_LIMIT}"
        problems.append(violation(limit, "maxResults", f"Member must have value {bound}"))
    for key, allowed in (
        ("SortBy", SORT_BY),
        ("SortOrder", SORT_ORDERS),
        ("StatusEquals", JOB_STATUSES),
        ("WarmPoolStatusEquals", POOL_STATUSES),
    ):
        value = request.get(key)
        if value is not None and value not in allowed:
            path = key[0].lower() + key[1:]
            problems.append(
                violation(value, path, f"Member must satisfy enum value set: [{', '.join(allowed)}]")
            )
    for key in _QUERY_KEYS:
        if key.endswith(("After", "Before")) and request.get(key) is not None:
            try:
                epoch_seconds(request[key])
            except (TypeError, ValueError):
                problems.append(
                    violation(request[key], key[0].lower() + key[1:], "Member must be a timestamp")
                )
    if problems:
        raise constraint_violations(problems)
    canonical = json.dumps({k: request.get(k) for k in _QUERY_KEYS}, sort_keys=True, default=str)
    return hashlib.sha256(canonical.encode()).hexdigest()[:16]


def epoch_seconds(value: object) -> float:
    """A request timestamp: epoch seconds (what botocore sends in JSON), a datetime, or an ISO 8601 string."""
    if isinstance(value, bool):
        raise TypeError("a boolean is not a timestamp")
    if isinstance(value, int | float):
        return float(value)
    if isinstance(value, dt.datetime):
        moment = value if value.tzinfo else value.replace(tzinfo=dt.UTC)
        return moment.timestamp()
    if isinstance(value, str):
        return epoch_seconds(dt.datetime.fromisoformat(value.replace("Z", "+00:00")))
    raise TypeError(f"not a timestamp: {value!r}")


#: Time filters: request member, the job's time it bounds, and which side of the bound the job must be on.
_TIME_BOUNDS = (
    ("CreationTimeAfter", "created_at", 1),
    ("CreationTimeBefore", "created_at", -1),
    ("LastModifiedTimeAfter", "last_modified", 1),
    ("LastModifiedTimeBefore", "last_modified", -1),
)


def _selector(request: Mapping[str, Any]) -> Callable[[TrainingJob], bool]:
    """The request's filters (all but StatusEquals) as one predicate, its bounds parsed once per request."""
    name_part = str(request.get("NameContains") or "").lower()
    bounds = [
        (attribute, epoch_seconds(request[key]), direction)
        for key, attribute, direction in _TIME_BOUNDS
        if request.get(key) is not None
    ]
    pool_status = request.get("WarmPoolStatusEquals")

    def selected(job: TrainingJob) -> bool:
        if name_part and name_part not in job.name.lower():
            return False
        # compared at the millisecond precision the responses carry, so a returned timestamp is a usable bound
        for attribute, limit, direction in bounds:
            if (timestamp(getattr(job, attribute)) - limit) * direction <= 0:
                return False
        return pool_status is None or job.pool_status == pool_status

    return selected


def _sort_key(sort_by: str) -> Any:
    if sort_by == "Name":
        return lambda job: (job.name,)
    if sort_by == "Status":
        return lambda job: (job.status, job.created_at, job.name)
    return lambda job: (job.created_at, job.name)  # CreationTime; no metrics are simulated


def page_token(offset: int, query: str) -> str:
    """A NextToken: the offset of the next page and the query it belongs to (the registry's listing uses it too)."""
    return base64.urlsafe_b64encode(json.dumps({"o": offset, "q": query}).encode()).decode()


def page_offset(token: object, query: str) -> int:
    """The offset a NextToken of :func:`page_token` stands for; ValidationException for a forged or foreign one."""
    if token is None or token == "":
        return 0
    try:
        data = json.loads(base64.urlsafe_b64decode(str(token).encode()))
        offset = int(data["o"])
        same_query = data["q"] == query
    except (ValueError, KeyError, TypeError, binascii.Error) as exc:
        raise validation_error(
            "Invalid pagination token: pass the NextToken of the previous response."
        ) from exc
    if not same_query or offset < 0:
        raise validation_error(
            "Invalid pagination token: the filters differ from the request that returned it."
        )
    return offset
