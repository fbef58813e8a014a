"""Lineage is on only with the OpenLineage provider installed and set to emit; otherwise a city's task defers with
the very same trigger arguments and nothing of OpenLineage is imported."""

from __future__ import annotations

import datetime as dt
import sys
from types import SimpleNamespace

import pytest

from openlineage_events import openlineage_to_file
from sagemaker_fleet.compat import TaskDeferred
from sagemaker_fleet.observability import lineage
from sagemaker_fleet.operators.training import FleetTrainingOperator

RUN_ID = "scheduled__2026-11-29T00:00:00+00:00"
LOGICAL = dt.datetime(2026, 11, 29, tzinfo=dt.UTC)


def deferred_try() -> dict:
    """The task try's settings (``TaskTry``) in the row of the trigger the city's task defers to."""
    operator = FleetTrainingOperator(task_id="train", spec_path="/x/fleet.yaml", city="oslo")
    dag_run = SimpleNamespace(logical_date=LOGICAL, run_after=LOGICAL, clear_number=0, conf={}, run_id=RUN_ID)
    ti = SimpleNamespace(
        dag_id="d", task_id="train", run_id=RUN_ID, try_number=2, map_index=7, dag_run=dag_run
    )
    ti.get_template_context = lambda: {"dag_run": dag_run}
    context = {"ti": ti, "run_id": RUN_ID, "dag_run": dag_run, "params": {}, "logical_date": LOGICAL}
    with pytest.raises(TaskDeferred) as deferral:
        operator.execute(context)
    return deferral.value.trigger.serialize()[1]["task_try"]


def test_without_a_transport_the_trigger_gets_no_lineage(monkeypatch) -> None:
    monkeypatch.delenv("AIRFLOW__OPENLINEAGE__TRANSPORT", raising=False)
    assert "lineage" not in deferred_try()


def test_with_the_provider_on_the_trigger_gets_the_tries_lineage_ids(monkeypatch, tmp_path) -> None:
    from airflow.providers.openlineage.plugins.adapter import OpenLineageAdapter

    with openlineage_to_file(monkeypatch, tmp_path / "events.jsonl"):
        ids = deferred_try()["lineage"]
        expected = OpenLineageAdapter.build_task_instance_run_id(
            dag_id="d", task_id="train", try_number=2, logical_date=LOGICAL, map_index=7
        )
    assert ids["run_id"] == expected
    assert (ids["job_name"], ids["parent_job_name"], ids["namespace"]) == (
        "d.train",
        "d",
        "sagemaker-fleet-tests",
    )


def test_without_the_provider_installed_nothing_is_imported(monkeypatch, tmp_path) -> None:
    with openlineage_to_file(monkeypatch, tmp_path / "events.jsonl"), monkeypatch.context() as without:
        for name in [
            m for m in sys.modules if m.startswith(("airflow.providers.openlineage", "openlineage"))
        ]:
            without.delitem(sys.modules, name)
        without.setitem(sys.modules, "airflow.providers.openlineage", None)
        without.setitem(sys.modules, "openlineage", None)
        assert lineage.enabled() is False
        assert "lineage" not in deferred_try()
        assert not [m for m in sys.modules if m.startswith("openlineage.") and sys.modules[m] is not None]
