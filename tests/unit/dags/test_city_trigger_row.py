"""A fleet DAG's city task defers with the same trigger row, whoever builds it: the whole DAG, or the light DAG a
worker builds for one city's task. The rows below were captured from the factory before its settings were carried
whole (issue 47): a trigger stored by a DAG of before still reads, and a DAG of now stores the same row."""

from __future__ import annotations

import datetime as dt
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest

from sagemaker_fleet.compat import TaskDeferred
from sagemaker_fleet.contract import TRAIN_TASK_ID
from sagemaker_fleet.dags import ConnectionConfig, DispatchConfig, build_fleet_dag

DEMO = str(Path(__file__).resolve().parents[3] / "dags" / "fleets" / "demo.yaml")
RUN_ID = "scheduled__2026-12-05T00:00:00+00:00"
CLASSPATH = "sagemaker_fleet.triggers.city.FleetCityTrigger"

#: build_fleet_dag(DEMO, dag_id="demo_rows") with no groups, the city oslo.
DEFAULT_ROW: dict[str, Any] = {
    "spec_path": DEMO,
    "city": "oslo",
    "task_try": {
        "run_key": "20261205",
        "try_id": f"{RUN_ID}/1",
        "dag_id": "demo_rows",
        "run_id": RUN_ID,
    },
    "options": {"use_params": True, "plan_task_id": "plan"},
    "aws_conn_id": "aws_default",
    "region_name": None,
    "verify": None,
    "botocore_config": None,
}
#: The same with a connection and every dispatch setting given.
CONFIGURED_ROW: dict[str, Any] = {
    **DEFAULT_ROW,
    "options": {"use_params": True, "plan_task_id": "plan", "carry_pools": True},
    "timing": {"poll_interval": 7.0, "capacity_retry_seconds": 9.0},
    "aws_conn_id": "fleet_aws",
}
CONFIGURED = {
    "connections": ConnectionConfig(aws_conn_id="fleet_aws"),
    "dispatch": DispatchConfig(poll_interval=7, capacity_retry_seconds=9, carry_pools=True),
}


def deferred_row(dag: Any, city: str) -> tuple[str, dict[str, Any]]:
    """What the DAG's training task, mapped to ``city``, defers with in a scheduled run."""
    operator = dag.get_task(TRAIN_TASK_ID).unmap({"city": city})
    ti = SimpleNamespace(dag_id=dag.dag_id, run_id=RUN_ID, try_number=1)
    dag_run = SimpleNamespace(dag_id=dag.dag_id, run_id=RUN_ID, run_type="scheduled", conf={})
    logical_date = dt.datetime(2026, 12, 5, tzinfo=dt.UTC)
    context = {"ti": ti, "dag_run": dag_run, "run_id": RUN_ID, "logical_date": logical_date, "params": {}}
    with pytest.raises(TaskDeferred) as deferral:
        operator.execute(context)
    classpath, kwargs = deferral.value.trigger.serialize()
    return classpath, kwargs


@pytest.mark.parametrize(
    ("groups", "row"), [({}, DEFAULT_ROW), (CONFIGURED, CONFIGURED_ROW)], ids=["defaults", "configured"]
)
@pytest.mark.parametrize("light", [False, True], ids=["whole-dag", "city-task-dag"])
def test_the_city_task_defers_with_the_row_of_before(
    groups: dict[str, Any], row: dict[str, Any], light: bool, monkeypatch: pytest.MonkeyPatch
) -> None:
    if light:  # a worker that parses the file to run one city's task instance
        monkeypatch.setenv("_AIRFLOW_PARSING_CONTEXT_DAG_ID", "demo_rows")
        monkeypatch.setenv("_AIRFLOW_PARSING_CONTEXT_TASK_ID", TRAIN_TASK_ID)
    dag = build_fleet_dag(DEMO, dag_id="demo_rows", **groups)
    assert deferred_row(dag, "oslo") == (CLASSPATH, row)
