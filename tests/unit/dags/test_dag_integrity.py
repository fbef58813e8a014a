"""The shipped DAG folder passes the same one-line check users run in their CI, and has the planned shape."""

from __future__ import annotations

import socket
from pathlib import Path

import pytest

from sagemaker_fleet.dags.factory import (
    OUTCOME_TASK_ID,
    PLAN_TASK_ID,
    RELEASE_TASK_ID,
    build_fleet_dag,
    train_task_id,
)
from sagemaker_fleet.fleetspec import load_fleet_spec
from sagemaker_fleet.testing import assert_dag_folder_ok, check_dag_folder
from sagemaker_fleet.testing.dag_integrity import ParseTimeAccessError, no_parse_time_access
from sagemaker_fleet.triggers.city import FleetCityTrigger

DAGS = Path(__file__).resolve().parents[3] / "dags"


def test_shipped_dag_folder_is_clean() -> None:
    report = assert_dag_folder_ok(DAGS)
    assert set(report.dag_ids) == {"city_training_daily", "city_training_weekly", "city_training_manual"}


def test_parse_guard_refuses_network() -> None:
    with no_parse_time_access(), pytest.raises(ParseTimeAccessError):
        socket.create_connection(("127.0.0.1", 9))


def test_a_dag_that_reads_a_connection_at_parse_time_is_reported(tmp_path: Path) -> None:
    (tmp_path / "bad_dag.py").write_text(
        "# a dag file\nfrom airflow.sdk import BaseHook\nBaseHook.get_connection('aws_default')\n",
        encoding="utf-8",
    )
    report = check_dag_folder(tmp_path)
    assert not report.ok
    assert any("connection lookup" in problem for problem in report.problems)


def test_a_broken_fleet_yaml_is_reported(tmp_path: Path) -> None:
    (tmp_path / "fleet.yaml").write_text("fleet: Bad\n", encoding="utf-8")
    report = check_dag_folder(tmp_path)
    problem, no_dag = report.problems  # a folder without a DAG file is a problem of its own
    assert "no DAG found" in no_dag
    assert problem.startswith(f"{tmp_path / 'fleet.yaml'}: ")
    assert (
        "- fleet (line 1): 'Bad' is not valid" in problem
    )  # the field and its line, not just the file's name


def test_daily_dag_has_one_training_task_per_city_started_from_the_triggerer() -> None:
    spec_path = DAGS / "fleets" / "demo.yaml"
    spec = load_fleet_spec(spec_path)
    dag = build_fleet_dag(spec_path, dag_id="t", schedule="@daily")
    trains = [t for t in dag.tasks if t.task_id.startswith("train_")]
    assert sorted(t.task_id for t in trains) == sorted(train_task_id(c.name) for c in spec.cities)
    plan = dag.get_task(PLAN_TASK_ID)
    for train in trains:
        assert train.start_from_trigger
        assert train.start_trigger_args.trigger_cls == "sagemaker_fleet.triggers.city.FleetCityTrigger"
        kwargs = train.start_trigger_args.trigger_kwargs
        assert kwargs["city"] == train.city
        assert kwargs["plan_task_id"] == PLAN_TASK_ID
        # only what differs from the trigger's defaults travels (it is stored once per city): it ends the task
        # itself and takes the run key from the run
        assert "end_from_trigger" not in kwargs
        assert "run_key" not in kwargs
        assert FleetCityTrigger(**kwargs).end_from_trigger is True
        assert train.upstream_task_ids == {plan.task_id}
        assert [a.name for a in train.outlets] == ["citydemand-models"]
    # every city has had its turn: the run's idle pools are ended, then the report sees final idle time
    release = dag.get_task(RELEASE_TASK_ID)
    assert release.trigger_rule == "all_done"
    assert set(release.upstream_task_ids) == {t.task_id for t in trains}
    assert release.carry_pools is False
    report = dag.get_task("cost_report")
    assert report.trigger_rule == "all_done"
    assert report.upstream_task_ids == {RELEASE_TASK_ID}
    assert report.release_task_id == RELEASE_TASK_ID
    # the run's state: the outcome (the other leaf) fails it when a city did not train
    outcome = dag.get_task(OUTCOME_TASK_ID)
    assert outcome.trigger_rule == "all_done"
    assert set(outcome.upstream_task_ids) == {t.task_id for t in trains}
    assert outcome.city_task_ids == {c.name: train_task_id(c.name) for c in spec.cities}
    assert {t.task_id for t in dag.tasks if not t.downstream_task_ids} == {"cost_report", OUTCOME_TASK_ID}
    assert dag.max_active_runs == 1
    assert dag.max_active_tasks >= len(trains)  # every city waits deferred from the run's start


def test_pools_can_be_carried_to_the_next_scheduled_run() -> None:
    dag = build_fleet_dag(DAGS / "fleets" / "small.yaml", dag_id="c", schedule="@hourly", carry_pools=True)
    assert dag.get_task(RELEASE_TASK_ID).carry_pools is True


def test_training_tasks_can_start_on_workers_instead() -> None:
    dag = build_fleet_dag(DAGS / "fleets" / "small.yaml", dag_id="w", start_from_trigger=False)
    trains = [t for t in dag.tasks if t.task_id.startswith("train_")]
    assert trains
    assert not any(t.start_from_trigger for t in trains)


def test_city_task_ids_are_unique_and_valid() -> None:
    assert train_task_id("sao-paulo") == "train_sao_paulo"
    assert len({train_task_id(c) for c in ("a-b", "ab", "a-b-c", "a-bc")}) == 4


def test_manual_dag_has_the_trigger_form() -> None:
    spec = load_fleet_spec(DAGS / "fleets" / "demo.yaml")
    dag = build_fleet_dag(DAGS / "fleets" / "demo.yaml", dag_id="m", manual=True)
    assert set(dag.params.keys()) == {"cities", "spot", "instance_type", "dry_run"}
    params = {key: dag.params.get_param(key) for key in dag.params}
    # Airflow's UI renders an array with `examples` as a searchable multi-select of exactly the fleet's cities;
    # `null` in the type makes it optional (empty: the whole fleet); no enum, so a mistyped name sent through the
    # REST API gets the plan task's one-line refusal instead of the schema with every city in it
    cities = params["cities"]
    assert cities.value == []
    assert cities.schema["type"][:2] == ["null", "array"]
    assert cities.schema["examples"] == [c.name for c in spec.cities]
    assert "enum" not in cities.schema
    assert "enum" not in cities.schema["items"]
    assert (params["spot"].value, params["spot"].schema["type"]) == (True, "boolean")
    # the instance type is one of the spec's quota types, or none, shown as "fleet default" rather than `null`
    itype = params["instance_type"]
    assert itype.value is None
    assert itype.schema["enum"] == [None, *sorted(spec.quotas)]
    assert itype.schema["values_display"][None].startswith("fleet default")
    assert (params["dry_run"].value, params["dry_run"].schema["type"]) == (False, "boolean")
    # every field says what it changes; the capacity overrides are folded into a section of their own, the rest
    # stays in the section Airflow opens
    assert all(p.description for p in params.values())
    assert [p.schema.get("section") for p in params.values()] == [
        None,
        "Capacity overrides",
        "Capacity overrides",
        None,
    ]
    dag.params.validate()  # the defaults pass the form's own schema
    for picked in (None, ["not-a-city"], "lima,oslo"):  # cleared picker, REST API, CLI: the plan task decides
        dag.params["cities"] = picked
        dag.params.validate()
    train = next(t for t in dag.tasks if t.task_id.startswith("train_"))
    assert train.start_trigger_args.trigger_kwargs["use_params"] is True


def test_the_500_city_fleet_offers_every_city_in_the_picker() -> None:
    spec = load_fleet_spec(DAGS / "fleets" / "weekly.yaml")
    dag = build_fleet_dag(DAGS / "fleets" / "weekly.yaml", dag_id="w", manual=True)
    assert len(dag.params.get_param("cities").schema["examples"]) == len(spec.cities) >= 500


@pytest.mark.parametrize("manual", [False, True])
def test_a_fleet_dag_needs_no_airflow_pool(manual: bool) -> None:
    """A fresh Airflow has only ``default_pool``; a task in any other pool would wait for it silently. The
    dispatch keeps the instance quotas itself, in the triggerer."""
    dag = build_fleet_dag(DAGS / "fleets" / "small.yaml", dag_id="p", manual=manual)
    assert {(t.pool, t.pool_slots) for t in dag.tasks} == {("default_pool", 1)}


def test_a_dag_file_that_safe_mode_skips_is_reported(tmp_path: Path) -> None:
    spec = DAGS / "fleets" / "small.yaml"
    (tmp_path / "fleet_dag.py").write_text(
        f"from sagemaker_fleet.dags import build_fleet_dag\nd = build_fleet_dag({str(spec)!r}, dag_id='x')\n",
        encoding="utf-8",
    )
    report = check_dag_folder(tmp_path)
    assert any("safe mode skips" in problem for problem in report.problems)
