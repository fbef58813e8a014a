"""Everything that is not a modelled training API is served by moto in the same process, on the same port."""

from __future__ import annotations

from typing import TYPE_CHECKING

import pytest

from sagemaker_fleet.sim.server.moto_backend import moto_request_handler
from sim_fixtures import advance_until, make_request

if TYPE_CHECKING:
    from sagemaker_fleet.sim.client import SimClient

pytestmark = pytest.mark.integration
ENDED = {"Completed", "Failed", "Stopped"}


def test_s3_put_and_get_through_the_endpoint(sim: SimClient) -> None:
    s3 = sim.boto3_client("s3")
    s3.create_bucket(Bucket="acme-ml")
    s3.put_object(Bucket="acme-ml", Key="data/seoul/train.csv", Body=b"a,b\n1,2\n", Metadata={"my_key": "v"})

    got = s3.get_object(Bucket="acme-ml", Key="data/seoul/train.csv")
    assert got["Body"].read() == b"a,b\n1,2\n"
    # moto 5.1 (beside MWAA's Airflow 3.0.6) has no request handler that keeps a header's underscores: the
    # endpoint then serves through werkzeug's, and an underscore in a metadata key comes back as a dash
    keeps = moto_request_handler().__module__.startswith("moto.")
    assert got["Metadata"] == ({"my_key": "v"} if keeps else {"my-key": "v"})
    assert [o["Key"] for o in s3.list_objects_v2(Bucket="acme-ml", Prefix="data/")["Contents"]] == [
        "data/seoul/train.csv"
    ]


def test_sts_answers_with_the_simulated_account(sim: SimClient) -> None:
    assert sim.boto3_client("sts").get_caller_identity()["Account"] == "123456789012"


def test_a_completed_job_writes_its_model_and_logs(sim: SimClient) -> None:
    sm, s3, logs = sim.boto3_client("sagemaker"), sim.boto3_client("s3"), sim.boto3_client("logs")
    s3.create_bucket(Bucket="acme-ml")
    sm.create_training_job(**make_request("job-a"))
    done = advance_until(sim, sm, "job-a", ENDED)

    artifact = done["ModelArtifacts"]["S3ModelArtifacts"]
    assert artifact == "s3://acme-ml/fleets/test/models/job-a/output/model.tar.gz"
    assert (
        s3.head_object(Bucket="acme-ml", Key="fleets/test/models/job-a/output/model.tar.gz")["ContentLength"]
        > 0
    )
    events = logs.get_log_events(
        logGroupName="/aws/sagemaker/TrainingJobs", logStreamName="job-a/algo-1", startFromHead=True
    )["events"]
    assert [e["message"].split("]")[0] for e in events] == [
        "[Starting",
        "[Downloading",
        "[Training",
        "[Uploading",
        "[Completed",
    ]


def test_sagemaker_operations_we_do_not_model_go_to_moto(sim: SimClient) -> None:
    sm = sim.boto3_client("sagemaker")
    sm.create_model(
        ModelName="m",
        ExecutionRoleArn="arn:aws:iam::111122223333:role/FleetTraining",
        PrimaryContainer={"Image": "111122223333.dkr.ecr.us-east-1.amazonaws.com/demand:1.4"},
    )
    assert [m["ModelName"] for m in sm.list_models()["Models"]] == ["m"]


def test_reset_clears_moto_too(sim: SimClient) -> None:
    s3 = sim.boto3_client("s3")
    s3.create_bucket(Bucket="scratch")
    sim.reset()
    assert "scratch" not in [b["Name"] for b in s3.list_buckets()["Buckets"]]
