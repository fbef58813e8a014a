"""Every task of a fleet DAG without the trigger form keeps the conf contract, against the simulator over HTTP.

A scheduled fleet DAG (no ``manual=True``) ignored a run's conf, ``dry_run`` included: ``airflow dags test DAG
DATE -c '{"dry_run": true, "cities": ["lima"]}'`` trained the whole fleet. It now reads the same keys as the manual
DAG: a dry run plans, notes and launches nothing; ``cities`` picks the cities; an unknown key fails the plan task
without retries, and the run's other tasks launch, end and report nothing. The tasks here are the DAG's own,
executed with the context a worker gives them; the city's trigger is the one the task defers to, run in line.
"""

from __future__ import annotations

import asyncio
import datetime as dt
import json
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest

from sagemaker_fleet.compat import AirflowFailException, AirflowSkipException, TaskDeferred
from sagemaker_fleet.contract import PLAN_TASK_ID, RELEASE_TASK_ID, REPORT_TASK_ID, TRAIN_TASK_ID
from sagemaker_fleet.dags import build_fleet_dag
from sagemaker_fleet.failures import RefusedConfError
from sagemaker_fleet.operators import plan as plan_module
from sagemaker_fleet.triggers.city import FleetCityTrigger

pytestmark = pytest.mark.integration
SMALL = Path(__file__).resolve().parents[3] / "dags" / "fleets" / "small.yaml"
LOGICAL = dt.datetime(2026, 11, 29, tzinfo=dt.UTC)


class TaskInstance:
    """What the tasks read of their task instance: its ids and the run's XComs (one store for the run)."""

    def __init__(self, store: dict[tuple[str, str], Any], task_id: str) -> None:
        self.dag_id = "conf_daily"
        self.run_id = "manual__2026-11-29T00:00:00+00:00"
        self.task_id = task_id
        self.try_number = 1
        self.map_index = -1
        self.store = store

    def xcom_push(self, key: str, value: Any) -> None:
        self.store[(self.task_id, key)] = value

    def xcom_pull(self, task_ids: str, key: str = "return_value") -> Any:
        return self.store.get((task_ids, key))


class Run:
    """One manual run of the scheduled DAG with ``conf``, as ``airflow dags trigger -c`` or ``dags test -c`` make
    it: Airflow hands a DAG without params the conf as its params."""

    def __init__(self, conf: dict[str, Any]) -> None:
        self.dag = build_fleet_dag(SMALL, dag_id="conf_daily", schedule="@daily")
        self.conf = conf
        self.xcoms: dict[tuple[str, str], Any] = {}
        self.notes: list[list[str]] = []

    def context(self, task_id: str) -> dict[str, Any]:
        ti = TaskInstance(self.xcoms, task_id)
        dag_run = SimpleNamespace(
            dag_id=ti.dag_id, run_id=ti.run_id, run_type="manual", conf=self.conf, logical_date=LOGICAL
        )
        return {
            "ti": ti,
            "dag": self.dag,
            "dag_run": dag_run,
            "run_id": ti.run_id,
            "logical_date": LOGICAL,
            "params": dict(self.conf),
        }

    def plan(self) -> Any:
        return self.dag.get_task(PLAN_TASK_ID).execute(self.context(PLAN_TASK_ID))

    def train(self, city: str) -> Any:
        """The city's task: its execute defers; the trigger it defers to runs here, to its event."""
        task = self.dag.get_task(TRAIN_TASK_ID).unmap({"city": city})
        with pytest.raises(TaskDeferred) as deferral:
            task.execute(self.context(TRAIN_TASK_ID))
        _, kwargs = deferral.value.trigger.serialize()
        kwargs["task_try"] = {
            **kwargs["task_try"],
            "end_from_trigger": False,
            "plan": self.xcoms.get((PLAN_TASK_ID, "plan")),
        }
        trigger = FleetCityTrigger(**kwargs)

        async def first() -> Any:
            async for event in trigger.run():
                return event.payload
            return None

        return kwargs, asyncio.run(asyncio.wait_for(first(), timeout=120))

    def release(self) -> Any:
        return self.dag.get_task(RELEASE_TASK_ID).execute(self.context(RELEASE_TASK_ID))

    def report(self) -> Any:
        return self.dag.get_task(REPORT_TASK_ID).execute(self.context(REPORT_TASK_ID))


@pytest.fixture
def run_with(aws_sim, monkeypatch):
    """A run of the scheduled DAG with a conf; the run notes it writes are kept here (no api-server)."""
    made: list[Run] = []

    def make(conf: dict[str, Any]) -> Run:
        run = Run(conf)
        monkeypatch.setattr(
            plan_module, "write_run_note", lambda context, lines, *_: run.notes.append(list(lines))
        )
        made.append(run)
        return run

    return make


def jobs(sim) -> list[str]:
    return [job["name"] for job in sim.state()["jobs"]]


def test_a_dry_run_of_one_city_on_the_scheduled_dag_plans_it_and_launches_nothing(aws_sim, run_with) -> None:
    run = run_with({"dry_run": True, "cities": ["lima"]})
    assert run.plan() == ["lima"]  # the plan task maps the training task over the one city
    assert [job["city"] for job in run.xcoms[(PLAN_TASK_ID, "plan")]["jobs"]] == ["lima"]
    (note,) = run.notes
    assert note[0].startswith("- Dry run, nothing launched: expected cost $")
    assert note[1] == "- Asked: 1 of 12 cities (lima) · spot on · instance type: fleet default · dry run"
    kwargs, event = run.train("lima")
    assert kwargs["task_try"]["params"] == {"dry_run": True}  # the plan names the city; only the known keys
    assert (event["status"], event["message"]) == ("skipped", "dry run: nothing launched")
    assert run.release() == {"ended": [], "kept": [], "idle_seconds_saved": 0}
    report = run.report()
    assert report["dry_run"] is True
    assert report["estimate"]["jobs"] == 1
    assert jobs(aws_sim) == []


def test_cities_in_the_conf_pick_the_run_s_cities_on_the_scheduled_dag(aws_sim, run_with) -> None:
    run = run_with({"cities": "oslo, lima", "dry_run": True})
    assert sorted(run.plan()) == ["lima", "oslo"]
    assert jobs(aws_sim) == []


def test_a_scheduled_run_without_conf_plans_the_whole_fleet_and_writes_no_note(aws_sim, run_with) -> None:
    run = run_with({})
    assert len(run.plan()) == 12
    assert run.notes == []  # as before: a scheduled run has no note


@pytest.mark.parametrize(
    ("conf", "named"),
    [
        ({"citys": ["lima"], "dry_run": True}, "params.citys: unknown key; did you mean `cities`?"),
        ({"role_arn": "arn:aws:iam::111122223333:role/Other"}, "params.role_arn: unknown key"),
        ({"image_uri": "evil:latest"}, "params.image_uri: unknown key"),
        ({"output_s3_uri": "s3://elsewhere/x"}, "params.output_s3_uri: unknown key"),
        ({"job": {"RoleArn": "x"}}, "params.job: unknown key"),
        ({"cities": " , "}, "params.cities: a blank name"),
        ({"cities": ["lima", "lima"]}, "params.cities: named more than once: 'lima'"),
        ({"dry_run": "false"}, "params.dry_run: 'false' is not true or false"),
        ({"cities": ["atlantis"]}, "params.cities: unknown city 'atlantis'; pick cities of fleet small"),
    ],
)
def test_a_conf_that_breaks_the_contract_fails_the_run_before_any_job(
    aws_sim, run_with, conf: dict[str, Any], named: str
) -> None:
    run = run_with(conf)
    with pytest.raises(AirflowFailException) as refused:  # no retry: the same conf would be refused again
        run.plan()
    assert named in str(refused.value)
    assert str(refused.value).startswith("refused: ")
    (note,) = run.notes
    assert note[0].startswith("- Refused: ")
    assert named in note[0]
    # the other tasks of the run: the training task never starts (its upstream failed); were it run, it refuses
    # a conf that breaks the contract before deferring, and its trigger one that the fleet cannot do
    if "unknown city" not in named:
        task = run.dag.get_task(TRAIN_TASK_ID).unmap({"city": "lima"})
        with pytest.raises(RefusedConfError, match=named.split(": ", 1)[0]):
            task.execute(run.context(TRAIN_TASK_ID))
    assert run.release() == {"ended": [], "kept": [], "idle_seconds_saved": 0}
    with pytest.raises(
        AirflowSkipException, match="nothing to report: the plan task refused this run's conf"
    ):
        run.report()
    assert jobs(aws_sim) == []


def test_a_huge_conf_is_refused_by_its_size_and_never_echoed(aws_sim, run_with) -> None:
    """The review's 200,000 unknown cities (4.5 MB): refused in a line, in the failure and the note alike."""
    cities = [f"nowhere-{i:06d}" for i in range(200_000)]
    run = run_with({"cities": cities})
    with pytest.raises(AirflowFailException) as refused:
        run.plan()
    assert "(CONF_BYTES_MAX)" in str(refused.value)
    assert len(str(refused.value)) < 400
    assert "nowhere" not in json.dumps(run.notes)
    task = run.dag.get_task(TRAIN_TASK_ID).unmap({"city": "lima"})
    with pytest.raises(RefusedConfError):
        task.execute(run.context(TRAIN_TASK_ID))
    assert jobs(aws_sim) == []


def test_the_runs_own_conf_counts_where_conf_does_not_override_params(aws_sim, run_with) -> None:
    """With ``[core] dag_run_conf_overrides_params = False`` Airflow hands the tasks no conf in their params; the
    run's conf is read from the run itself, so its dry run is still one."""
    run = run_with({"dry_run": True, "cities": ["lima"]})
    original = run.context

    def without_params(task_id: str) -> dict[str, Any]:
        return {**original(task_id), "params": {}}

    run.context = without_params  # type: ignore[method-assign]
    assert run.plan() == ["lima"]
    _, event = run.train("lima")
    assert event["status"] == "skipped"
    assert jobs(aws_sim) == []
