"""A compact, JSON-only summary of a DescribeTrainingJob response: what a task returns and a trigger emits."""

from __future__ import annotations

import datetime as dt
from collections.abc import Mapping
from typing import Any

from sagemaker_fleet.jobs.record import parse_training_job
from sagemaker_fleet.jobs.starts import measure_startup


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


def startup_seconds(description: Mapping[str, Any]) -> float | None:
    """Seconds from the job's first status to its first ``Training`` (None if it never trained)."""
    seconds, trained = measure_startup(parse_training_job(description))
    return seconds if trained else None


#: Fields of a DescribeTrainingJob response that may hold secrets (API tokens in the container's environment,
#: passwords passed as hyperparameters): they never travel in a trigger event, which Airflow logs and stores.
SECRET_FIELDS = frozenset({"Environment", "HyperParameters"})


def without_secrets(description: Mapping[str, Any]) -> dict[str, Any]:
    """``description`` less :data:`SECRET_FIELDS`."""
    return {key: value for key, value in description.items() if key not in SECRET_FIELDS}


def summarize(description: Mapping[str, Any]) -> dict[str, Any]:
    """The fields the fleet layers need, as JSON-safe values (datetimes become ISO strings)."""
    resources = description.get("ResourceConfig") or {}
    pool = description.get("WarmPoolStatus") or {}
    return {
        "job_name": description.get("TrainingJobName"),
        "status": description.get("TrainingJobStatus"),
        "secondary_status": description.get("SecondaryStatus"),
        "failure_reason": description.get("FailureReason"),
        "spot": bool(description.get("EnableManagedSpotTraining", False)),
        "instance_type": resources.get("InstanceType"),
        "instance_count": resources.get("InstanceCount"),
        "keep_alive_seconds": resources.get("KeepAlivePeriodInSeconds", 0),
        "billable_seconds": description.get("BillableTimeInSeconds"),
        "training_seconds": description.get("TrainingTimeInSeconds"),
        "startup_seconds": startup_seconds(description),
        "warm_pool_status": pool.get("Status"),
        "warm_pool_reused_by": pool.get("ReusedByJob"),
        "retained_billable_seconds": pool.get("ResourceRetainedBillableTimeInSeconds"),
        "creation_time": _iso(description.get("CreationTime")),
        "training_start_time": _iso(description.get("TrainingStartTime")),
        "training_end_time": _iso(description.get("TrainingEndTime")),
        "model_artifacts": (description.get("ModelArtifacts") or {}).get("S3ModelArtifacts"),
    }
