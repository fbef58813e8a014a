"""A compact, JSON-only summary of a DescribeTrainingJob response: what a task returns and a trigger emits."""

from __future__ import annotations

import datetime as dt
from collections.abc import Mapping
from types import MappingProxyType
from typing import TYPE_CHECKING, Any, TypedDict, cast

from sagemaker_fleet.jobs.record import parse_training_job
from sagemaker_fleet.jobs.starts import measure_startup

if TYPE_CHECKING:
    from mypy_boto3_sagemaker.type_defs import DescribeTrainingJobResponseTypeDef

    from sagemaker_fleet.jobs.record import Description


def _iso(value: object) -> str | None:
    if isinstance(value, dt.datetime):
        return value.isoformat()
    return None if value is None else str(value)


_TIME_KEYS = ("Time", "Timestamp")


def to_json_safe(value: Any) -> Any:
    """A DescribeTrainingJob response as JSON values (datetimes become ISO strings), e.g. for a trigger event."""
    if isinstance(value, dt.datetime):
        return value.isoformat()
    if isinstance(value, Mapping):
        return {str(k): to_json_safe(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [to_json_safe(v) for v in value]
    return value


def from_json_safe(value: Any) -> Any:
    """The inverse of :func:`to_json_safe` for SageMaker shapes: ``...Time``/``...Timestamp`` strings become
    datetimes again (every timestamp member of DescribeTrainingJob is named so)."""
    if isinstance(value, Mapping):
        out: dict[str, Any] = {}
        for key, item in value.items():
            if isinstance(item, str) and str(key).endswith(_TIME_KEYS):
                try:
                    out[key] = dt.datetime.fromisoformat(item)
                    continue
                except ValueError:
                    pass
            out[key] = from_json_safe(item)
        return out
    if isinstance(value, list):
        return [from_json_safe(v) for v in value]
    return value


def startup_seconds(description: Description) -> float | None:
    """Seconds from the job's first status to its first ``Training`` (None if it never trained)."""
    seconds, trained = measure_startup(parse_training_job(description))
    return seconds if trained else None


#: What of a DescribeTrainingJob response may travel in a trigger event, which Airflow stores in its database and
#: writes to the triggerer's and the task's logs: each top-level member named here, whole (``None``) or only the
#: members listed. It is what the job was (name, status, failure reason, times, billing, resources, warm pool,
#: artifacts, final metrics, the fields of its warm-pool key and its data channels) — never how the container runs
#: (entrypoint, arguments, environment, hyperparameters, debugger, profiler, experiment, MLflow settings), nor a
#: member AWS adds later: a field travels only once it is named here.
EVENT_FIELDS: Mapping[str, frozenset[str] | None] = MappingProxyType(
    {
        "TrainingJobName": None,
        "TrainingJobArn": None,
        "TrainingJobStatus": None,
        "SecondaryStatus": None,
        "FailureReason": None,
        "SecondaryStatusTransitions": None,
        "CreationTime": None,
        "TrainingStartTime": None,
        "TrainingEndTime": None,
        "LastModifiedTime": None,
        "TrainingTimeInSeconds": None,
        "BillableTimeInSeconds": None,
        "ResourceConfig": None,
        "WarmPoolStatus": None,
        "EnableManagedSpotTraining": None,
        "StoppingCondition": None,
        "ModelArtifacts": None,
        "FinalMetricDataList": None,
        "RoleArn": None,
        "VpcConfig": None,
        "EnableNetworkIsolation": None,
        "EnableInterContainerTrafficEncryption": None,
        "SessionChainingConfig": None,
        "InputDataConfig": None,
        "AlgorithmSpecification": frozenset({"TrainingImage", "TrainingInputMode", "AlgorithmName"}),
    }
)


def event_description(description: Description) -> dict[str, Any]:
    """``description`` as a trigger event carries it: the members of :data:`EVENT_FIELDS` only, JSON-safe."""
    kept: dict[str, Any] = {}
    for key, members in EVENT_FIELDS.items():
        value = description.get(key)
        if value is None:
            continue
        if members is not None:
            if not isinstance(value, Mapping):
                continue
            value = {name: item for name, item in value.items() if name in members}
        kept[key] = value
    return cast("dict[str, Any]", to_json_safe(kept))


class JobSummary(TypedDict):
    """What :func:`summarize` returns (JSON values only; a member the description lacks is None)."""

    job_name: str | None
    status: str | None
    secondary_status: str | None
    failure_reason: str | None
    spot: bool
    instance_type: str | None
    instance_count: int | None
    keep_alive_seconds: int
    billable_seconds: int | None
    training_seconds: int | None
    startup_seconds: float | None
    warm_pool_status: str | None
    warm_pool_reused_by: str | None
    retained_billable_seconds: int | None
    creation_time: str | None
    training_start_time: str | None
    training_end_time: str | None
    model_artifacts: str | None


def summarize(description: Description) -> JobSummary:
    """The fields the fleet layers need, as JSON-safe values (datetimes become ISO strings)."""
    job = cast("DescribeTrainingJobResponseTypeDef", description)  # read as boto3's shape: members checked
    resources = job.get("ResourceConfig") or {}
    pool = job.get("WarmPoolStatus")
    return {
        "job_name": job.get("TrainingJobName"),
        "status": job.get("TrainingJobStatus"),
        "secondary_status": job.get("SecondaryStatus"),
        "failure_reason": job.get("FailureReason"),
        "spot": bool(job.get("EnableManagedSpotTraining", False)),
        "instance_type": resources.get("InstanceType"),
        "instance_count": resources.get("InstanceCount"),
        "keep_alive_seconds": resources.get("KeepAlivePeriodInSeconds", 0),
        "billable_seconds": job.get("BillableTimeInSeconds"),
        "training_seconds": job.get("TrainingTimeInSeconds"),
        "startup_seconds": startup_seconds(description),
        "warm_pool_status": pool.get("Status") if pool else None,
        "warm_pool_reused_by": pool.get("ReusedByJob") if pool else None,
        "retained_billable_seconds": pool.get("ResourceRetainedBillableTimeInSeconds") if pool else None,
        "creation_time": _iso(job.get("CreationTime")),
        "training_start_time": _iso(job.get("TrainingStartTime")),
        "training_end_time": _iso(job.get("TrainingEndTime")),
        "model_artifacts": (job.get("ModelArtifacts") or {}).get("S3ModelArtifacts"),
    }
