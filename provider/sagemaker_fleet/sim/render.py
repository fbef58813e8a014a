"""DescribeTrainingJob and ListTrainingJobs shapes of a simulated job (timestamps: simulated epoch seconds)."""

from __future__ import annotations

import copy
from typing import TYPE_CHECKING, Any

from sagemaker_fleet.sim.metrics import MetricModel, final_metrics

if TYPE_CHECKING:
    from sagemaker_fleet.sim.job import TrainingJob

#: Request members DescribeTrainingJob returns as they were sent (AWS also fills in some defaults inside them, such
#: as a channel's CompressionType; the simulator leaves them out: docs/guides/job-template.md#in-the-simulator).
ECHOED = (
    "HyperParameters",
    "AlgorithmSpecification",
    "RoleArn",
    "InputDataConfig",
    "OutputDataConfig",
    "VpcConfig",
    "CheckpointConfig",
    "DebugHookConfig",
    "ExperimentConfig",
    "DebugRuleConfigurations",
    "TensorBoardOutputConfig",
    "ProfilerConfig",
    "Environment",
    "RetryStrategy",
    "RemoteDebugConfig",
    "InfraCheckConfig",
    "ProfilerRuleConfigurations",
    "MlflowConfig",
    "ModelPackageConfig",
    "ServerlessJobConfig",
)


def timestamp(value: float) -> float:
    return round(value, 3)


def model_artifact_uri(job: TrainingJob) -> str:
    return f"{job.request.output_path.rstrip('/')}/{job.name}/output/model.tar.gz"


def describe(
    job: TrainingJob, now: float, *, seed: int = 0, metrics: MetricModel | None = None
) -> dict[str, Any]:
    """DescribeTrainingJob of ``job`` at ``now``; ``seed`` and ``metrics``: its final metrics' model."""
    request = job.request
    out: dict[str, Any] = {
        "TrainingJobName": job.name,
        "TrainingJobArn": job.arn,
        "ModelArtifacts": {"S3ModelArtifacts": _artifacts(job)},
        "TrainingJobStatus": job.status,
        "SecondaryStatus": job.secondary,
    }
    out.update({key: copy.deepcopy(job.raw[key]) for key in ECHOED if key in job.raw})
    resources = copy.deepcopy(job.raw["ResourceConfig"])
    if job.keep_alive or "KeepAlivePeriodInSeconds" in resources:
        resources["KeepAlivePeriodInSeconds"] = job.keep_alive
    out["ResourceConfig"] = resources
    stopping = dict(job.raw.get("StoppingCondition") or {})
    stopping["MaxRuntimeInSeconds"] = request.max_runtime
    out["StoppingCondition"] = stopping
    out["CreationTime"] = timestamp(job.created_at)
    if job.training_start is not None:
        out["TrainingStartTime"] = timestamp(job.training_start)
    if job.training_end is not None:
        out["TrainingEndTime"] = timestamp(job.training_end)
    out["LastModifiedTime"] = timestamp(job.last_modified)
    out["SecondaryStatusTransitions"] = [
        {
            "Status": t.status,
            "StartTime": timestamp(t.start),
            **({"EndTime": timestamp(t.end)} if t.end is not None else {}),
            "StatusMessage": t.message,
        }
        for t in job.transitions
    ]
    out["EnableNetworkIsolation"] = request.key.enable_network_isolation
    out["EnableInterContainerTrafficEncryption"] = request.key.enable_inter_container_traffic_encryption
    out["EnableManagedSpotTraining"] = request.spot
    if job.failure_reason is not None:
        out["FailureReason"] = job.failure_reason
    if job.billing is not None:
        out["TrainingTimeInSeconds"] = job.billing.training_seconds
        out["BillableTimeInSeconds"] = job.billing.billable_seconds
    if job.status == "Completed" and job.training_end is not None:
        final = final_metrics(
            job.name, job.raw, timestamp(job.training_end), seed=seed, tags=job.request.tags, model=metrics
        )
        if final:
            out["FinalMetricDataList"] = final
    pool = warm_pool_status(job, now)
    if pool is not None:
        out["WarmPoolStatus"] = pool
    return out


def summary(job: TrainingJob, now: float) -> dict[str, Any]:
    """A TrainingJobSummary: status and WarmPoolStatus, but no billing (docs/sagemaker-behaviour.md, APIs the product calls)."""
    out: dict[str, Any] = {
        "TrainingJobName": job.name,
        "TrainingJobArn": job.arn,
        "CreationTime": timestamp(job.created_at),
    }
    if job.training_end is not None:
        out["TrainingEndTime"] = timestamp(job.training_end)
    out["LastModifiedTime"] = timestamp(job.last_modified)
    out["TrainingJobStatus"] = job.status
    out["SecondaryStatus"] = job.secondary
    pool = warm_pool_status(job, now)
    if pool is not None:
        out["WarmPoolStatus"] = pool
    return out


def warm_pool_status(job: TrainingJob, now: float) -> dict[str, Any] | None:
    if job.pool_status is None:
        return None
    status: dict[str, Any] = {"Status": job.pool_status}
    if job.pool_status != "InUse":
        status["ResourceRetainedBillableTimeInSeconds"] = round(job.retained_seconds(now))
    if job.reused_by is not None:
        status["ReusedByJob"] = job.reused_by
    return status


def _artifacts(job: TrainingJob) -> str:
    if job.status in ("Completed", "Stopped") and job.training_start is not None:
        return model_artifact_uri(job)
    return ""
