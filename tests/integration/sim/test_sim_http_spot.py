"""Spot over HTTP: admin interruption, MaxWaitTimeExceeded, resume from a checkpoint written to moto S3."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING

import pytest

from sim_fixtures import advance_until, make_request

if TYPE_CHECKING:
    from sagemaker_fleet.sim.client import SimClient

pytestmark = pytest.mark.integration
ENDED = {"Completed", "Failed", "Stopped"}
CKPT = "s3://acme-ml/fleets/test/checkpoints/seoul/20261129/"


def test_an_interrupted_spot_job_restarts_and_bills_at_the_spot_discount(sim: SimClient) -> None:
    sm = sim.boto3_client("sagemaker")
    sim.set_work(1200, job="spot")
    sm.create_training_job(**make_request("spot", spot=True, checkpoint_uri=CKPT))
    advance_until(sim, sm, "spot", {"Training"}, step=20)
    sim.advance(400)
    sim.interrupt("spot")
    assert sm.describe_training_job(TrainingJobName="spot")["SecondaryStatus"] == "Interrupted"

    done = advance_until(sim, sm, "spot", ENDED)

    chain = [t["Status"] for t in done["SecondaryStatusTransitions"]]
    assert chain[chain.index("Interrupted") - 1 : chain.index("Interrupted") + 4] == [
        "Training",
        "Interrupted",
        "Starting",
        "Downloading",
        "Training",
    ]
    assert done["TrainingJobStatus"] == "Completed"
    assert done["EnableManagedSpotTraining"] is True
    savings = (1 - done["BillableTimeInSeconds"] / done["TrainingTimeInSeconds"]) * 100
    assert 64 <= savings <= 76
    assert "WarmPoolStatus" not in done


def test_max_wait_time_exceeded_when_capacity_never_comes(sim: SimClient) -> None:
    sm = sim.boto3_client("sagemaker")
    sim.spot(no_capacity_types=["ml.m5.xlarge"])
    sm.create_training_job(**make_request("spot", spot=True, max_runtime=1800, max_wait=3600))

    done = advance_until(sim, sm, "spot", ENDED, step=300)

    assert (done["TrainingJobStatus"], done["SecondaryStatus"]) == ("Stopped", "MaxWaitTimeExceeded")
    assert [t["Status"] for t in done["SecondaryStatusTransitions"]] == [
        "Starting",
        "Stopping",
        "MaxWaitTimeExceeded",
    ]
    assert done["BillableTimeInSeconds"] == 0


def test_a_resubmission_resumes_from_the_checkpoint_in_s3(sim: SimClient) -> None:
    sm, s3 = sim.boto3_client("sagemaker"), sim.boto3_client("s3")
    s3.create_bucket(Bucket="acme-ml")
    sim.set_work(1800, city="seoul")
    sm.create_training_job(**make_request("seoul-r1", city="seoul", checkpoint_uri=CKPT))
    advance_until(sim, sm, "seoul-r1", {"Training"}, step=20)
    sim.advance(700)  # checkpoints at 300 and 600 s of training
    sm.stop_training_job(TrainingJobName="seoul-r1")
    advance_until(sim, sm, "seoul-r1", ENDED, step=10)

    body = s3.get_object(
        Bucket="acme-ml", Key="fleets/test/checkpoints/seoul/20261129/sagemaker-fleet-sim-checkpoint.json"
    )
    assert json.loads(body["Body"].read())["progress_seconds"] == pytest.approx(600, abs=1)

    sm.create_training_job(**make_request("seoul-r2", city="seoul", checkpoint_uri=CKPT))
    done = advance_until(sim, sm, "seoul-r2", ENDED)
    training = next(t for t in done["SecondaryStatusTransitions"] if t["Status"] == "Training")
    assert (training["EndTime"] - training["StartTime"]).total_seconds() == pytest.approx(1200, abs=1)


def test_deleting_the_checkpoint_makes_the_next_job_start_over(sim: SimClient) -> None:
    sm, s3 = sim.boto3_client("sagemaker"), sim.boto3_client("s3")
    s3.create_bucket(Bucket="acme-ml")
    sim.set_work(900, city="seoul")
    sm.create_training_job(**make_request("seoul-r1", city="seoul", checkpoint_uri=CKPT))
    advance_until(sim, sm, "seoul-r1", ENDED)
    s3.delete_object(
        Bucket="acme-ml", Key="fleets/test/checkpoints/seoul/20261129/sagemaker-fleet-sim-checkpoint.json"
    )

    sm.create_training_job(**make_request("seoul-r2", city="seoul", checkpoint_uri=CKPT))
    done = advance_until(sim, sm, "seoul-r2", ENDED)
    training = next(t for t in done["SecondaryStatusTransitions"] if t["Status"] == "Training")
    assert (training["EndTime"] - training["StartTime"]).total_seconds() == pytest.approx(900, abs=1)
