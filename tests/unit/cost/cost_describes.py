"""DescribeTrainingJob responses shaped as boto3 returns them (datetimes, nested dicts), for the cost tests.

Imported as ``unit.cost.cost_describes`` (``tests`` is on the path; ``unit`` and ``unit.cost`` are namespace
packages) by both the unit and the integration tests of the cost report.
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import TYPE_CHECKING, Any

from sagemaker_fleet.cost import build_cost_report
from sagemaker_fleet.fleetspec import parse_fleet_spec
from sagemaker_fleet.fleetspec.price_table import load_price_table
from sagemaker_fleet.jobs.prices import PriceBook

if TYPE_CHECKING:
    from sagemaker_fleet.cost import CostReport
    from sagemaker_fleet.fleetspec.model import FleetSpec

T0 = datetime(2026, 11, 29, 8, 0, 0, tzinfo=UTC)
ROLE = "arn:aws:iam::111122223333:role/FleetTraining"
RUN_KEY = "20261129"

SPEC_YAML = """
fleet: demo
region: us-east-1
role_arn: arn:aws:iam::111122223333:role/FleetTraining
image_uri: 111122223333.dkr.ecr.us-east-1.amazonaws.com/demand:1.4
output_s3_uri: s3://acme-reports/fleets/demo
input_mode: FastFile
defaults:
  instance_type: ml.m5.xlarge
  max_runtime_seconds: 7200
cities:
  - {name: seoul, train_s3_uri: "s3://acme-ml/data/seoul/"}
  - {name: tokyo, train_s3_uri: "s3://acme-ml/data/tokyo/"}
  - name: lagos
    train_s3_uri: s3://acme-ml/data/lagos/
    image_uri: 111122223333.dkr.ecr.us-east-1.amazonaws.com/demand-lagos:2.0
  - {name: lima, train_s3_uri: "s3://acme-ml/data/lima/"}
  - name: perth
    train_s3_uri: s3://acme-ml/data/perth/
    spot: {max_wait_seconds: 10800}
  - name: vision
    train_s3_uri: s3://acme-ml/data/vision/
    instance_type: ml.g5.xlarge
    instance_count: 4
  - {name: quito, train_s3_uri: "s3://acme-ml/data/quito/"}
"""


def demo_spec(extra: str = "") -> FleetSpec:
    return parse_fleet_spec(SPEC_YAML + extra)


def _at(seconds: float) -> datetime:
    return T0 + timedelta(seconds=seconds)


def transitions(created: float, phases: list[tuple[str, float]], final: str | None) -> list[dict[str, Any]]:
    """Consecutive SecondaryStatusTransitions from ``created``: (status, seconds) each, then a final state."""
    out: list[dict[str, Any]] = []
    t = created
    for status, seconds in phases:
        out.append(
            {"Status": status, "StartTime": _at(t), "EndTime": _at(t + seconds), "StatusMessage": status}
        )
        t += seconds
    if final is not None:
        out.append({"Status": final, "StartTime": _at(t), "EndTime": _at(t), "StatusMessage": final})
    return out


def describe_job(
    name: str,
    *,
    instance_type: str = "ml.m5.xlarge",
    count: int = 1,
    spot: bool = False,
    status: str = "Completed",
    secondary: str | None = None,
    created: float = 0.0,
    startup: float = 143.0,
    training: int = 1000,
    billable: int | None = None,
    retained: int | None = None,
    pool_status: str | None = None,
    reused_by: str | None = None,
    keep_alive: int = 0,
    failure_reason: str | None = None,
    phases: list[tuple[str, float]] | None = None,
    input_mode: str = "FastFile",
    role: str = ROLE,
    tags: dict[str, str] | None = None,
    image: str = "img",
) -> dict[str, Any]:
    """A finished (or failed/stopped) job: Starting+Downloading for ``startup`` s, Training, Uploading 10 s."""
    secondary = secondary or status
    if phases is None:
        phases = [("Starting", startup * 0.6), ("Downloading", startup * 0.4)]
        if training:
            phases += [("Training", float(training)), ("Uploading", 10.0)]
    steps = transitions(created, phases, secondary if status != "InProgress" else None)
    end = steps[-1]["EndTime"]
    resources: dict[str, Any] = {"InstanceType": instance_type, "InstanceCount": count, "VolumeSizeInGB": 30}
    if keep_alive:
        resources["KeepAlivePeriodInSeconds"] = keep_alive
    describe: dict[str, Any] = {
        "TrainingJobName": name,
        "TrainingJobArn": f"arn:aws:sagemaker:us-east-1:111122223333:training-job/{name}",
        "TrainingJobStatus": status,
        "SecondaryStatus": secondary,
        "RoleArn": role,
        "AlgorithmSpecification": {"TrainingImage": image, "TrainingInputMode": input_mode},
        "ResourceConfig": resources,
        "StoppingCondition": {"MaxRuntimeInSeconds": 7200},
        "EnableManagedSpotTraining": spot,
        "EnableNetworkIsolation": False,
        "EnableInterContainerTrafficEncryption": False,
        "CreationTime": _at(created),
        "LastModifiedTime": end,
        "SecondaryStatusTransitions": steps,
    }
    trained = [s for s in steps if s["Status"] == "Training"]
    if trained:
        describe["TrainingStartTime"] = trained[0]["StartTime"]
    if status != "InProgress":
        describe["TrainingEndTime"] = end
        describe["TrainingTimeInSeconds"] = training
        describe["BillableTimeInSeconds"] = training if billable is None else billable
    if failure_reason:
        describe["FailureReason"] = failure_reason
    if pool_status or retained is not None or reused_by:
        pool: dict[str, Any] = {"Status": pool_status or "Terminated"}
        if retained is not None:
            pool["ResourceRetainedBillableTimeInSeconds"] = retained
        if reused_by:
            pool["ReusedByJob"] = reused_by
        describe["WarmPoolStatus"] = pool
    if tags:
        describe["Tags"] = [{"Key": k, "Value": v} for k, v in tags.items()]
    return describe


def end_of(describe: dict[str, Any]) -> float:
    """Seconds from T0 to the job's end (to place a successor)."""
    end: datetime = describe["TrainingEndTime"]
    return (end - T0).total_seconds()


def demo_run() -> list[dict[str, Any]]:
    """A small run with every case: a warm-pool chain, spot with savings and a re-submission, a failure,
    a multi-instance GPU job and an escaped-text trap in a failure reason."""
    seoul = describe_job(
        "demo-seoul-20261129",
        training=1800,
        keep_alive=600,
        retained=120,
        pool_status="Reused",
        reused_by="demo-tokyo-20261129",
    )
    tokyo = describe_job(
        "demo-tokyo-20261129",
        created=end_of(seoul) + 120,
        startup=20,
        training=1500,
        keep_alive=600,
        retained=300,
        pool_status="Reused",
        reused_by="demo-lagos-20261129",
    )
    lagos = describe_job(
        "demo-lagos-20261129",
        created=end_of(tokyo) + 300,
        startup=56,  # warm, but another image than tokyo's: pulled again
        image="111122223333.dkr.ecr.us-east-1.amazonaws.com/demand-lagos:2.0",
        training=600,
        keep_alive=600,
        retained=600,
        pool_status="Terminated",
    )
    lima = describe_job(
        "demo-lima-20261129",
        created=30,
        status="Failed",
        secondary="Failed",
        training=120,
        failure_reason='AlgorithmError: <script>alert("x")</script> & exit 1',
    )
    perth1 = describe_job(
        "demo-perth-20261129",
        spot=True,
        created=10,
        status="Stopped",
        secondary="MaxWaitTimeExceeded",
        training=200,
        billable=50,
        phases=[
            ("Starting", 60),
            ("Downloading", 40),
            ("Training", 200),
            ("Interrupted", 900),
            ("Stopping", 5),
        ],
    )
    perth2 = describe_job("demo-perth-20261129-r2", spot=True, created=1300, training=500, billable=100)
    vision = describe_job(
        "demo-vision-20261129", instance_type="ml.g5.xlarge", count=4, created=5, training=900
    )
    return [seoul, tokyo, lagos, lima, perth1, perth2, vision]


#: When the demo report says it was generated (fixed, so that rendered pages compare).
GENERATED_AT = datetime(2026, 11, 29, 12, tzinfo=UTC)


def demo_report() -> CostReport:
    """The cost report of :func:`demo_run` at the shipped prices: the one demo report every cost test reads."""
    spec = demo_spec()
    return build_cost_report(
        spec, RUN_KEY, demo_run(), PriceBook(spec.region, load_price_table()), generated_at=GENERATED_AT
    )
