"""The shipped DAG folder passes the same one-line check users run in their CI, and has the planned shape."""

from __future__ import annotations

import json
import socket
from pathlib import Path

import pytest
from airflow.sdk import XComArg
from airflow.sdk.definitions.mappedoperator import MappedOperator

from sagemaker_fleet.compat import base_hook, dag_serialization
from sagemaker_fleet.contract import (
    OUTCOME_TASK_ID,
    PLAN_TASK_ID,
    REGISTER_TASK_ID,
    RELEASE_TASK_ID,
    TRAIN_TASK_ID,
)
from sagemaker_fleet.dags import DispatchConfig
from sagemaker_fleet.dags.factory import build_fleet_dag
from sagemaker_fleet.fleetspec import load_fleet_spec
from sagemaker_fleet.operators.cities import FleetCitiesOperator
from sagemaker_fleet.operators.training import FleetTrainingOperator
from sagemaker_fleet.testing import assert_dag_folder_ok, check_dag_folder
from sagemaker_fleet.testing.dag_integrity import ParseTimeAccessError, no_parse_time_access

DAGS = Path(__file__).resolve().parents[3] / "dags"


def test_shipped_dag_folder_is_clean() -> None:
    report = assert_dag_folder_ok(DAGS)
    assert set(report.dag_ids) == {
        "city_training_daily",
        "city_training_weekly",
        "city_training_manual",
        "city_models_changed",
    }


def test_parse_guard_refuses_network() -> None:
    with no_parse_time_access(), pytest.raises(ParseTimeAccessError):
        socket.create_connection(("127.0.0.1", 9))


def test_a_dag_that_reads_a_connection_at_parse_time_is_reported(tmp_path: Path) -> None:
    hook = (
        base_hook()
    )  # what a DAG file imports on this Airflow (airflow.sdk from 3.1, airflow.hooks.base on 3.0)
    (tmp_path / "bad_dag.py").write_text(
        f"# a dag file\nfrom {hook.__module__} import BaseHook\nBaseHook.get_connection('aws_default')\n",
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


def test_daily_dag_trains_every_city_in_one_task_mapped_over_the_plans_order() -> None:
    spec_path = DAGS / "fleets" / "demo.yaml"
    spec = load_fleet_spec(spec_path)
    dag = build_fleet_dag(spec_path, dag_id="t", schedule="@daily")
    assert set(dag.task_ids) == {PLAN_TASK_ID, TRAIN_TASK_ID, RELEASE_TASK_ID, "cost_report", OUTCOME_TASK_ID}
    plan = dag.get_task(PLAN_TASK_ID)
    assert plan.chunks == 1
    train = dag.get_task(TRAIN_TASK_ID)
    # one mapped task over the plan's return value (the run's cities, first to start first), named by city
    assert isinstance(train, MappedOperator)
    assert train.operator_class is FleetTrainingOperator
    expand = train.expand_input.value
    assert set(expand) == {"city"}
    assert isinstance(expand["city"], XComArg)
    assert expand["city"].operator is plan
    assert expand["city"].key == "return_value"
    assert train.map_index_template == "{{ task.city }}"
    assert train.upstream_task_ids == {PLAN_TASK_ID}
    kwargs = train.partial_kwargs
    assert kwargs["spec_path"] == str(spec_path)
    assert kwargs["options"].plan_task_id == PLAN_TASK_ID
    # a DAG without the form reads the run's conf as the manual DAG does (sagemaker_fleet.fleetspec.runconf)
    assert kwargs["options"].use_params is True
    assert (plan.use_params, plan.run_note) == (True, False)
    assert dag.params == {} or not dict(dag.params)  # and offers no form
    assert "start_from_trigger" not in kwargs
    assert not train.start_from_trigger
    # the training tasks end in the triggerer, where Airflow registers no asset event: the report emits the models
    # asset's event, through an alias (none when no city trained)
    assert train.outlets == []
    # each city's instance defers at once and is ended from the triggerer
    city = train.unmap({"city": spec.cities[0].name})
    assert isinstance(city, FleetTrainingOperator)
    assert city.deferrable is True
    assert not city.start_from_trigger
    assert city.city == spec.cities[0].name
    # every city has had its turn: the run's idle pools are ended, then the report sees final idle time
    release = dag.get_task(RELEASE_TASK_ID)
    assert release.trigger_rule == "all_done"
    assert set(release.upstream_task_ids) == {TRAIN_TASK_ID}
    assert release.carry_pools is False
    report = dag.get_task("cost_report")
    assert report.trigger_rule == "all_done"
    assert report.upstream_task_ids == {RELEASE_TASK_ID}
    assert report.release_task_id == RELEASE_TASK_ID
    assert [(type(o).__name__, o.name) for o in report.outlets] == [
        ("Asset", "citydemand-reports"),
        ("AssetAlias", "citydemand-trained-models"),
    ]
    # the models asset the alias resolves to is declared (Airflow keeps it active: no "inactive AssetModel")
    assert [(type(i).__name__, i.name, i.uri) for i in report.inlets] == [
        ("Asset", "citydemand-models", f"{spec.output_s3_uri.rstrip('/')}/models")  # Airflow drops the last /
    ]
    # the run's state: the outcome (the other leaf) fails it when a city did not train
    outcome = dag.get_task(OUTCOME_TASK_ID)
    assert outcome.trigger_rule == "all_done"
    assert set(outcome.upstream_task_ids) == {TRAIN_TASK_ID}
    assert (outcome.chunks, outcome.plan_task_id) == (1, PLAN_TASK_ID)
    assert {t.task_id for t in dag.tasks if not t.downstream_task_ids} == {"cost_report", OUTCOME_TASK_ID}
    assert dag.max_active_runs == 1
    assert dag.max_active_tasks >= len(spec.cities)  # every city waits deferred from the run's start


def fleet_file(tmp_path: Path, cities: int) -> Path:
    path = tmp_path / f"fleet{cities}.yaml"
    path.write_text(
        (DAGS / "fleets" / "small.yaml").read_text(encoding="utf-8").split("\ncities:\n")[0]
        + "\ncities:\n"
        + "".join(
            f'  - {{name: c{i:04d}, train_s3_uri: "s3://acme-ml/data/c{i:04d}/"}}\n' for i in range(cities)
        ),
        encoding="utf-8",
    )
    assert len(load_fleet_spec(path).cities) == cities
    return path


def test_the_dags_tasks_do_not_grow_with_the_fleet(tmp_path: Path) -> None:
    small = build_fleet_dag(fleet_file(tmp_path, 3), dag_id="s")
    large = build_fleet_dag(fleet_file(tmp_path, 1500), dag_id="l")
    assert set(large.task_ids) == set(small.task_ids) | {"cities_2", "train_2"}
    assert len(small.tasks) == 5
    plan = large.get_task(PLAN_TASK_ID)
    assert plan.chunks == 2
    # past a thousand (Airflow's max_map_length is 1,024): cities_2 hands the plan's XCom cities_2 to train_2
    cities = large.get_task("cities_2")
    assert isinstance(cities, FleetCitiesOperator)
    assert (cities.plan_task_id, cities.chunk) == (PLAN_TASK_ID, 1)
    assert cities.upstream_task_ids == {PLAN_TASK_ID}
    second = large.get_task("train_2")
    assert isinstance(second, MappedOperator)
    assert second.expand_input.value["city"].operator is cities
    assert second.map_index_template == "{{ task.city }}"
    assert second.upstream_task_ids == {PLAN_TASK_ID, "cities_2"}
    assert large.get_task(TRAIN_TASK_ID).expand_input.value["city"].operator is plan
    trains = {TRAIN_TASK_ID, "train_2"}
    assert set(large.get_task(RELEASE_TASK_ID).upstream_task_ids) == trains
    outcome = large.get_task(OUTCOME_TASK_ID)
    assert set(outcome.upstream_task_ids) == trains
    assert outcome.chunks == 2
    assert large.max_active_tasks >= 1500


@pytest.mark.parametrize("manual", [False, True])
def test_no_task_starts_from_the_trigger_and_no_trigger_kwargs_are_serialized(
    tmp_path: Path, manual: bool
) -> None:
    """Airflow 3.3 ships the whole serialized DAG to the triggerer for every start-from-trigger task; the fleet's
    tasks defer from workers, so the serialized DAG carries no trigger."""
    for cities in (3, 1500):
        dag = build_fleet_dag(fleet_file(tmp_path, cities), dag_id=f"d{cities}", manual=manual)
        assert not any(t.start_from_trigger for t in dag.tasks)
        assert all(t.start_trigger_args is None for t in dag.tasks)
        serialized = dag_serialization().to_dict(dag)
        text = json.dumps(serialized)
        assert "FleetCityTrigger" not in text
        assert "trigger_kwargs" not in text
        assert not any(t["__var"].get("start_from_trigger") for t in serialized["dag"]["tasks"])
        assert not any(t["__var"].get("start_trigger_args") for t in serialized["dag"]["tasks"])


def test_the_serialized_dag_does_not_grow_with_the_fleet(tmp_path: Path) -> None:
    """No city is named in the scheduled DAG (the manual one's form lists them, in every task's params): 1,500
    cities cost two tasks more than 3, not a task each."""
    small, large = (
        json.dumps(dag_serialization().to_dict(build_fleet_dag(fleet_file(tmp_path, n), dag_id="d")))
        for n in (3, 1500)
    )
    assert "c0002" not in small
    assert "c0002" not in large
    assert len(large) < 1.5 * len(small)


def test_pools_can_be_carried_to_the_next_scheduled_run() -> None:
    dag = build_fleet_dag(
        DAGS / "fleets" / "small.yaml",
        dag_id="c",
        schedule="@hourly",
        dispatch=DispatchConfig(carry_pools=True),
    )
    assert dag.get_task(RELEASE_TASK_ID).carry_pools is True


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
    train = dag.get_task(TRAIN_TASK_ID)
    assert train.partial_kwargs["options"].use_params is True
    assert dag.get_task(PLAN_TASK_ID).use_params is True
    assert dag.get_task(PLAN_TASK_ID).run_note is True


def test_the_form_offers_exactly_the_keys_every_fleet_dag_takes_and_bounds_the_cities() -> None:
    """A field added to the form without the conf contract (or the other way round) fails here: the plan task
    would refuse the form's own key as unknown."""
    from airflow.exceptions import ParamValidationError  # the SDK's own from Airflow 3.1, the same class

    from sagemaker_fleet.fleetspec.limits import CITY_NAME_MAX
    from sagemaker_fleet.fleetspec.runconf import CONF_KEYS

    spec = load_fleet_spec(DAGS / "fleets" / "small.yaml")
    dag = build_fleet_dag(DAGS / "fleets" / "small.yaml", dag_id="m", manual=True)
    assert tuple(dag.params) == CONF_KEYS
    names = [city.name for city in spec.cities]
    dag.params["cities"] = names
    dag.params.validate()  # the whole fleet picked
    dag.params["cities"] = ", ".join(names)
    dag.params.validate()
    for too_many in ([*names, "one-more"], ["x" * (CITY_NAME_MAX + 1)], ", ".join(names) + ", one-more"):
        with pytest.raises(ParamValidationError, match="param cities"):  # raised as the value is set
            dag.params["cities"] = too_many


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


def test_a_spec_with_register_adds_one_task_after_the_cities(tmp_path: Path) -> None:
    """The models go through the gate in one task, whatever the number of cities, beside the pools' release: the
    report shows its decisions and the outcome fails the run when it did not end done."""
    base = fleet_file(tmp_path, 1500).read_text(encoding="utf-8").split("\ncities:\n")
    gated = tmp_path / "gated.yaml"
    gated.write_text(
        base[0]
        + "\njob:\n  AlgorithmSpecification:\n    MetricDefinitions: [{Name: 'validation:rmse', Regex: 'r=(.*)'}]"
        + "\nregister:\n  group: '{fleet}-{city}'\n  metric: validation:rmse\n  direction: minimize\n"
        + "  margin: 0.02\n  inference: {Containers: [{Image: 111122223333.dkr.ecr.us-east-1.amazonaws.com/s:1}]}"
        + "\ncities:\n"
        + base[1],
        encoding="utf-8",
    )
    dag = build_fleet_dag(gated, dag_id="g")
    plain = build_fleet_dag(fleet_file(tmp_path, 1500), dag_id="p")
    assert set(dag.task_ids) == set(plain.task_ids) | {REGISTER_TASK_ID}
    register = dag.get_task(REGISTER_TASK_ID)
    assert register.trigger_rule == "all_done"
    assert set(register.upstream_task_ids) == {TRAIN_TASK_ID, "train_2"}
    assert set(register.downstream_task_ids) == {"cost_report", OUTCOME_TASK_ID}
    assert dag.get_task("cost_report").register_task_id == REGISTER_TASK_ID
    assert dag.get_task(OUTCOME_TASK_ID).register_task_id == REGISTER_TASK_ID
    assert plain.get_task("cost_report").register_task_id is None
    assert {t.task_id for t in dag.tasks if not t.downstream_task_ids} == {"cost_report", OUTCOME_TASK_ID}


def test_a_dag_with_bad_register_input_is_not_made_and_says_why(tmp_path: Path) -> None:
    """A spec whose register: is wrong makes no DAG (nothing of it could launch): the DAG folder check names each
    field, as `validate` does."""
    spec = fleet_file(tmp_path, 3).read_text(encoding="utf-8").split("\ncities:\n")
    bad = tmp_path / "bad.yaml"
    bad.write_text(
        spec[0]
        + "\njob:\n  AlgorithmSpecification:\n    MetricDefinitions: [{Name: 'validation:rmse', Regex: 'r=(.*)'}]"
        + "\nregister:\n  group: '{fleet}-models'\n  metric: validation:mape\n  direction: minimize\n"
        + "  margin: 1.5\n  inference: {Containers: [{Image: 111122223333.dkr.ecr.us-east-1.amazonaws.com/s:1}]}"
        + "\ncities:\n"
        + spec[1],
        encoding="utf-8",
    )
    (tmp_path / "bad_dag.py").write_text(
        "from sagemaker_fleet.dags import build_fleet_dag\n"
        f"dag = build_fleet_dag({str(bad)!r}, dag_id='bad')\n",
        encoding="utf-8",
    )
    problems = "\n".join(check_dag_folder(tmp_path).problems)
    assert "register.group" in problems
    assert "has no {city}" in problems
    assert "register.metric" in problems
    assert "'validation:mape' is not one of the job's MetricDefinitions" in problems
    assert "register.margin" in problems
