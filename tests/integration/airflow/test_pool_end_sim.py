"""A run's warm pools end with its last jobs: FleetCityTrigger and the run's poller against the simulator over
HTTP. Once every city of a warm-pool group has its job, the poller gives the group's running jobs keep-alive 0,
so no pool of the run idles a second after the run's last job ended; a DAG that carries pools to its next run
keeps them (``release_pools`` decides at the run's end).
"""

from __future__ import annotations

from pathlib import Path

import pytest
from airflow.triggers.base import TaskSuccessEvent

from sagemaker_fleet.fleetspec import load_fleet_spec
from sagemaker_fleet.plan import plan_fleet
from trigger_runs import city_trigger, publish_plan, run_triggers

pytestmark = pytest.mark.integration
RUN_KEY = "20261129"
DISPATCH = Path(__file__).parent / "fleets" / "dispatch.yaml"


def run_fleet(**kwargs) -> list:
    """Every city of dispatch.yaml, each through its own trigger, in one event loop (one triggerer)."""
    spec = load_fleet_spec(DISPATCH)
    triggers = [
        city_trigger(
            DISPATCH,
            c.name,
            run_key=RUN_KEY,
            try_id="manual__1/1",
            poll_interval=0.3,
            capacity_retry_seconds=0.5,
            plan_task_id="plan",
            **kwargs,
        )
        for c in spec.cities
    ]

    return run_triggers(triggers)


@pytest.fixture
def planned(monkeypatch):
    spec = load_fleet_spec(DISPATCH)
    plan = plan_fleet(spec, RUN_KEY)
    publish_plan(monkeypatch, plan)
    return plan


@pytest.fixture
def fast(aws_sim):
    # 100x: a job runs 2.5-4.5 s, time for the poller to give the last ones keep-alive 0 while they run even when
    # the machine is busy (at 200x a loaded machine's sweep sometimes came after the job had ended)
    aws_sim.set_speed(100)
    yield aws_sim
    aws_sim.set_speed(1)


def idle_after_last_end(jobs: list[dict]) -> float:
    """Seconds of pool time after the run's last job end, from the simulator's own facts: a pool idles from its
    job's end for the job's retained seconds (while Available, up to now)."""
    last = max(job["ended_at"] for job in jobs)
    return sum(max(0.0, job["ended_at"] + job["retained_seconds"] - last) for job in jobs)


def test_no_pool_of_the_run_idles_after_its_last_job_ended(fast, planned) -> None:
    events = run_fleet()
    assert all(isinstance(e, TaskSuccessEvent) for e in events), events
    fast.set_speed(1)
    jobs = fast.state()["jobs"]
    assert len(jobs) == 6
    assert idle_after_last_end(jobs) == 0
    # the two jobs running when the sixth city started ended without a pool: keep-alive 0 while they ran
    last_two = sorted(jobs, key=lambda j: j["ended_at"])[-2:]
    assert [(j["warm_pool_status"], j["retained_seconds"]) for j in last_two] == [
        ("Terminated", 0),
        ("Terminated", 0),
    ]
    # every later city still took a pool over
    assert [j["start"] for j in sorted(jobs, key=lambda j: j["created_at"])[2:]] == ["warm"] * 4


def test_a_dag_that_carries_its_pools_keeps_them_past_the_last_end(fast, planned) -> None:
    events = run_fleet(carry_pools=True)
    assert all(isinstance(e, TaskSuccessEvent) for e in events), events
    fast.set_speed(1)
    jobs = fast.state()["jobs"]
    last_two = sorted(jobs, key=lambda j: j["ended_at"])[-2:]
    assert all(j["warm_pool_status"] == "Available" for j in last_two), (
        last_two
    )  # for release_pools to decide
    assert idle_after_last_end(jobs) > 0


def test_an_endpoint_refusing_keep_alive_0_while_jobs_run_still_ends_their_pools(fast, planned) -> None:
    """Should AWS refuse keep-alive 0 on a running job: the poller takes the ValidationException as a refusal (the
    cities still succeed), the last jobs end with their pools, and the poller ends each once it is Available —
    long before its keep-alive (orchestration latency 600 s + 600 s) would have."""
    assert fast.refuse_keep_alive_while_running()
    events = run_fleet()
    assert all(isinstance(e, TaskSuccessEvent) for e in events), events
    fast.set_speed(1)
    assert fast.calls()["errors"].get("UpdateTrainingJob:ValidationException", 0) >= 1
    jobs = fast.state()["jobs"]
    keep_alive = 1200
    assert all(j["warm_pool_status"] in ("Terminated", "Reused") for j in jobs), jobs
    ended_idle = [j for j in jobs if j["warm_pool_status"] == "Terminated" and j["retained_seconds"] > 0]
    assert ended_idle, "no job kept a pool: the refusal changed nothing"
    for job in ended_idle:  # sweeps every 30 simulated s at 100×
        assert job["retained_seconds"] < keep_alive / 4, job
    assert idle_after_last_end(jobs) < keep_alive / 4
    assert [j["start"] for j in sorted(jobs, key=lambda j: j["created_at"])[2:]] == ["warm"] * 4
