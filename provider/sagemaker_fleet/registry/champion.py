"""A city's champion — the latest Approved package of its group — and the package its training job has already,
read from one ListModelPackages listing, newest first (pure: the listing and the descriptions are handed in).

The registry is read every run, never remembered: a person who approved or rejected a package in between is
followed (a rejected champion is no champion; an approved challenger is the next run's champion).
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from sagemaker_fleet.jobs.paging import as_datetime
from sagemaker_fleet.registry.packages import job_of_description, recorded_value, source_job


@dataclass(frozen=True)
class GroupLook:
    """What a newest-first listing of a group showed: the package the job being registered has already (a retried
    task's, a cleared city's), else the newest Approved package: the champion."""

    own: Mapping[str, Any] | None = None
    champion: Mapping[str, Any] | None = None


def look(summaries: Iterable[Mapping[str, Any]], job_name: str, since: dt.datetime | None) -> GroupLook:
    """Reads ``summaries`` (ModelPackageSummary, newest first, consumed lazily: a paged listing stops early) until it
    knows both: the job's own package, which is no older than ``since`` (the job's end: a package of its model
    was made after it), and the newest Approved package other than that one."""
    champion = None
    for summary in summaries:
        if job_of_description(summary.get("ModelPackageDescription")) == job_name:
            return GroupLook(own=summary)
        if champion is None and summary.get("ModelApprovalStatus") == "Approved":
            champion = summary
        if champion is not None and since is not None:
            created = as_datetime(summary.get("CreationTime"))
            if created is not None and created < since:
                break  # older ones cannot be the job's own
    return GroupLook(champion=champion)


def champion_value(package: Mapping[str, Any], metric: str, job: Mapping[str, Any] | None) -> float | None:
    """The champion's value of ``metric``: as recorded with it, else from its training job's final metrics (``job``:
    that job's DescribeTrainingJob, None when not found), else None."""
    recorded = recorded_value(package, metric)
    if recorded is not None:
        return recorded
    for entry in (job or {}).get("FinalMetricDataList") or ():
        if entry.get("MetricName") == metric and "Value" in entry:
            return float(entry["Value"])
    return None


def needs_job(package: Mapping[str, Any], metric: str) -> str | None:
    """The training job to describe for the champion's metric (None: recorded, or no job is known)."""
    return None if recorded_value(package, metric) is not None else source_job(package)


def version_name(package: Mapping[str, Any]) -> str:
    """``demand-seoul/3``: a package as people name it."""
    group = package.get("ModelPackageGroupName") or "?"
    version = package.get("ModelPackageVersion")
    if version is None:
        return str(package.get("ModelPackageArn") or group)
    return f"{group}/{version}"
