"""FleetPoolReleaseOperator against the simulator over HTTP: a run's idle pools end at its end, other pools stay,
and with ``carry_pools`` a pool that outlives the next scheduled run's start is kept for it."""

from __future__ import annotations

import datetime as dt
from types import SimpleNamespace
from typing import Any

import pytest
from airflow.sdk import DAG

from sagemaker_fleet.fleetspec import load_fleet_spec
from sagemaker_fleet.hooks.fleet import SageMakerFleetHook
from sagemaker_fleet.jobs.request import Submission, compile_training_request
from sagemaker_fleet.operators.release import FleetPoolReleaseOperator, next_scheduled_run
from sim_fixtures import advance_clock_until

pytestmark = pytest.mark.integration
RUN_KEY = "20261129"
LOGICAL = dt.datetime(2026, 11, 29, tzinfo=dt.UTC)


def context(schedule: Any = None, run_type: str = "scheduled") -> dict[str, Any]:
    dag = DAG("fleet", schedule=schedule, start_date=dt.datetime(2026, 1, 1, tzinfo=dt.UTC), catchup=False)
    run = SimpleNamespace(
        run_id=f"{run_type}__2026-11-29T00:00:00+00:00",
        run_type=run_type,
        data_interval_start=LOGICAL,
        data_interval_end=LOGICAL,
    )
    return {"dag": dag, "dag_run": run, "logical_date": LOGICAL, "run_id": run.run_id, "params": {}}


@pytest.fixture(autouse=True)
def simulated_now(aws_sim, monkeypatch) -> None:
    """The operator measures expiries against the wall clock, which is AWS's; here the simulator's clock is."""
    monkeypatch.setattr(
        FleetPoolReleaseOperator,
        "_now",
        staticmethod(lambda: dt.datetime.fromtimestamp(aws_sim.now(), dt.UTC)),
    )


def pools(sim) -> dict[str, str | None]:
    return {job["name"]: job["warm_pool_status"] for job in sim.state()["jobs"]}


@pytest.fixture
def idle_run(aws_sim, fleets_dir):
    """seoul and tokyo of this run ended with a pool each (600 s and 3600 s), lima without one; another fleet's
    job of the same run key also keeps a pool."""
    fleet = load_fleet_spec(fleets_dir / "small.yaml")
    hook = SageMakerFleetHook()
    names = {}
    for city, keep_alive in (("seoul", 600), ("tokyo", 3600), ("lima", 0)):
        request = compile_training_request(
            fleet, fleet.city(city), Submission(city, RUN_KEY, 1, keep_alive_seconds=keep_alive)
        )
        aws_sim.set_work(60, job=request["TrainingJobName"])
        names[city] = hook.create_or_attach(request).job_name
    other = compile_training_request(
        fleet, fleet.city("oslo"), Submission("oslo", RUN_KEY, 1, keep_alive_seconds=900)
    )
    other["TrainingJobName"] = f"otherfleet-oslo-{RUN_KEY}"
    aws_sim.set_work(60, job=other["TrainingJobName"])
    aws_sim.boto3_client("sagemaker").create_training_job(**other)
    advance_clock_until(
        aws_sim,
        lambda: (
            pools(aws_sim)[names["seoul"]] == "Available"
            and pools(aws_sim)[other["TrainingJobName"]] == "Available"
        ),
    )
    return fleets_dir / "small.yaml", names, other["TrainingJobName"]


def test_the_runs_idle_pools_end_and_the_saving_is_reported(aws_sim, idle_run) -> None:
    spec_path, names, other = idle_run
    result = FleetPoolReleaseOperator(task_id="release_pools", spec_path=str(spec_path)).execute(context())
    after = pools(aws_sim)
    assert (after[names["seoul"]], after[names["tokyo"]]) == ("Terminated", "Terminated")
    assert after[other] == "Available"  # another fleet's pool is not this run's to end
    assert [p["job_name"] for p in result["ended"]] == sorted([names["seoul"], names["tokyo"]])
    assert result["kept"] == []
    left = {p["job_name"]: p["idle_seconds_left"] for p in result["ended"]}
    # each pool had what its keep-alive left since its job's end (the simulated clock moved a little since)
    assert 0 < left[names["seoul"]] <= 600
    assert 3000 < left[names["tokyo"]] <= 3600
    assert result["idle_seconds_saved"] == sum(left.values())
    # nothing left to end: a second run of the task (a retry) changes nothing
    again = FleetPoolReleaseOperator(task_id="release_pools", spec_path=str(spec_path)).execute(context())
    assert again == {"ended": [], "kept": [], "idle_seconds_saved": 0}


def test_carried_pools_are_those_alive_when_the_next_run_starts(aws_sim, idle_run, monkeypatch) -> None:
    spec_path, names, _ = idle_run
    now = dt.datetime.fromtimestamp(aws_sim.now(), dt.UTC)
    from sagemaker_fleet.operators import release as release_module

    # the next scheduled run is due in 30 minutes: tokyo's hour-long pool outlives that, seoul's 10 minutes not
    monkeypatch.setattr(release_module, "next_scheduled_run", lambda ctx, at: now + dt.timedelta(minutes=30))
    result = FleetPoolReleaseOperator(
        task_id="release_pools", spec_path=str(spec_path), carry_pools=True
    ).execute(context("@hourly"))
    assert [p["job_name"] for p in result["ended"]] == [names["seoul"]]
    assert result["kept"] == [names["tokyo"]]
    assert pools(aws_sim)[names["tokyo"]] == "Available"


def test_a_dry_run_ends_nothing(aws_sim, idle_run) -> None:
    spec_path, names, _ = idle_run
    ctx = {**context(), "params": {"dry_run": True}}
    result = FleetPoolReleaseOperator(
        task_id="release_pools", spec_path=str(spec_path), use_params=True
    ).execute(ctx)
    assert result["ended"] == []
    assert pools(aws_sim)[names["seoul"]] == "Available"


def test_the_next_scheduled_run_comes_from_the_dags_timetable() -> None:
    now = dt.datetime.now(dt.UTC)
    midnight = dt.datetime.combine(now.date(), dt.time(), dt.UTC)
    next_six = midnight + dt.timedelta(hours=6 * (now.hour // 6 + 1))
    assert next_scheduled_run(context("@daily"), now) == midnight + dt.timedelta(days=1)
    assert next_scheduled_run(context("0 */6 * * *"), now) == next_six
    assert next_scheduled_run(context(None), now) is None
