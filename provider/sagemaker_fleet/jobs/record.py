"""DescribeTrainingJob responses as typed values: the one place that reads the dict shape boto3 returns.

Missing fields are normal: an in-progress job has no BillableTimeInSeconds, a job without keep-alive has no
WarmPoolStatus, moto has neither, and real DescribeTrainingJob carries no Tags (the simulator may add them).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any, cast

from sagemaker_fleet.jobs.errors import UnsupportedTrainingJobError
from sagemaker_fleet.jobs.keys import WarmPoolKey, warm_pool_key
from sagemaker_fleet.jobs.statuses import TERMINAL_STATUSES

if TYPE_CHECKING:
    from mypy_boto3_sagemaker.type_defs import (
        DescribeTrainingJobResponseTypeDef,
        SecondaryStatusTransitionTypeDef,
        WarmPoolStatusTypeDef,
    )

    #: A DescribeTrainingJob response: boto3's typed one, or the same shape as a plain mapping that mypy cannot see
    #: is one (the simulator's, a trigger's queued ``dict[str, Any]``, a partial one made right after
    #: CreateTrainingJob, :func:`~sagemaker_fleet.jobs.describe.from_json_safe`'s). Readers cast it to boto3's
    #: shape, so that mypy checks every member they read; the stubs declare every member present, and they are
    #: not (an in-progress job has no BillableTimeInSeconds), so each is read with ``get``.
    Description = DescribeTrainingJobResponseTypeDef | Mapping[str, Any]


@dataclass(frozen=True)
class StatusTransition:
    """One entry of SecondaryStatusTransitions; ``end`` is None for the state the job is in now."""

    status: str
    start: datetime
    end: datetime | None = None
    message: str = ""


@dataclass(frozen=True)
class WarmPoolState:
    """The job's own retained pool (after it ended): its status, billed idle time and who took it over."""

    status: str
    retained_billable_seconds: int = 0
    reused_by_job: str | None = None


@dataclass(frozen=True)
class TrainingJobRecord:
    name: str
    status: str
    secondary_status: str
    instance_type: str
    instance_count: int
    spot: bool = False
    failure_reason: str | None = None
    training_seconds: int = 0
    billable_seconds: int = 0
    warm_pool: WarmPoolState | None = None
    keep_alive_seconds: int = 0
    input_mode: str = ""
    transitions: tuple[StatusTransition, ...] = ()
    creation_time: datetime | None = None
    training_start_time: datetime | None = None
    training_end_time: datetime | None = None
    last_modified_time: datetime | None = None
    pool_key: WarmPoolKey | None = None
    tags: tuple[tuple[str, str], ...] = ()
    #: AlgorithmSpecification.TrainingImage (None for an algorithm resource, or when Describe leaves it out).
    training_image: str | None = None
    #: FinalMetricDataList: each metric's final value, for a job with MetricDefinitions (name, value).
    final_metrics: tuple[tuple[str, float], ...] = ()

    @property
    def retained_billable_seconds(self) -> int:
        return self.warm_pool.retained_billable_seconds if self.warm_pool else 0

    @property
    def reused_by_job(self) -> str | None:
        return self.warm_pool.reused_by_job if self.warm_pool else None

    @property
    def terminal(self) -> bool:
        return self.status in TERMINAL_STATUSES

    def tag(self, key: str) -> str | None:
        return dict(self.tags).get(key)

    @property
    def started_at(self) -> datetime | None:
        """When the job was created (its first status transition when CreationTime is missing)."""
        if self.creation_time is not None:
            return self.creation_time
        return self.transitions[0].start if self.transitions else None

    def ended_at(self, now: datetime | None = None) -> datetime | None:
        """When the job's instances were released: TrainingEndTime, else the last transition's end; ``now``
        (or the last known time) for a job still running."""
        if self.training_end_time is not None:
            return self.training_end_time
        ends = [t.end for t in self.transitions if t.end is not None]
        if self.terminal:
            return max(ends, default=None) or self.last_modified_time
        latest = max([*ends, *(t.start for t in self.transitions)], default=self.last_modified_time)
        if now is None or (latest is not None and latest > now):
            return latest  # a simulator's clock may run ahead of the wall clock
        return now


def parse_training_job(describe: Description) -> TrainingJobRecord:
    """Read one DescribeTrainingJob response (as boto3 returns it: datetimes for times)."""
    job = cast("DescribeTrainingJobResponseTypeDef", describe)  # read as boto3's shape: members checked
    resources = job.get("ResourceConfig") or {}
    if "InstanceType" not in resources:
        name = job.get("TrainingJobName", "?")
        raise UnsupportedTrainingJobError(
            f"training job {name}: ResourceConfig has no InstanceType (a heterogeneous cluster?); "
            "the fleet never creates those and the cost report does not price them"
        )
    pool = job.get("WarmPoolStatus")
    return TrainingJobRecord(
        name=str(job["TrainingJobName"]),
        status=str(job.get("TrainingJobStatus", "")),
        secondary_status=str(job.get("SecondaryStatus", "")),
        instance_type=str(resources["InstanceType"]),
        instance_count=int(resources.get("InstanceCount", 1)),
        spot=bool(job.get("EnableManagedSpotTraining", False)),
        failure_reason=job.get("FailureReason") or None,
        training_seconds=int(job.get("TrainingTimeInSeconds") or 0),
        billable_seconds=int(job.get("BillableTimeInSeconds") or 0),
        warm_pool=_warm_pool(pool) if pool else None,
        keep_alive_seconds=int(resources.get("KeepAlivePeriodInSeconds") or 0),
        input_mode=_input_mode(job),
        transitions=tuple(_transition(raw) for raw in job.get("SecondaryStatusTransitions") or ()),
        creation_time=_time(job.get("CreationTime")),
        training_start_time=_time(job.get("TrainingStartTime")),
        training_end_time=_time(job.get("TrainingEndTime")),
        last_modified_time=_time(job.get("LastModifiedTime")),
        pool_key=warm_pool_key(job) if "RoleArn" in job else None,
        tags=_tags(describe),
        training_image=(job.get("AlgorithmSpecification") or {}).get("TrainingImage") or None,
        final_metrics=tuple(
            (str(metric["MetricName"]), float(metric["Value"]))
            for metric in job.get("FinalMetricDataList") or ()
            if "MetricName" in metric and "Value" in metric
        ),
    )


def _tags(describe: Mapping[str, Any]) -> tuple[tuple[str, str], ...]:
    """``Tags`` is no member of DescribeTrainingJob (nor of its stub: ListTags has the tags); the simulator adds it."""
    return tuple((str(t["Key"]), str(t.get("Value", ""))) for t in describe.get("Tags") or ())


def _warm_pool(raw: WarmPoolStatusTypeDef) -> WarmPoolState:
    return WarmPoolState(
        status=str(raw.get("Status", "")),
        retained_billable_seconds=int(raw.get("ResourceRetainedBillableTimeInSeconds") or 0),
        reused_by_job=raw.get("ReusedByJob") or None,
    )


def _transition(raw: SecondaryStatusTransitionTypeDef) -> StatusTransition:
    start = _time(raw.get("StartTime"))
    if start is None:
        raise ValueError(f"a SecondaryStatusTransitions entry has no StartTime: {dict(raw)!r}")
    return StatusTransition(
        status=str(raw.get("Status", "")),
        start=start,
        end=_time(raw.get("EndTime")),
        message=str(raw.get("StatusMessage", "")),
    )


def _input_mode(describe: DescribeTrainingJobResponseTypeDef) -> str:
    """The start-up model's input mode: ``FSx`` for FSx for Lustre channels, else TrainingInputMode."""
    for channel in describe.get("InputDataConfig") or ():
        source = (channel.get("DataSource") or {}).get("FileSystemDataSource")
        if source and source.get("FileSystemType") == "FSxLustre":
            return "FSx"
    return str((describe.get("AlgorithmSpecification") or {}).get("TrainingInputMode", ""))


def _time(value: object) -> datetime | None:
    """Datetimes as boto3 returns them; naive ones are taken as UTC, epoch numbers are accepted too."""
    if value is None:
        return None
    if isinstance(value, datetime):
        return value if value.tzinfo is not None else value.replace(tzinfo=UTC)
    if isinstance(value, int | float):
        return datetime.fromtimestamp(float(value), UTC)
    if isinstance(value, str):
        return _time(datetime.fromisoformat(value))
    raise TypeError(f"not a time: {value!r}")
