"""A city's mapped task instance takes its run from its context on the worker and defers with it at once; the
trigger carries the run, not the DAG, and ends the task itself.

The training task no longer starts in the triggerer (Airflow 3.3 would send it the whole serialized DAG once per
city): these tests take the fleet DAG's own mapped ``train`` task, unmap it for one city as Airflow does on the
worker, and run its ``execute`` with the context a worker gives it.
"""

from __future__ import annotations

import datetime as dt
import json
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest
from airflow.serialization.serialized_objects import BaseSerialization

from sagemaker_fleet.compat import TaskDeferred
from sagemaker_fleet.contract import PLAN_TASK_ID, TRAIN_TASK_ID
from sagemaker_fleet.dags import build_fleet_dag
from sagemaker_fleet.failures import TriggerContextError
from sagemaker_fleet.fleetspec.load import load_fleet_spec
from sagemaker_fleet.triggers.city import FleetCityTrigger
from sagemaker_fleet.triggers.defaults import TriggerHandle

DEMO = Path(__file__).resolve().parents[3] / "dags" / "fleets" / "demo.yaml"
LOGICAL = dt.datetime(2026, 11, 29, tzinfo=dt.UTC)


def deferred(
    run_type: str = "scheduled",
    try_number: int = 2,
    *,
    manual: bool = False,
    conf: dict[str, Any] | None = None,
) -> tuple[Any, str]:
    """The trigger the fleet DAG's mapped task instance of the demo's first city defers to, and the city (``conf``:
    the run's conf, over the form's defaults)."""
    dag = build_fleet_dag(DEMO, dag_id="ctx", schedule=None if manual else "@daily", manual=manual)
    city = load_fleet_spec(DEMO).cities[0].name
    task = dag.get_task(TRAIN_TASK_ID).unmap({"city": city})
    run_id = f"{run_type}__2026-11-29T00:00:00+00:00"
    ti = SimpleNamespace(
        dag_id="ctx", run_id=run_id, try_number=try_number, task_id=TRAIN_TASK_ID, map_index=0
    )
    context = {
        "ti": ti,
        "run_id": run_id,
        "logical_date": LOGICAL,
        "dag_run": SimpleNamespace(run_id=run_id, run_type=run_type),
        "params": {"cities": [city], "spot": True, "instance_type": None, "dry_run": False, **(conf or {})},
    }
    with pytest.raises(TaskDeferred) as deferral:
        task.execute(context)
    assert deferral.value.method_name == "execute_complete"
    handle = deferral.value.trigger
    assert isinstance(handle, TriggerHandle)  # the worker never imports the trigger's module
    classpath, kwargs = handle.serialize()
    assert classpath == f"{FleetCityTrigger.__module__}.{FleetCityTrigger.__qualname__}"
    return FleetCityTrigger(**kwargs), city  # what the triggerer builds from the row


def test_the_run_comes_from_the_task_context_on_the_worker() -> None:
    trigger, city = deferred(try_number=3)
    assert trigger.city == city
    run = trigger.task_try
    assert trigger._run_key() == run.run_key == "20261129"
    assert run.try_id == "scheduled__2026-11-29T00:00:00+00:00/3"
    assert (run.dag_id, run.run_id) == ("ctx", "scheduled__2026-11-29T00:00:00+00:00")
    assert run.params is None  # the scheduled DAG has no form
    assert trigger.options.plan_task_id == PLAN_TASK_ID
    assert trigger.task_try.end_from_trigger is True  # the triggerer ends the task: no second worker start


def test_a_manual_run_is_keyed_by_its_run_id_and_carries_what_its_conf_changes() -> None:
    """The row carries the conf's known keys that differ from their defaults; not the cities, which the run's plan
    names (the trigger reads it), so the row does not grow with the number of cities picked."""
    trigger, city = deferred(
        run_type="manual", manual=True, conf={"spot": False, "instance_type": "ml.c5.xlarge"}
    )
    run = trigger.task_try
    assert trigger._run_key() != "20261129"
    assert run.params == {"spot": False, "instance_type": "ml.c5.xlarge"}
    assert trigger.options.use_params is True
    trigger, city = deferred(run_type="manual", manual=True)
    assert trigger.task_try.params is None  # the form's defaults and a city the plan names: nothing to carry


def test_the_trigger_carries_the_run_not_the_dag() -> None:
    """What the triggerer receives per city is the trigger's row: a few hundred bytes, whatever the fleet's size."""
    trigger, city = deferred()
    classpath, kwargs = trigger.serialize()
    assert classpath == "sagemaker_fleet.triggers.city.FleetCityTrigger"
    text = json.dumps(BaseSerialization.serialize(kwargs))
    assert len(text) < 1000, text
    assert "ctx" in text  # the run and the city, by name
    assert city in text
    assert "cost_report" not in text  # no other task of the DAG
    assert "release_pools" not in text
    again = FleetCityTrigger(**kwargs)
    assert again.task_try == trigger.task_try


def test_without_a_run_key_the_trigger_says_so() -> None:
    trigger = FleetCityTrigger(spec_path=str(DEMO), city="x")
    with pytest.raises(TriggerContextError, match="no run_key given"):
        trigger._run_key()
    assert issubclass(TriggerContextError, ValueError)
    assert "render_template_fields" not in vars(FleetCityTrigger)  # no context path left to take the run from
