"""The endpoint over HTTP with plain boto3: statuses, transitions, failure, stop, duplicate names."""

from __future__ import annotations

import datetime as dt
from typing import TYPE_CHECKING

import pytest
from botocore.exceptions import ClientError

from sim_fixtures import advance_until, make_request

if TYPE_CHECKING:
    from sagemaker_fleet.sim.client import SimClient

pytestmark = pytest.mark.integration
ENDED = {"Completed", "Failed", "Stopped"}


def test_a_job_runs_through_its_statuses(sim: SimClient) -> None:
    sm = sim.boto3_client("sagemaker")
    sim.set_work(900, job="job-a")
    arn = sm.create_training_job(**make_request("job-a"))["TrainingJobArn"]
    assert arn == "arn:aws:sagemaker:us-east-1:123456789012:training-job/job-a"

    seen: list[str] = []
    for _ in range(200):
        described = sm.describe_training_job(TrainingJobName="job-a")
        if not seen or seen[-1] != described["SecondaryStatus"]:
            seen.append(described["SecondaryStatus"])
        if described["TrainingJobStatus"] in ENDED:
            break
        sim.advance(15)

    assert seen == ["Starting", "Downloading", "Training", "Uploading", "Completed"]
    assert described["TrainingJobStatus"] == "Completed"
    transitions = described["SecondaryStatusTransitions"]
    assert [t["Status"] for t in transitions] == seen
    assert all(isinstance(t["StartTime"], dt.datetime) and t["StatusMessage"] for t in transitions)
    assert described["TrainingEndTime"] > described["TrainingStartTime"] > described["CreationTime"]
    ran = (described["TrainingEndTime"] - described["TrainingStartTime"]).total_seconds()
    assert (
        described["BillableTimeInSeconds"] == described["TrainingTimeInSeconds"] == pytest.approx(ran, abs=1)
    )
    assert described["TrainingTimeInSeconds"] >= 900


def test_timestamps_are_simulated_time(sim: SimClient) -> None:
    sm = sim.boto3_client("sagemaker")
    sim.advance(7 * 24 * 3600)  # a week ahead of the wall clock
    sm.create_training_job(**make_request("job-a"))
    created = sm.describe_training_job(TrainingJobName="job-a")["CreationTime"]
    assert created.timestamp() == pytest.approx(sim.now(), abs=5)
    assert created > dt.datetime.now(dt.UTC) + dt.timedelta(days=6)


def test_a_failed_job_reports_its_failure_reason(sim: SimClient) -> None:
    sm = sim.boto3_client("sagemaker")
    sm.create_training_job(**make_request("job-a"))
    sim.advance(300)
    sim.fail("job-a", "AlgorithmError: ValueError: bad input shape")

    described = sm.describe_training_job(TrainingJobName="job-a")
    assert (described["TrainingJobStatus"], described["SecondaryStatus"]) == ("Failed", "Failed")
    assert described["FailureReason"] == "AlgorithmError: ValueError: bad input shape"


def test_stop_training_job(sim: SimClient) -> None:
    sm = sim.boto3_client("sagemaker")
    sm.create_training_job(**make_request("job-a"))
    sim.advance(400)
    sm.stop_training_job(TrainingJobName="job-a")
    assert sm.describe_training_job(TrainingJobName="job-a")["TrainingJobStatus"] == "Stopping"

    described = advance_until(sim, sm, "job-a", ENDED, step=10)

    assert (described["TrainingJobStatus"], described["SecondaryStatus"]) == ("Stopped", "Stopped")
    assert [t["Status"] for t in described["SecondaryStatusTransitions"]][-2:] == ["Stopping", "Stopped"]
    with pytest.raises(ClientError) as caught:
        sm.stop_training_job(TrainingJobName="job-a")
    assert caught.value.response["Error"]["Code"] == "ValidationException"


def test_duplicate_names_are_rejected(sim: SimClient) -> None:
    sm = sim.boto3_client("sagemaker")
    sm.create_training_job(**make_request("job-a"))
    with pytest.raises(sm.exceptions.ResourceInUse) as caught:
        sm.create_training_job(**make_request("job-a"))
    assert "Training job names must be unique" in caught.value.response["Error"]["Message"]
    assert caught.value.response["ResponseMetadata"]["HTTPStatusCode"] == 400


def test_unknown_jobs(sim: SimClient) -> None:
    sm = sim.boto3_client("sagemaker")
    with pytest.raises(ClientError) as described:
        sm.describe_training_job(TrainingJobName="nope")
    assert described.value.response["Error"] == {
        "Code": "ValidationException",
        "Message": "Requested resource not found.",
    }
    with pytest.raises(sm.exceptions.ResourceNotFound):
        sm.stop_training_job(TrainingJobName="nope")


def test_the_stock_waiter_works_against_the_simulator(sim: SimClient) -> None:
    sm = sim.boto3_client("sagemaker")
    sim.set_speed(2000)
    sm.create_training_job(**make_request("job-a"))
    sm.get_waiter("training_job_completed_or_stopped").wait(
        TrainingJobName="job-a", WaiterConfig={"Delay": 1, "MaxAttempts": 30}
    )
    assert sm.describe_training_job(TrainingJobName="job-a")["TrainingJobStatus"] == "Completed"
