"""The training operator defers to its trigger with every setting it was given, through the row Airflow stores, and
the trigger rebuilt from that row is the one the operator meant. The defaults live once, in the trigger's settings
groups (``triggers/defaults.py``): the operator's and the trigger's are those, so there is no copy to compare."""

from __future__ import annotations

import dataclasses
import importlib
import inspect
from types import SimpleNamespace
from typing import Any

import pytest
from airflow.models.trigger import Trigger

from sagemaker_fleet.compat import TaskDeferred
from sagemaker_fleet.hooks.connection import AwsConnection
from sagemaker_fleet.operators.training import FleetTrainingOperator
from sagemaker_fleet.triggers.city import FleetCityTrigger
from sagemaker_fleet.triggers.defaults import (
    CITY_TRIGGER_GROUPS,
    CityOptions,
    CityTiming,
    TaskTry,
    TriggerHandle,
)

AWS = {"aws_conn_id": "fleet_aws", "region_name": "eu-west-1", "verify": False, "botocore_config": {"a": 1}}
#: A value other than its default for every field of the operator's two groups.
OPTIONS = {
    "use_params": True,
    "plan_task_id": "plan",
    "keep_alive_seconds": 600,
    "force_retrain": True,
    "carry_pools": True,
}
TIMING = {"poll_interval": 7.0, "capacity_retry_seconds": 9.0, "capacity_timeout_seconds": 99.0}
#: A value other than its default for every field of the try (what the operator takes from its context).
TASK_TRY = {
    "run_key": "20261129",
    "params": {"dry_run": True},
    "try_id": "r/2",
    "dag_id": "d",
    "run_id": "r",
    "end_from_trigger": False,
    "one_at_a_time": True,
    "plan": {"fleet": "f", "jobs": []},
    "lineage": {"run_id": "0193", "job_name": "d.train"},
}


def stored_and_rebuilt(trigger: Any) -> Any:
    """The trigger the triggerer builds from ``trigger``'s row: Airflow's own trigger model stores the kwargs
    (serialised, encrypted when a key is set) and gives them back; the class is imported by its classpath."""
    row = Trigger.from_object(trigger)
    module, _, name = row.classpath.rpartition(".")
    return getattr(importlib.import_module(module), name)(**row.kwargs)


def test_the_tests_give_every_field_of_every_group() -> None:
    given = {"task_try": TASK_TRY, "options": OPTIONS, "timing": TIMING}
    for name, group in CITY_TRIGGER_GROUPS.items():
        assert set(given[name]) == {f.name for f in dataclasses.fields(group)}, name
        defaults = group()
        assert all(getattr(defaults, k) != v for k, v in given[name].items()), name


def test_every_field_survives_the_trigger_table() -> None:
    """serialize() → Airflow's trigger row → the rebuilt trigger: each group comes back whole, and the rebuilt
    trigger's row is the same (a field dropped on the way, or read back under another name, fails here)."""
    trigger = FleetCityTrigger(
        spec_path="/x/f.yaml",
        city="oslo",
        task_try=TaskTry(**TASK_TRY),
        options=CityOptions(**OPTIONS),
        timing=CityTiming(**TIMING),
        **AWS,
    )
    rebuilt = stored_and_rebuilt(trigger)
    assert type(rebuilt) is FleetCityTrigger
    assert (rebuilt.spec_path, rebuilt.city) == ("/x/f.yaml", "oslo")
    assert rebuilt.task_try == TaskTry(**TASK_TRY)
    assert rebuilt.options == CityOptions(**OPTIONS)
    assert rebuilt.timing == CityTiming(**TIMING)
    assert rebuilt.connection == AwsConnection(**AWS)
    assert rebuilt.serialize() == trigger.serialize()


def test_a_trigger_at_its_defaults_stores_no_group() -> None:
    _, kwargs = FleetCityTrigger(spec_path="/x/f.yaml", city="oslo").serialize()
    assert set(kwargs) == {"spec_path", "city", *AwsConnection.names()}
    rebuilt = stored_and_rebuilt(FleetCityTrigger(spec_path="/x/f.yaml", city="oslo"))
    assert (rebuilt.task_try, rebuilt.options, rebuilt.timing) == (TaskTry(), CityOptions(), CityTiming())


def test_an_unknown_argument_is_refused() -> None:
    with pytest.raises(TypeError, match="keep_alive"):
        FleetCityTrigger(spec_path="/x/f.yaml", city="oslo", keep_alive=60)


def test_what_the_operator_is_given_reaches_the_trigger_the_triggerer_builds() -> None:
    operator = FleetTrainingOperator(
        task_id="train",
        spec_path="/x/fleet.yaml",
        city="oslo",
        run_key="20261129",
        options=CityOptions(**OPTIONS),
        timing=CityTiming(**TIMING),
        **AWS,
    )
    run_id = "scheduled__2026-11-29T00:00:00+00:00"
    ti = SimpleNamespace(dag_id="d", run_id=run_id, try_number=3)
    context = {"ti": ti, "run_id": run_id, "params": {"dry_run": True}}
    with pytest.raises(TaskDeferred) as deferral:
        operator.execute(context)
    handle = deferral.value.trigger
    assert isinstance(handle, TriggerHandle)  # the worker does not import the trigger's module
    trigger = stored_and_rebuilt(handle)
    assert type(trigger) is FleetCityTrigger
    assert (trigger.spec_path, trigger.city) == ("/x/fleet.yaml", "oslo")
    assert trigger.options == CityOptions(**OPTIONS)
    assert trigger.timing == CityTiming(**TIMING)
    assert trigger.task_try == TaskTry(
        run_key="20261129", params={"dry_run": True}, try_id=f"{run_id}/3", dag_id="d", run_id=run_id
    )
    assert trigger.connection == AwsConnection(**AWS)
    assert trigger.serialize() == handle.serialize()  # the worker's row is the trigger's own


def test_an_operator_at_its_defaults_defers_to_a_trigger_at_its_defaults() -> None:
    operator = FleetTrainingOperator(task_id="train", spec_path="/x/fleet.yaml", city="oslo")
    run_id = "scheduled__2026-11-29T00:00:00+00:00"
    ti = SimpleNamespace(dag_id="d", run_id=run_id, try_number=1)
    with pytest.raises(TaskDeferred) as deferral:
        operator.execute({"ti": ti, "run_id": run_id})
    trigger = stored_and_rebuilt(deferral.value.trigger)
    assert (trigger.options, trigger.timing) == (CityOptions(), CityTiming())


def test_under_dag_test_the_trigger_starts_cities_one_at_a_time_with_the_plan_in_hand(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """``airflow dags test`` runs the trigger in line, one city after the other (no city may wait for its turn), and
    on Airflow 3.0 that trigger cannot read XComs: the operator hands it the plan it read."""
    from sagemaker_fleet.operators import training

    monkeypatch.setattr(training, "_under_dag_test", lambda: True)
    plan = {"fleet": "f", "jobs": []}
    pulled: list[tuple[str, str]] = []

    def xcom_pull(*, task_ids: str, key: str) -> Any:
        pulled.append((task_ids, key))
        return plan

    operator = FleetTrainingOperator(
        task_id="train", spec_path="/x/f.yaml", city="oslo", options=CityOptions(plan_task_id="plan")
    )
    run_id = "manual__2026-12-04T00:00:00+00:00"
    ti = SimpleNamespace(dag_id="d", run_id=run_id, try_number=1, xcom_pull=xcom_pull)
    with pytest.raises(TaskDeferred) as deferral:
        operator.execute({"ti": ti, "run_id": run_id})
    trigger = deferral.value.trigger
    assert isinstance(trigger, FleetCityTrigger)
    assert trigger.task_try.one_at_a_time is True
    assert trigger.task_try.plan == plan
    assert trigger.task_try.end_from_trigger is False
    assert pulled == [("plan", "plan")]


def test_the_operator_takes_its_settings_grouped() -> None:
    """The city's settings travel whole, as the groups the trigger takes; the AWS connection and ``BaseOperator``'s
    arguments go on to the base through ``**kwargs`` (as the Amazon provider's operators pass them)."""
    parameters = inspect.signature(FleetTrainingOperator.__init__).parameters
    named = [name for name, p in parameters.items() if name != "self" and p.kind is not p.VAR_KEYWORD]
    assert len(named) <= 8, named
    assert named == ["spec_path", "city", "run_key", "options", "timing", "deferrable"]


def test_a_templated_keep_alive_renders_into_the_options() -> None:
    """``keep_alive_seconds`` is a template field, as before the groups: given in the options as a template, it
    renders there (the options are frozen: rendering replaces them)."""
    from airflow.sdk import DAG

    with DAG(dag_id="templated", schedule=None):
        operator = FleetTrainingOperator(
            task_id="train",
            spec_path="/x/fleet.yaml",
            city="{{ params.city }}",
            options=CityOptions(keep_alive_seconds="{{ params.keep_alive }}", force_retrain=True),
        )
    assert "keep_alive_seconds" in operator.template_fields
    operator.render_template_fields({"params": {"city": "oslo", "keep_alive": 600}})  # type: ignore[arg-type]
    assert operator.city == "oslo"
    assert operator.options == CityOptions(keep_alive_seconds="600", force_retrain=True)
