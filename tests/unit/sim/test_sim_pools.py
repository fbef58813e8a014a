"""Warm pools (docs/sagemaker-behaviour.md, warm pools) in the engine: matching key, one job per pool, statuses, retention, quotas."""

from __future__ import annotations

from dataclasses import replace
from types import MappingProxyType
from typing import Any

import pytest

from sagemaker_fleet.fleetspec import InstanceQuota
from sagemaker_fleet.jobs.startup import IMAGE_PULL_P90
from sagemaker_fleet.sim import SimApiError, SimConfig, SimEngine, StartupModel, TimingConfig, VirtualClock
from sim_fixtures import TEST_CONFIG, make_request, run_for, run_until_ended, run_until_status

VPC = {"Subnets": ["subnet-a", "subnet-b"], "SecurityGroupIds": ["sg-1"]}


def engine_with(quotas: dict[str, InstanceQuota] | None = None) -> SimEngine:
    config = (
        TEST_CONFIG
        if quotas is None
        else SimConfig(seed=7, spot=TEST_CONFIG.spot, quotas=MappingProxyType(quotas))
    )
    return SimEngine(config, VirtualClock())


def pool_status(engine: SimEngine, name: str) -> dict[str, Any] | None:
    status: dict[str, Any] | None = engine.describe_training_job(name).get("WarmPoolStatus")
    return status


def test_a_matching_job_reuses_the_pool_even_with_another_image(sim_engine: SimEngine) -> None:
    sim_engine.create_training_job(make_request("first", keep_alive=600, VpcConfig=VPC))
    run_until_ended(sim_engine, "first")
    assert pool_status(sim_engine, "first") == {
        "Status": "Available",
        "ResourceRetainedBillableTimeInSeconds": 0,
    }

    other_image = {
        "TrainingImage": "111122223333.dkr.ecr.us-east-1.amazonaws.com/demand:1.5",
        "TrainingInputMode": "FastFile",
    }
    vpc_reordered = {"Subnets": ["subnet-b", "subnet-a"], "SecurityGroupIds": ["sg-1"]}
    run_for(sim_engine, 120)
    sim_engine.create_training_job(
        make_request("second", keep_alive=900, AlgorithmSpecification=other_image, VpcConfig=vpc_reordered)
    )

    assert pool_status(sim_engine, "first") == {
        "Status": "Reused",
        "ResourceRetainedBillableTimeInSeconds": 120,
        "ReusedByJob": "second",
    }
    assert pool_status(sim_engine, "second") == {"Status": "InUse"}
    run_until_ended(sim_engine, "second")
    assert sim_engine.facts("second").start == "warm"
    warm, cold = sim_engine.facts("second").startup_seconds, sim_engine.facts("first").startup_seconds
    assert warm is not None
    assert cold is not None
    assert warm < cold
    assert pool_status(sim_engine, "second") == {
        "Status": "Available",
        "ResourceRetainedBillableTimeInSeconds": 0,
    }

    run_for(sim_engine, 899)
    assert pool_status(sim_engine, "second")["Status"] == "Available"  # type: ignore[index]
    run_for(sim_engine, 2)
    assert pool_status(sim_engine, "second") == {
        "Status": "Terminated",
        "ResourceRetainedBillableTimeInSeconds": 900,
    }


DIFFERENT = {
    "role": {"RoleArn": "arn:aws:iam::111122223333:role/TeamB"},
    "instance type": {"ResourceConfig": {"InstanceType": "ml.m5.2xlarge"}},
    "instance count": {"ResourceConfig": {"InstanceCount": 2}},
    "volume size": {"ResourceConfig": {"VolumeSizeInGB": 50}},
    "volume KMS key": {"ResourceConfig": {"VolumeKmsKeyId": "arn:aws:kms:us-east-1:111122223333:key/k"}},
    "subnet": {"VpcConfig": {"Subnets": ["subnet-a", "subnet-c"], "SecurityGroupIds": ["sg-1"]}},
    "security group": {"VpcConfig": {"Subnets": ["subnet-a", "subnet-b"], "SecurityGroupIds": ["sg-2"]}},
    "network isolation": {"EnableNetworkIsolation": True},
    "inter-container encryption": {"EnableInterContainerTrafficEncryption": True},
}


@pytest.mark.parametrize("difference", DIFFERENT.values(), ids=DIFFERENT.keys())
def test_a_job_differing_in_any_matching_criterion_never_reuses(
    sim_engine: SimEngine, difference: dict[str, Any]
) -> None:
    sim_engine.create_training_job(make_request("first", keep_alive=600, VpcConfig=VPC))
    run_until_ended(sim_engine, "first")

    sim_engine.create_training_job(make_request("second", keep_alive=600, **{"VpcConfig": VPC, **difference}))

    assert pool_status(sim_engine, "first")["Status"] == "Available"  # type: ignore[index]
    assert pool_status(sim_engine, "second") is None
    run_until_ended(sim_engine, "second")
    assert sim_engine.facts("second").start == "cold"


def test_one_pool_serves_one_job(sim_engine: SimEngine) -> None:
    sim_engine.create_training_job(make_request("first", keep_alive=600))
    run_until_ended(sim_engine, "first")

    sim_engine.create_training_job(make_request("second", keep_alive=600))
    sim_engine.create_training_job(make_request("third", keep_alive=600))

    assert pool_status(sim_engine, "first")["ReusedByJob"] == "second"  # type: ignore[index]
    assert pool_status(sim_engine, "third") is None
    pools = sim_engine.snapshot()["pools"]
    assert [(p["status"], p["jobs"]) for p in pools] == [("InUse", ["first", "second"])]


def test_a_reusing_job_without_keep_alive_ends_the_pool(sim_engine: SimEngine) -> None:
    sim_engine.create_training_job(make_request("first", keep_alive=600))
    run_until_ended(sim_engine, "first")
    sim_engine.create_training_job(make_request("second"))
    assert pool_status(sim_engine, "second") == {"Status": "InUse"}

    run_until_ended(sim_engine, "second")

    assert pool_status(sim_engine, "second") == {
        "Status": "Terminated",
        "ResourceRetainedBillableTimeInSeconds": 0,
    }
    assert pool_status(sim_engine, "first")["Status"] == "Reused"  # type: ignore[index]
    assert [p["status"] for p in sim_engine.snapshot()["pools"]] == ["Terminated"]


def test_a_job_without_keep_alive_has_no_warm_pool_status(sim_engine: SimEngine) -> None:
    sim_engine.create_training_job(make_request("first"))
    run_until_ended(sim_engine, "first")
    assert pool_status(sim_engine, "first") is None


def test_retained_time_accrues_while_the_pool_is_idle(sim_engine: SimEngine) -> None:
    sim_engine.create_training_job(make_request("first", keep_alive=600))
    run_until_ended(sim_engine, "first")
    run_for(sim_engine, 250)
    assert pool_status(sim_engine, "first") == {
        "Status": "Available",
        "ResourceRetainedBillableTimeInSeconds": 250,
    }


def test_update_keep_alive_extends_an_available_pool(sim_engine: SimEngine) -> None:
    sim_engine.create_training_job(make_request("first", keep_alive=600))
    run_until_ended(sim_engine, "first")
    run_for(sim_engine, 100)

    sim_engine.update_training_job(
        {"TrainingJobName": "first", "ResourceConfig": {"KeepAlivePeriodInSeconds": 1200}}
    )

    run_for(sim_engine, 1000)
    assert pool_status(sim_engine, "first")["Status"] == "Available"  # type: ignore[index]
    assert sim_engine.describe_training_job("first")["ResourceConfig"]["KeepAlivePeriodInSeconds"] == 1200
    run_for(sim_engine, 101)
    assert pool_status(sim_engine, "first") == {
        "Status": "Terminated",
        "ResourceRetainedBillableTimeInSeconds": 1200,
    }


def test_update_keep_alive_to_zero_terminates_at_once(sim_engine: SimEngine) -> None:
    sim_engine.create_training_job(make_request("first", keep_alive=600))
    run_until_ended(sim_engine, "first")
    run_for(sim_engine, 42)

    sim_engine.update_training_job(
        {"TrainingJobName": "first", "ResourceConfig": {"KeepAlivePeriodInSeconds": 0}}
    )

    assert pool_status(sim_engine, "first") == {
        "Status": "Terminated",
        "ResourceRetainedBillableTimeInSeconds": 42,
    }
    sim_engine.create_training_job(make_request("second", keep_alive=600))
    assert pool_status(sim_engine, "second") is None  # nothing left to reuse


def test_update_keep_alive_of_a_running_job_applies_when_it_ends(sim_engine: SimEngine) -> None:
    sim_engine.create_training_job(make_request("first", keep_alive=600))
    sim_engine.update_training_job(
        {"TrainingJobName": "first", "ResourceConfig": {"KeepAlivePeriodInSeconds": 60}}
    )
    run_until_ended(sim_engine, "first")
    run_for(sim_engine, 61)
    assert pool_status(sim_engine, "first") == {
        "Status": "Terminated",
        "ResourceRetainedBillableTimeInSeconds": 60,
    }


def keep_alive(name: str, seconds: int) -> dict[str, Any]:
    return {"TrainingJobName": name, "ResourceConfig": {"KeepAlivePeriodInSeconds": seconds}}


def refusing() -> SimEngine:
    return SimEngine(replace(TEST_CONFIG, refuse_keep_alive_while_running=True), VirtualClock())


@pytest.mark.parametrize("stopping", [False, True])
def test_a_refusing_engine_answers_a_running_jobs_keep_alive_change_with_validation_exception(
    stopping: bool,
) -> None:
    """AWS documents the change for an Available pool only; with the setting on, a job still InProgress (or
    Stopping) refuses it the way a refused request comes back, and keeps the keep-alive it was created with."""
    engine = refusing()
    engine.create_training_job(make_request("first", keep_alive=600))
    run_until_status(engine, "first", "Training")
    if stopping:
        engine.stop_training_job("first")
    status = "Stopping" if stopping else "InProgress"
    assert engine.describe_training_job("first")["TrainingJobStatus"] == status

    with pytest.raises(SimApiError) as caught:
        engine.update_training_job(keep_alive("first", 0))

    assert caught.value.code == "ValidationException"
    assert caught.value.http_status == 400
    assert f"training job is in status {status}" in caught.value.message
    assert "can only be updated when its warm pool is Available" in caught.value.message
    assert engine.api_calls()["errors"] == {"UpdateTrainingJob:ValidationException": 1}
    run_until_ended(engine, "first")
    assert pool_status(engine, "first") == {"Status": "Available", "ResourceRetainedBillableTimeInSeconds": 0}
    assert engine.describe_training_job("first")["ResourceConfig"]["KeepAlivePeriodInSeconds"] == 600


def test_a_refusing_engine_still_ends_an_available_pool_at_once() -> None:
    """The fallback the dispatch relies on: the pool the refused job kept is ended by keep-alive 0 once idle."""
    engine = refusing()
    engine.create_training_job(make_request("first", keep_alive=600))
    with pytest.raises(SimApiError):
        engine.update_training_job(keep_alive("first", 0))
    run_until_ended(engine, "first")
    run_for(engine, 25)

    engine.update_training_job(keep_alive("first", 0))

    assert pool_status(engine, "first") == {
        "Status": "Terminated",
        "ResourceRetainedBillableTimeInSeconds": 25,
    }


def test_refusing_keep_alive_changes_of_running_jobs_is_off_by_default_and_set_at_run_time(
    sim_engine: SimEngine,
) -> None:
    assert SimConfig().refuse_keep_alive_while_running is False
    sim_engine.create_training_job(make_request("first", keep_alive=600))
    sim_engine.create_training_job(make_request("second", keep_alive=600, RoleArn="arn:aws:iam::1:role/B"))
    sim_engine.update_training_job(keep_alive("first", 60))  # accepted: applies when it ends

    sim_engine.configure(refuse_keep_alive_while_running=True)
    with pytest.raises(SimApiError, match="ValidationException"):
        sim_engine.update_training_job(keep_alive("second", 60))
    sim_engine.configure(refuse_keep_alive_while_running=False)
    sim_engine.update_training_job(keep_alive("second", 120))

    run_until_ended(sim_engine, "first")
    run_until_ended(sim_engine, "second")
    assert [
        sim_engine.describe_training_job(n)["ResourceConfig"]["KeepAlivePeriodInSeconds"]
        for n in ("first", "second")
    ] == [60, 120]


def test_update_keep_alive_of_a_terminated_pool_is_rejected(sim_engine: SimEngine) -> None:
    sim_engine.create_training_job(make_request("first", keep_alive=60))
    run_until_ended(sim_engine, "first")
    run_for(sim_engine, 61)
    with pytest.raises(SimApiError) as caught:
        sim_engine.update_training_job(
            {"TrainingJobName": "first", "ResourceConfig": {"KeepAlivePeriodInSeconds": 600}}
        )
    assert caught.value.code == "ValidationException"
    assert "Terminated" in caught.value.message


def test_a_failure_from_the_algorithm_keeps_the_pool_other_failures_do_not(sim_engine: SimEngine) -> None:
    sim_engine.create_training_job(make_request("algo", keep_alive=600))
    sim_engine.create_training_job(
        make_request("infra", keep_alive=600, RoleArn="arn:aws:iam::111122223333:role/B")
    )
    run_for(sim_engine, 400)
    sim_engine.fail("algo", "AlgorithmError: exit code 1")
    sim_engine.fail("infra", "InternalServerError: we encountered an internal error")

    assert pool_status(sim_engine, "algo")["Status"] == "Available"  # type: ignore[index]
    assert pool_status(sim_engine, "infra")["Status"] == "Terminated"  # type: ignore[index]


def test_a_stopped_job_keeps_its_pool_once_its_cluster_launched(sim_engine: SimEngine) -> None:
    sim_engine.create_training_job(make_request("first", keep_alive=600))
    run_for(sim_engine, 400)
    sim_engine.stop_training_job("first")
    run_until_ended(sim_engine, "first")
    assert pool_status(sim_engine, "first")["Status"] == "Available"  # type: ignore[index]


def test_spot_jobs_never_use_a_pool() -> None:
    engine = engine_with()
    engine.create_training_job(make_request("first", keep_alive=600))
    run_until_ended(engine, "first")
    engine.create_training_job(make_request("spot", spot=True))
    assert pool_status(engine, "spot") is None
    assert pool_status(engine, "first")["Status"] == "Available"  # type: ignore[index]


def test_pools_are_kept_only_within_the_warm_pool_quota() -> None:
    engine = engine_with({"ml.m5.xlarge": InstanceQuota(instances=10, warm_pools=1)})
    engine.create_training_job(make_request("a", keep_alive=600))
    engine.create_training_job(make_request("b", keep_alive=600, RoleArn="arn:aws:iam::111122223333:role/B"))
    run_until_ended(engine, "a")
    run_until_ended(engine, "b")

    statuses = sorted(pool_status(engine, name)["Status"] for name in ("a", "b"))  # type: ignore[index]
    assert statuses == ["Available", "Terminated"]


def test_without_warm_pool_quota_no_pool_is_kept() -> None:
    engine = engine_with({"ml.m5.xlarge": InstanceQuota(instances=10, warm_pools=0)})
    engine.create_training_job(make_request("a", keep_alive=600))
    run_until_ended(engine, "a")
    assert pool_status(engine, "a") == {"Status": "Terminated", "ResourceRetainedBillableTimeInSeconds": 0}


def test_the_instance_quota_counts_running_jobs_and_pools() -> None:
    engine = engine_with({"ml.m5.xlarge": InstanceQuota(instances=2, warm_pools=2)})
    engine.create_training_job(make_request("a", keep_alive=600))
    engine.create_training_job(make_request("b", RoleArn="arn:aws:iam::111122223333:role/B"))

    with pytest.raises(SimApiError) as caught:
        engine.create_training_job(make_request("c", RoleArn="arn:aws:iam::111122223333:role/C"))
    assert caught.value.code == "ResourceLimitExceeded"
    assert "'ml.m5.xlarge for training job usage' is 2 Instances" in caught.value.message
    assert "current utilization of 2 Instances and a request delta of 1 Instances" in caught.value.message

    run_until_ended(engine, "a")  # a's instances stay as an Available pool: still counted
    with pytest.raises(SimApiError):
        engine.create_training_job(make_request("c", RoleArn="arn:aws:iam::111122223333:role/C"))
    engine.create_training_job(make_request("d", keep_alive=600))  # reuses a's pool: needs no extra quota
    assert pool_status(engine, "d") == {"Status": "InUse"}
    with pytest.raises(SimApiError):
        engine.create_training_job(make_request("c", RoleArn="arn:aws:iam::111122223333:role/C"))


def test_the_instance_count_is_the_request_delta() -> None:
    engine = engine_with({"ml.m5.xlarge": InstanceQuota(instances=3, warm_pools=0)})
    engine.create_training_job(make_request("a", ResourceConfig={"InstanceCount": 2}))
    with pytest.raises(SimApiError, match="request delta of 2 Instances"):
        engine.create_training_job(make_request("b", ResourceConfig={"InstanceCount": 2}))
    engine.create_training_job(make_request("c"))


def test_spot_jobs_use_their_own_quota_when_set() -> None:
    engine = engine_with({"ml.m5.xlarge": InstanceQuota(instances=1, warm_pools=0, spot_instances=1)})
    engine.create_training_job(make_request("od"))
    engine.create_training_job(make_request("spot-1", spot=True))
    with pytest.raises(SimApiError) as caught:
        engine.create_training_job(make_request("spot-2", spot=True))
    assert "'ml.m5.xlarge for spot training job usage' is 1 Instances" in caught.value.message


def test_spot_jobs_share_the_instance_quota_when_no_spot_quota_is_set() -> None:
    engine = engine_with({"ml.m5.xlarge": InstanceQuota(instances=1, warm_pools=0)})
    engine.create_training_job(make_request("spot-1", spot=True))
    with pytest.raises(SimApiError, match="for training job usage"):
        engine.create_training_job(make_request("od"))
    run_until_ended(engine, "spot-1")
    engine.create_training_job(make_request("od"))  # the spot job's instance is free again


OTHER_IMAGE = {
    "TrainingImage": "111122223333.dkr.ecr.us-east-1.amazonaws.com/demand:2.0",
    "TrainingInputMode": "FastFile",
}


def downloading(described: dict[str, Any]) -> dict[str, Any]:
    phase: dict[str, Any] = next(
        t for t in described["SecondaryStatusTransitions"] if t["Status"] == "Downloading"
    )
    return phase


def test_a_warm_start_with_another_image_pulls_it_again() -> None:
    timing = TimingConfig(startup=StartupModel(spread=0.0))
    engine = SimEngine(SimConfig(seed=7, spot=TEST_CONFIG.spot, timing=timing), VirtualClock())
    other = {"AlgorithmSpecification": OTHER_IMAGE}
    chain: list[tuple[str, dict[str, Any]]] = [("a", {}), ("b", {}), ("c", other), ("d", other)]
    for name, overrides in chain:
        engine.create_training_job(make_request(name, keep_alive=600, **overrides))
        run_until_ended(engine, name)
    facts = {name: engine.facts(name) for name, _ in chain}
    assert [(f.start, f.image_pulled) for f in facts.values()] == [
        ("cold", False),
        ("warm", False),
        ("warm", True),  # the pool's previous job (b) ran another image
        ("warm", False),  # c left its image on the pool
    ]
    assert facts["c"].startup_seconds == pytest.approx(21 + IMAGE_PULL_P90)
    assert facts["b"].startup_seconds == facts["d"].startup_seconds == pytest.approx(21)
    pulled = downloading(engine.describe_training_job("c"))
    cached = downloading(engine.describe_training_job("b"))
    seconds = [phase["EndTime"] - phase["StartTime"] for phase in (pulled, cached)]
    assert seconds[0] - seconds[1] == pytest.approx(IMAGE_PULL_P90, abs=0.01)
    assert "training image" in pulled["StatusMessage"]
    assert "differs" in pulled["StatusMessage"]
    assert "cached" in cached["StatusMessage"]


def test_a_cold_start_always_pulls_and_is_not_flagged(sim_engine: SimEngine) -> None:
    sim_engine.create_training_job(make_request("first", AlgorithmSpecification=OTHER_IMAGE))
    run_until_ended(sim_engine, "first")
    assert (sim_engine.facts("first").start, sim_engine.facts("first").image_pulled) == ("cold", False)
