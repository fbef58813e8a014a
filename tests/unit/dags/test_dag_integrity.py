"""The shipped DAG folder passes the same one-line check users run in their CI, and has the planned shape."""

from __future__ import annotations

import socket
from pathlib import Path

import pytest

from sagemaker_fleet.dags.factory import build_fleet_dag, instance_pool_name, parse_time_groups
from sagemaker_fleet.spec import load_fleet_spec
from sagemaker_fleet.testing import assert_dag_folder_ok, check_dag_folder
from sagemaker_fleet.testing.dag_integrity import ParseTimeAccessError, no_parse_time_access

DAGS = Path(__file__).resolve().parents[3] / "dags"


def test_shipped_dag_folder_is_clean() -> None:
    report = assert_dag_folder_ok(DAGS)
    assert set(report.dag_ids) == {"city_training_daily", "city_training_weekly", "city_training_manual"}


def test_parse_guard_refuses_network() -> None:
    with no_parse_time_access(), pytest.raises(ParseTimeAccessError):
        socket.create_connection(("127.0.0.1", 9))


def test_a_dag_that_reads_a_connection_at_parse_time_is_reported(tmp_path: Path) -> None:
    (tmp_path / "bad_dag.py").write_text(
        "# a dag file\nfrom airflow.sdk import BaseHook\nBaseHook.get_connection('aws_default')\n", encoding="utf-8"
    )
    report = check_dag_folder(tmp_path)
    assert not report.ok
    assert any("connection lookup" in problem for problem in report.problems)


def test_a_broken_fleet_yaml_is_reported(tmp_path: Path) -> None:
    (tmp_path / "fleet.yaml").write_text("fleet: Bad\n", encoding="utf-8")
    report = check_dag_folder(tmp_path)
    assert any("fleet" in problem for problem in report.problems)


def test_daily_dag_shape_matches_the_parse_time_plan() -> None:
    spec_path = DAGS / "fleets" / "demo.yaml"
    dag = build_fleet_dag(spec_path, dag_id="t", schedule="@daily")
    groups = parse_time_groups(load_fleet_spec(spec_path))
    trains = [t for t in dag.tasks if t.task_id.startswith("train_")]
    plans = [t for t in dag.tasks if t.task_id.startswith("plan_")]
    assert len(trains) == len(plans) == len(groups)
    assert sorted(t.max_active_tis_per_dagrun for t in trains) == sorted(g.lanes for g in groups.values())
    for train in trains:
        assert train.map_index_template == "{{ task.city }}"
        assert train.pool.startswith("sagemaker_fleet__ml_")
        assert [a.name for a in train.outlets] == ["city-demand-models"]
    report = dag.get_task("cost_report")
    assert report.trigger_rule == "all_done"
    assert set(report.upstream_task_ids) == {t.task_id for t in trains}
    assert dag.max_active_runs == 1
    assert instance_pool_name("ml.m5.xlarge") == "sagemaker_fleet__ml_m5_xlarge"


def test_manual_dag_has_the_trigger_form() -> None:
    dag = build_fleet_dag(DAGS / "fleets" / "demo.yaml", dag_id="m", manual=True)
    assert {"cities", "spot", "instance_type", "dry_run"} <= set(dag.params.keys())
    assert len([t for t in dag.tasks if t.task_id.startswith("train_")]) >= len(
        parse_time_groups(load_fleet_spec(DAGS / "fleets" / "demo.yaml"))
    )


def test_a_dag_file_that_safe_mode_skips_is_reported(tmp_path: Path) -> None:
    spec = DAGS / "fleets" / "small.yaml"
    (tmp_path / "fleet_dag.py").write_text(
        f"from sagemaker_fleet.dags import build_fleet_dag\nd = build_fleet_dag({str(spec)!r}, dag_id='x')\n",
        encoding="utf-8",
    )
    report = check_dag_folder(tmp_path)
    assert any("safe mode skips" in problem for problem in report.problems)
