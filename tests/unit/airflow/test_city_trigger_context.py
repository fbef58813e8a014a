"""A city trigger started from the triggerer takes its run from the task's context and lets go of the DAG.

Airflow's triggerer gives every start-from-trigger task a context built from its own deserialized copy of the
whole DAG. These tests build that context the triggerer's way (``TriggerRunner.create_runtime_ti`` on the
serialized DAG of a real fleet DAG) and hand it to the trigger the triggerer's way.
"""

from __future__ import annotations

import datetime as dt
import gc
import uuid
import weakref
from pathlib import Path

import pytest
from airflow.executors.workloads import TaskInstanceDTO
from airflow.jobs.triggerer_job_runner import TriggerRunner
from airflow.serialization.serialized_objects import BaseSerialization, DagSerialization

from sagemaker_fleet.dags import build_fleet_dag
from sagemaker_fleet.fleetspec.load import load_fleet_spec
from sagemaker_fleet.triggers.city import FleetCityTrigger

DEMO = Path(__file__).resolve().parents[3] / "dags" / "fleets" / "demo.yaml"
LOGICAL = dt.datetime(2026, 11, 29, tzinfo=dt.UTC)


def runtime_ti(run_type: str = "scheduled", try_number: int = 2):
    dag = build_fleet_dag(DEMO, dag_id="ctx", schedule="@daily")
    city = load_fleet_spec(DEMO).cities[0].name
    task_id = f"train_{city}"
    run_id = f"{run_type}__2026-11-29T00:00:00+00:00"
    ti = TaskInstanceDTO(
        id=uuid.uuid4(),
        task_id=task_id,
        dag_id="ctx",
        run_id=run_id,
        try_number=try_number,
        dag_version_id=uuid.uuid4(),
        pool_slots=1,
        priority_weight=1,
    )
    dag_run = {
        "dag_id": "ctx",
        "run_id": run_id,
        "logical_date": LOGICAL,
        "data_interval_start": LOGICAL,
        "data_interval_end": LOGICAL + dt.timedelta(days=1),
        "run_after": LOGICAL,
        "start_date": LOGICAL,
        "end_date": None,
        "run_type": run_type,
        "state": "running",
        "conf": {},
        "consumed_asset_events": [],
        "partition_key": None,
    }
    rti = TriggerRunner.create_runtime_ti(ti, DagSerialization.to_dict(dag), dag_run)
    return rti, city


def started(rti, city: str) -> FleetCityTrigger:
    """The triggerer's steps: build the trigger from the task's start kwargs, attach the task instance, render."""
    kwargs = BaseSerialization.deserialize(rti.task.start_trigger_args.trigger_kwargs)
    assert kwargs["city"] == city
    trigger = FleetCityTrigger(**kwargs)
    context = rti.get_template_context()
    trigger.task_instance = rti
    trigger.render_template_fields(context=context)
    return trigger, context


def test_the_run_comes_from_the_context() -> None:
    rti, city = runtime_ti(try_number=3)
    trigger, _ = started(rti, city)
    run = trigger._run_info()
    assert run.run_key == "20261129"
    assert run.try_id == "scheduled__2026-11-29T00:00:00+00:00/3"
    assert (run.dag_id, run.run_id) == ("ctx", "scheduled__2026-11-29T00:00:00+00:00")
    assert trigger.task_id == f"train_{city}"
    assert (trigger.task_instance.task_id, trigger.task_instance.try_number) == (f"train_{city}", 3)


def test_the_dag_copy_is_freed_once_the_trigger_started() -> None:
    rti, city = runtime_ti()
    dag = weakref.ref(rti.task.dag)
    task = weakref.ref(rti.task)
    trigger, context = started(rti, city)  # the triggerer keeps `context` for the trigger's life
    del rti
    gc.collect()
    assert task() is None, "the trigger still reaches the triggerer's copy of the task"
    assert dag() is None, "the trigger still reaches the triggerer's copy of the DAG"
    assert trigger._run_info().run_key == "20261129"  # what it needs was taken before
    assert not context


def test_a_manual_run_is_keyed_by_its_run_id() -> None:
    rti, city = runtime_ti(run_type="manual")
    trigger, _ = started(rti, city)
    assert trigger._run_info().run_key != "20261129"


def test_without_a_context_or_run_key_the_trigger_says_so() -> None:
    trigger = FleetCityTrigger(spec_path=str(DEMO), city="x")
    with pytest.raises(ValueError, match="no run_key given"):
        trigger._run_info()
