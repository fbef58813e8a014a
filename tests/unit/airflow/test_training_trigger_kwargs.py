"""The training operator hands its trigger every argument the trigger takes, and they share their defaults (the
operator leaves out what is at the trigger's default, so a default that differed would be lost)."""

from __future__ import annotations

import inspect
from types import SimpleNamespace
from typing import Any

import pytest

from sagemaker_fleet.compat import TaskDeferred
from sagemaker_fleet.operators.training import FORWARDED, FleetTrainingOperator
from sagemaker_fleet.triggers.city import FleetCityTrigger

#: The trigger's arguments that are the run's (from the task's context) or the start's (its lineage ids too), not
#: the operator's.
RUN = {"params", "try_id", "dag_id", "run_id", "end_from_trigger", "lineage", "one_at_a_time", "plan"}
AWS = {"aws_conn_id": "fleet_aws", "region_name": "eu-west-1", "verify": False, "botocore_config": {"a": 1}}


def operator_parameters() -> dict[str, inspect.Parameter]:
    return dict(inspect.signature(FleetTrainingOperator.__init__).parameters)


def test_every_trigger_argument_comes_from_the_operator_or_the_run() -> None:
    trigger = set(FleetCityTrigger.constructor_parameters())
    assert set(FORWARDED) | set(AWS) | RUN == trigger
    assert set(FORWARDED) <= set(operator_parameters())


def test_the_operator_and_its_trigger_share_their_defaults() -> None:
    trigger = FleetCityTrigger.constructor_parameters()
    operator = operator_parameters()
    for name in FORWARDED:
        assert operator[name].default == trigger[name].default, name


def test_what_differs_from_the_triggers_defaults_reaches_it() -> None:
    given: dict[str, Any] = {
        "spec_path": "/x/fleet.yaml",
        "city": "oslo",
        "run_key": "20261129",
        "use_params": True,
        "plan_task_id": "plan",
        "keep_alive_seconds": 600,
        "force_retrain": True,
        "carry_pools": True,
        "poll_interval": 7.0,
        "capacity_retry_seconds": 9.0,
        "capacity_timeout_seconds": 99.0,
    }
    assert set(given) == set(FORWARDED)
    operator = FleetTrainingOperator(task_id="train", **given, **AWS)
    run_id = "scheduled__2026-11-29T00:00:00+00:00"
    ti = SimpleNamespace(dag_id="d", run_id=run_id, try_number=1)
    context = {"ti": ti, "run_id": run_id, "params": {"dry_run": True}}
    with pytest.raises(TaskDeferred) as deferral:
        operator.execute(context)
    _, kwargs = deferral.value.trigger.serialize()
    run = {"params": {"dry_run": True}, "try_id": f"{run_id}/1", "dag_id": "d", "run_id": run_id}
    # end_from_trigger=True is the trigger's default: left out, as is every other default
    assert {k: v for k, v in kwargs.items() if v != FleetCityTrigger.constructor_parameters()[k].default} == {
        **given,
        **AWS,
        **run,
    }
    trigger = FleetCityTrigger(**kwargs)
    assert {k: getattr(trigger, k) for k in (*given, *AWS)} == {**given, **AWS}
    assert trigger.end_from_trigger is True


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

    operator = FleetTrainingOperator(task_id="train", spec_path="/x/f.yaml", city="oslo", plan_task_id="plan")
    run_id = "manual__2026-12-04T00:00:00+00:00"
    ti = SimpleNamespace(dag_id="d", run_id=run_id, try_number=1, xcom_pull=xcom_pull)
    with pytest.raises(TaskDeferred) as deferral:
        operator.execute({"ti": ti, "run_id": run_id})
    trigger = deferral.value.trigger
    assert isinstance(trigger, FleetCityTrigger)
    assert trigger.one_at_a_time is True
    assert trigger.plan == plan
    assert trigger.end_from_trigger is False
    assert pulled == [("plan", "plan")]
