"""FleetTrainingOperator through ``dag.test()`` against the simulator: idempotency, spot re-submission, failure."""

from __future__ import annotations

import threading
import time
from pathlib import Path

import pytest

pytestmark = pytest.mark.integration
RUN_KEY = "20261129"


def run_city(fleets_dir, city: str, *, force_retrain: bool = False, keep_alive_seconds: int = 0):
    """One run of the test DAG (tests/integration/airflow/dags) for ``city`` through ``dag.test()``."""
    from integration.airflow.dags.operator_dags import op_force_retrain, op_train

    dag = op_force_retrain if force_retrain else op_train
    return dag.test(run_conf={"city": city, "keep_alive": keep_alive_seconds})


@pytest.fixture
def fast_sim(aws_sim, airflow_db):
    for city in ("seoul", "tokyo", "oslo", "perth", "dakar"):
        aws_sim.set_work(120, city=city)
    aws_sim.set_speed(300)
    yield aws_sim
    aws_sim.set_speed(1)


def jobs_of(sim, city: str) -> list[str]:
    return sorted(j["name"] for j in sim.state()["jobs"] if f"-{city}-" in j["name"])


def test_deferred_training_completes_and_rerun_does_not_retrain(fast_sim, fleets_dir) -> None:
    run = run_city(fleets_dir, "seoul", keep_alive_seconds=300)
    assert run.state == "success"
    assert jobs_of(fast_sim, "seoul") == ["quick-seoul-20261129"]
    again = run_city(fleets_dir, "seoul")
    assert again.state == "success"
    assert jobs_of(fast_sim, "seoul") == ["quick-seoul-20261129"]  # cleared/rerun: returns the result


def test_one_city_costs_one_create_and_one_describe(fast_sim, fleets_dir) -> None:
    """execute: the create, no describe (a job of that name would refuse it); the trigger: list sweeps and one
    describe once terminal, whose description travels in the event, so resuming the task costs no call."""
    before = fast_sim.calls()["calls"]
    assert run_city(fleets_dir, "oslo").state == "success"
    after = fast_sim.calls()["calls"]
    delta = {op: after.get(op, 0) - before.get(op, 0) for op in after}
    assert delta["CreateTrainingJob"] == 1
    assert delta["DescribeTrainingJob"] == 1, delta
    assert delta["ListTrainingJobs"] >= 1


def test_force_retrain_submits_r2(fast_sim, fleets_dir) -> None:
    assert run_city(fleets_dir, "tokyo").state == "success"
    assert run_city(fleets_dir, "tokyo", force_retrain=True).state == "success"
    assert jobs_of(fast_sim, "tokyo") == ["quick-tokyo-20261129", "quick-tokyo-20261129-r2"]


def test_spot_max_wait_resubmits_from_the_same_checkpoint_then_falls_back(fast_sim, fleets_dir) -> None:
    # dakar: spot, max_attempts 2, fallback fail; perth: spot, max_attempts 3, fallback on_demand
    fast_sim.spot(no_capacity_types=["ml.m5.xlarge"])
    assert run_city(fleets_dir, "perth").state == "success"
    names = jobs_of(fast_sim, "perth")
    assert names == [f"quick-perth-20261129{s}" for s in ("", "-r2", "-r3", "-r4")]
    client = fast_sim.boto3_client("sagemaker")
    described = [client.describe_training_job(TrainingJobName=n) for n in names]
    assert [d.get("EnableManagedSpotTraining", False) for d in described] == [True, True, True, False]
    assert [d["SecondaryStatus"] for d in described[:3]] == ["MaxWaitTimeExceeded"] * 3
    assert len({d["CheckpointConfig"]["S3Uri"] for d in described}) == 1
    assert described[3]["TrainingJobStatus"] == "Completed"


def test_spot_without_fallback_fails_after_its_attempts(fast_sim, fleets_dir) -> None:
    fast_sim.spot(no_capacity_types=["ml.m5.xlarge"])
    assert run_city(fleets_dir, "dakar").state == "failed"
    assert jobs_of(fast_sim, "dakar") == ["quick-dakar-20261129", "quick-dakar-20261129-r2"]


def test_failed_job_fails_the_task_with_its_reason(fast_sim, fleets_dir, capsys) -> None:
    from sagemaker_fleet.sim.lifecycle import ALGORITHM_FAILURE

    fast_sim.failures(1.0)
    assert run_city(fleets_dir, "oslo").state == "failed"
    fast_sim.failures(0.0)
    assert jobs_of(fast_sim, "oslo") == ["quick-oslo-20261129"]
    # the task's log (dag.test() prints it) carries the container's reason, not only "failed"
    log = capsys.readouterr().out
    assert f"oslo: {ALGORITHM_FAILURE}" in log, log[-3000:]


def test_a_job_created_before_a_worker_crash_is_attached_not_duplicated(fast_sim, fleets_dir) -> None:
    from sagemaker_fleet.fleetspec import load_fleet_spec
    from sagemaker_fleet.hooks.fleet import SageMakerFleetHook
    from sagemaker_fleet.jobs.request import Submission, compile_training_request

    fleet = load_fleet_spec(Path(__file__).parent / "fleets" / "quick.yaml")
    request = compile_training_request(fleet, fleet.city("oslo"), Submission("oslo", RUN_KEY))
    SageMakerFleetHook().create_or_attach(request)  # the first try created it, then its worker died
    before = fast_sim.calls()
    assert run_city(fleets_dir, "oslo").state == "success"
    after = fast_sim.calls()
    assert jobs_of(fast_sim, "oslo") == ["quick-oslo-20261129"]
    # the run's listing shows the city's job, so the retry attaches without trying to create it again
    assert after["calls"]["CreateTrainingJob"] == before["calls"]["CreateTrainingJob"]


def test_instance_quota_in_use_waits_instead_of_failing(fast_sim, fleets_dir) -> None:
    """Another team's job holds the only instance until the city has been refused once; then it is stopped, and
    the city, which waited instead of failing, trains. The blocker's end is an event, not a wall-clock guess."""
    from sim_fixtures import make_request

    fast_sim.set_quota("ml.m5.xlarge", instances=1, warm_pools=0)
    client = fast_sim.boto3_client("sagemaker")
    blocker = "other-team-job-1"
    fast_sim.set_work(10**7, job=blocker)
    client.create_training_job(**make_request(blocker, max_runtime=28 * 86400))
    refused = threading.Event()

    def release_after_a_refusal() -> None:
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline:
            if fast_sim.calls()["errors"].get("CreateTrainingJob:ResourceLimitExceeded", 0) >= 1:
                refused.set()
                break
            time.sleep(0.1)
        client.stop_training_job(TrainingJobName=blocker)  # refused or not: never leave the city waiting

    releaser = threading.Thread(target=release_after_a_refusal, daemon=True)
    releaser.start()
    try:
        assert run_city(fleets_dir, "tokyo").state == "success"
    finally:
        releaser.join()
    assert refused.is_set(), "the city was never refused: the test proves nothing"
    assert jobs_of(fast_sim, "tokyo") == ["quick-tokyo-20261129"]
