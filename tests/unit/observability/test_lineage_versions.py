"""OpenLineage on each provider pinned beside a supported Airflow (2.6.1 with 3.0.6, 2.16.0 with 3.2.1, 2.20 with
3.3): which tasks emit, and the parent a city's events name — never an ImportError."""

from __future__ import annotations

from openlineage_events import openlineage_to_file
from sagemaker_fleet import compat
from unit.observability.test_lineage_switch import deferred_try

TRAINING = "sagemaker_fleet.operators.training.FleetTrainingOperator"


def test_a_task_the_provider_is_told_not_to_emit_defers_without_lineage(monkeypatch, tmp_path) -> None:
    """``[openlineage] disabled_for_operators``: through the provider's emission policy where it has one, through
    the legacy check its listener makes where not (2.6.1, 2.16.0) — the same answer either way."""
    monkeypatch.setenv("AIRFLOW__OPENLINEAGE__DISABLED_FOR_OPERATORS", TRAINING)
    with openlineage_to_file(monkeypatch, tmp_path / "events.jsonl"):
        assert "lineage" not in deferred_try()
    monkeypatch.delenv("AIRFLOW__OPENLINEAGE__DISABLED_FOR_OPERATORS")
    with openlineage_to_file(monkeypatch, tmp_path / "events.jsonl"):
        assert deferred_try()["lineage"]["job_name"] == "d.train"


def test_the_parent_facet_names_the_root_where_the_provider_can(monkeypatch, tmp_path) -> None:
    """A provider whose parent facet takes a root (2.16+) gets the root the worker saw; 2.6.1's takes none and its
    listener names the DAG run as the root: so does the city's event."""
    ids = {
        "parent_run_id": "01938a4e-0000-7000-8000-000000000001",
        "parent_job_name": "d",
        "root_run_id": "01938a4e-0000-7000-8000-000000000002",
        "root_job_name": "upstream",
        "root_namespace": "other-namespace",
    }
    with openlineage_to_file(monkeypatch, tmp_path / "events.jsonl"):
        parent = compat.openlineage_parent_run_facet(ids, "sagemaker-fleet-tests")["parent"]
    assert (parent.run.runId, parent.job.name, parent.job.namespace) == (
        ids["parent_run_id"],
        "d",
        "sagemaker-fleet-tests",
    )
    if compat._parent_facet_takes_root():
        assert (parent.root.run.runId, parent.root.job.name) == (ids["root_run_id"], "upstream")
    else:
        assert (parent.root.run.runId, parent.root.job.name) == (ids["parent_run_id"], "d")
    names = {feature.name: feature for feature in compat.features()}
    assert (
        names["OpenLineage root parent run in a city's events"].available is compat._parent_facet_takes_root()
    )


def test_features_say_what_each_missing_one_degrades_to() -> None:
    table = compat.features()
    assert [f.name for f in table if not f.available and not f.instead] == []
    assert all(f.to_json()["feature"] == f.name for f in table)
    view = next(f for f in table if f.name.startswith("Fleet tab"))
    assert view.available is compat.has_external_views() is (compat.AIRFLOW_VERSION >= (3, 1, 0))
