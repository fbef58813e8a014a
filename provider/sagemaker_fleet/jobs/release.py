"""Which of a run's idle warm pools to end when the run is over (pure: the caller supplies descriptions).

A pool left ``Available`` after the run's last city is billed at the on-demand rate until its keep-alive runs out:
a keep-alive planned for a successor that failed or was skipped, a manual run of a subset. Ending it
(``UpdateTrainingJob`` keep-alive 0) costs nothing, unless the next run of the fleet starts before the pool would
expire anyway and the user asked to carry pools across runs: then the next run's first jobs start warm.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING, cast

from sagemaker_fleet.jobs.statuses import POOL_AVAILABLE

if TYPE_CHECKING:
    from mypy_boto3_sagemaker.type_defs import DescribeTrainingJobResponseTypeDef

    from sagemaker_fleet.jobs.record import Description


@dataclass(frozen=True)
class IdlePool:
    """An ``Available`` pool: the job it belongs to, when it expires, and its hourly cost factor."""

    job_name: str
    instance_type: str
    instance_count: int
    expires_at: dt.datetime

    def idle_seconds_left(self, now: dt.datetime) -> float:
        return max(0.0, (self.expires_at - now).total_seconds())


def idle_pool(description: Description) -> IdlePool | None:
    """The pool of a DescribeTrainingJob response if it is ``Available``; ``None`` otherwise (or when the response
    lacks the end time or keep-alive needed to know its expiry)."""
    job = cast("DescribeTrainingJobResponseTypeDef", description)  # read as boto3's shape: members checked
    pool = job.get("WarmPoolStatus")
    if not pool or pool.get("Status") != POOL_AVAILABLE:
        return None
    config = job.get("ResourceConfig") or {}
    ended = job.get("TrainingEndTime") or job.get("LastModifiedTime")
    keep_alive = config.get("KeepAlivePeriodInSeconds")
    if not isinstance(ended, dt.datetime) or not keep_alive:
        return None
    return IdlePool(
        job_name=str(job["TrainingJobName"]),
        instance_type=str(config.get("InstanceType", "")),
        instance_count=int(config.get("InstanceCount", 1)),
        expires_at=ended + dt.timedelta(seconds=int(keep_alive)),
    )


@dataclass(frozen=True)
class PoolRelease:
    """The decision for a run's idle pools: those to end now and those kept for the next run."""

    end: tuple[IdlePool, ...]
    keep: tuple[IdlePool, ...]

    def seconds_saved(self, now: dt.datetime) -> float:
        """Instance-seconds of idle time the ended pools would still have been billed for."""
        return sum(p.idle_seconds_left(now) * p.instance_count for p in self.end)


def release_decision(
    pools: Iterable[IdlePool], now: dt.datetime, next_run_at: dt.datetime | None = None
) -> PoolRelease:
    """End every pool, except — when ``next_run_at`` is given (the user carries pools across runs) — those that
    would still be alive when the next run starts."""
    end: list[IdlePool] = []
    keep: list[IdlePool] = []
    for pool in sorted(pools, key=lambda p: p.job_name):
        carried = next_run_at is not None and now <= next_run_at < pool.expires_at
        (keep if carried else end).append(pool)
    return PoolRelease(tuple(end), tuple(keep))
