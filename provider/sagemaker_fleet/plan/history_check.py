"""Check a report.json before its durations plan a run: like a spec, every problem at once, each with its path.

Nothing of a file with any problem is used: a file read only as far as it happens to work would plan with some of
its durations and silently drop others, and a report of another fleet would lend its durations to cities that share
a name.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

from sagemaker_fleet.fleetspec.issue import SpecIssue
from sagemaker_fleet.fleetspec.model import MAX_RUNTIME_LIMIT
from sagemaker_fleet.plan.model import START_KINDS

#: TrainingJobStatus values a report can hold.
STATUSES = ("InProgress", "Completed", "Failed", "Stopping", "Stopped")
_WRITTEN_BY = "pass a report.json written by `sagemaker-fleet report` (or a simulate --report-dir)"


def _number(job: Mapping[str, Any], name: str, path: str) -> list[SpecIssue]:
    value = job.get(name)
    if value is None:
        return []
    if isinstance(value, bool) or not isinstance(value, int | float) or not math.isfinite(value):
        return [SpecIssue(f"{path}.{name}", f"expected a number of seconds or null, got {value!r}")]
    if not 0 <= value <= MAX_RUNTIME_LIMIT:
        return [
            SpecIssue(
                f"{path}.{name}",
                f"{value} s is not a duration a training job can have (0 to 28 days, "
                f"{MAX_RUNTIME_LIMIT} s); fix or remove the job",
            )
        ]
    return []


def _choice(
    job: Mapping[str, Any], name: str, path: str, allowed: tuple[str, ...], *, required: bool
) -> list[SpecIssue]:
    if name not in job and required:
        return [SpecIssue(f"{path}.{name}", f"required field is missing; {_WRITTEN_BY}")]
    value = job.get(name)
    if value is None and not required:
        return []
    if value not in allowed:
        return [SpecIssue(f"{path}.{name}", f"expected one of {', '.join(allowed)}, got {value!r}")]
    return []


def _job_issues(job: object, path: str) -> list[SpecIssue]:
    if not isinstance(job, Mapping):
        return [SpecIssue(path, f"expected an object (one job), got {type(job).__name__}")]
    issues: list[SpecIssue] = []
    city = job.get("city")
    if not isinstance(city, str) or not city:
        got = "nothing" if "city" not in job else repr(city)
        issues.append(SpecIssue(f"{path}.city", f"expected the city's name as text, got {got}"))
    name = job.get("job_name")
    if name is not None and not isinstance(name, str):
        issues.append(SpecIssue(f"{path}.job_name", f"expected the job's name as text or null, got {name!r}"))
    issues += _choice(job, "status", path, STATUSES, required=True)
    issues += _choice(job, "start", path, START_KINDS, required=False)
    spot = job.get("spot")
    if spot is not None and not isinstance(spot, bool):
        issues.append(SpecIssue(f"{path}.spot", f"expected true, false or null, got {spot!r}"))
    issues += _number(job, "training_seconds", path)
    issues += _number(job, "startup_seconds", path)
    return issues


def history_issues(report: object, fleet: str | None) -> list[SpecIssue]:
    """Every problem of ``report`` as a duration history for ``fleet`` (any fleet when None)."""
    if not isinstance(report, Mapping):
        return [SpecIssue("", f"expected a report.json object, got {type(report).__name__}; {_WRITTEN_BY}")]
    issues: list[SpecIssue] = []
    if fleet is not None and report.get("fleet") != fleet:
        got = report.get("fleet")
        whose = (
            f"the report of fleet {got!r}" if isinstance(got, str) else "not a fleet's report (no `fleet`)"
        )
        issues.append(
            SpecIssue(
                "fleet",
                f"this is {whose}, not of fleet {fleet!r}: its durations are another "
                f"fleet's; pass a report.json of fleet {fleet!r}",
            )
        )
    jobs = report.get("jobs")
    if "jobs" not in report:
        issues.append(SpecIssue("jobs", f"required field is missing; {_WRITTEN_BY}"))
    elif not isinstance(jobs, list):
        issues.append(SpecIssue("jobs", f"expected a list of jobs, got {type(jobs).__name__}"))
    else:
        for index, job in enumerate(jobs):
            issues += _job_issues(job, f"jobs[{index}]")
    return issues
