"""Warm pools over HTTP: matching-key reuse, ReusedByJob, expiry, retained billing, UpdateTrainingJob, quotas."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import pytest
from botocore.exceptions import ClientError

from sim_fixtures import advance_until, make_request

if TYPE_CHECKING:
    from sagemaker_fleet.sim.client import SimClient

pytestmark = pytest.mark.integration
ENDED = {"Completed", "Failed", "Stopped"}


def pool(sm: Any, name: str) -> dict[str, Any] | None:
    status: dict[str, Any] | None = sm.describe_training_job(TrainingJobName=name).get("WarmPoolStatus")
    return status


def test_reuse_reused_by_job_and_expiry(sim: SimClient) -> None:
    sm = sim.boto3_client("sagemaker")
    sm.create_training_job(**make_request("first", keep_alive=600))
    advance_until(sim, sm, "first", ENDED)
    assert pool(sm, "first")["Status"] == "Available"  # type: ignore[index]

    other_image = {
        "TrainingImage": "111122223333.dkr.ecr.us-east-1.amazonaws.com/demand:2.0",
        "TrainingInputMode": "FastFile",
    }
    sm.create_training_job(**make_request("second", keep_alive=300, AlgorithmSpecification=other_image))
    assert pool(sm, "second") == {"Status": "InUse"}
    reused = pool(sm, "first")
    assert reused["Status"] == "Reused"  # type: ignore[index]
    assert reused["ReusedByJob"] == "second"  # type: ignore[index]

    advance_until(sim, sm, "second", ENDED)
    assert sim.job("second")["start"] == "warm"
    assert sim.job("second")["startup_seconds"] < sim.job("first")["startup_seconds"]
    assert pool(sm, "second")["Status"] == "Available"  # type: ignore[index]
    sim.advance(301)
    assert pool(sm, "second") == {"Status": "Terminated", "ResourceRetainedBillableTimeInSeconds": 300}


def test_a_different_role_never_reuses(sim: SimClient) -> None:
    sm = sim.boto3_client("sagemaker")
    sm.create_training_job(**make_request("first", keep_alive=600))
    advance_until(sim, sm, "first", ENDED)
    sm.create_training_job(
        **make_request("second", keep_alive=600, RoleArn="arn:aws:iam::111122223333:role/TeamB")
    )
    assert pool(sm, "second") is None
    assert pool(sm, "first")["Status"] == "Available"  # type: ignore[index]


def test_retained_time_accrues_while_idle(sim: SimClient) -> None:
    sm = sim.boto3_client("sagemaker")
    sm.create_training_job(**make_request("first", keep_alive=3600))
    advance_until(sim, sm, "first", ENDED)
    before = pool(sm, "first")["ResourceRetainedBillableTimeInSeconds"]  # type: ignore[index]
    sim.advance(500)
    after = pool(sm, "first")["ResourceRetainedBillableTimeInSeconds"]  # type: ignore[index]
    assert after - before == pytest.approx(500, abs=2)


def test_update_training_job_changes_and_ends_keep_alive(sim: SimClient) -> None:
    sm = sim.boto3_client("sagemaker")
    sm.create_training_job(**make_request("first", keep_alive=60))
    advance_until(sim, sm, "first", ENDED, step=10)

    sm.update_training_job(TrainingJobName="first", ResourceConfig={"KeepAlivePeriodInSeconds": 3600})
    sim.advance(600)
    assert pool(sm, "first")["Status"] == "Available"  # type: ignore[index]
    assert (
        sm.describe_training_job(TrainingJobName="first")["ResourceConfig"]["KeepAlivePeriodInSeconds"]
        == 3600
    )

    sm.update_training_job(TrainingJobName="first", ResourceConfig={"KeepAlivePeriodInSeconds": 0})
    ended = pool(sm, "first")
    assert ended["Status"] == "Terminated"  # type: ignore[index]
    assert ended["ResourceRetainedBillableTimeInSeconds"] >= 600  # type: ignore[index]


def test_a_refused_keep_alive_change_of_a_running_job_is_a_validation_exception(sim: SimClient) -> None:
    """With the setting on, boto3 gets what a refusing AWS would send: a ClientError ValidationException (HTTP
    400) with the reason; the job keeps its pool, which keep-alive 0 ends once it is Available."""
    sm = sim.boto3_client("sagemaker")
    assert sim.refuse_keep_alive_while_running() is True
    sm.create_training_job(**make_request("first", keep_alive=600))

    with pytest.raises(ClientError) as caught:
        sm.update_training_job(TrainingJobName="first", ResourceConfig={"KeepAlivePeriodInSeconds": 0})

    error = caught.value.response
    assert error["Error"]["Code"] == "ValidationException"
    assert error["ResponseMetadata"]["HTTPStatusCode"] == 400
    assert "training job is in status InProgress" in error["Error"]["Message"]
    assert sim.calls()["errors"] == {"UpdateTrainingJob:ValidationException": 1}
    advance_until(sim, sm, "first", ENDED, step=30)
    assert pool(sm, "first")["Status"] == "Available"  # type: ignore[index]
    sim.advance(20)
    sm.update_training_job(TrainingJobName="first", ResourceConfig={"KeepAlivePeriodInSeconds": 0})
    ended = pool(sm, "first")
    assert ended["Status"] == "Terminated"  # type: ignore[index]
    assert 20 <= ended["ResourceRetainedBillableTimeInSeconds"] < 600  # type: ignore[index]


def test_warm_pool_quota_and_resource_limit_exceeded(sim: SimClient) -> None:
    sm = sim.boto3_client("sagemaker")
    sim.set_quota("ml.m5.xlarge", instances=2, warm_pools=1)
    sm.create_training_job(**make_request("a", keep_alive=600))
    sm.create_training_job(**make_request("b", keep_alive=600, RoleArn="arn:aws:iam::111122223333:role/B"))

    with pytest.raises(sm.exceptions.ResourceLimitExceeded) as caught:
        sm.create_training_job(**make_request("c"))
    assert "ml.m5.xlarge for training job usage" in caught.value.response["Error"]["Message"]

    advance_until(sim, sm, "a", ENDED)
    advance_until(sim, sm, "b", ENDED)
    statuses = sorted(pool(sm, n)["Status"] for n in ("a", "b"))  # type: ignore[index]
    assert statuses == ["Available", "Terminated"]  # one pool within the quota of 1


def test_warm_pool_status_equals(sim: SimClient) -> None:
    sm = sim.boto3_client("sagemaker")
    sm.create_training_job(**make_request("pooled", keep_alive=600))
    sm.create_training_job(**make_request("plain", RoleArn="arn:aws:iam::111122223333:role/B"))
    advance_until(sim, sm, "pooled", ENDED)
    advance_until(sim, sm, "plain", ENDED)

    listed = sm.list_training_jobs(WarmPoolStatusEquals="Available")["TrainingJobSummaries"]
    assert [s["TrainingJobName"] for s in listed] == ["pooled"]
    assert listed[0]["WarmPoolStatus"]["Status"] == "Available"


def test_billed_cost_of_the_state_equals_what_describe_reports(sim: SimClient) -> None:
    """``billed_cost`` (used by the demo, the e2e check and fleet_vs_stock) counts the whole seconds the API gives,
    so a report built from DescribeTrainingJob matches it to the cent even when retained time is fractional."""
    from sagemaker_fleet.sim.client import billed_cost

    sm = sim.boto3_client("sagemaker")
    names = [f"billed-{i}" for i in range(3)]
    for name in names:
        sm.create_training_job(**make_request(name, keep_alive=900))
    for name in names:
        advance_until(sim, sm, name, ENDED, step=37.3)
    sim.advance(123.45)  # pools idle for a fractional number of seconds
    for name in names[:2]:
        sm.update_training_job(TrainingJobName=name, ResourceConfig={"KeepAlivePeriodInSeconds": 0})
    price = {"ml.m5.xlarge": 0.23}

    def from_api() -> float:
        described = [sm.describe_training_job(TrainingJobName=n) for n in names]
        return sum(
            (
                d["BillableTimeInSeconds"]
                + d.get("WarmPoolStatus", {}).get("ResourceRetainedBillableTimeInSeconds", 0)
            )
            * d["ResourceConfig"]["InstanceCount"]
            * price[d["ResourceConfig"]["InstanceType"]]
            / 3600
            for d in described
        )

    # the third pool is still idle and accrues in real time: a busy machine can tick a second between two reads,
    # so the state is read between two rounds of describes and must equal one of them to the nano-dollar
    before = from_api()
    jobs = [j for j in sim.state()["jobs"] if j["name"] in names]
    after = from_api()
    assert any(j["retained_seconds"] != round(j["retained_seconds"]) for j in jobs)
    cost = billed_cost(jobs, price.__getitem__)
    assert cost.total_usd == pytest.approx(before, abs=1e-9) or cost.total_usd == pytest.approx(
        after, abs=1e-9
    )
    assert 0 < cost.retained_usd < cost.total_usd
