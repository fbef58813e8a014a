"""Airflow DAG example: the fleet's operators wired by hand, as ``build_fleet_dag`` wires them.

The docs include its marked regions (docs/operators/); tests/unit/docs/test_doc_snippets.py builds this DAG. Not in
the demo's DAG list (dags/.airflowignore).
"""

from __future__ import annotations

import datetime as dt
from pathlib import Path
from typing import Any

from airflow.sdk import DAG, XComArg

from sagemaker_fleet.operators.notify import FleetNotifyOperator
from sagemaker_fleet.operators.outcome import FleetOutcomeOperator
from sagemaker_fleet.operators.plan import PlanFleetOperator
from sagemaker_fleet.operators.register import FleetRegisterOperator
from sagemaker_fleet.operators.release import FleetPoolReleaseOperator
from sagemaker_fleet.operators.report import FleetCostReportOperator
from sagemaker_fleet.operators.training import FleetTrainingOperator
from sagemaker_fleet.triggers.defaults import CityOptions

SPEC = str(Path(__file__).resolve().parents[1] / "fleets" / "small.yaml")


def log_notice(context: dict[str, Any]) -> None:
    """A notifier: any callable that takes the task's context (Airflow's SMTP or Slack notifiers, your own)."""
    print(context["fleet_message"])


with DAG(
    dag_id="example_fleet_operators",
    schedule=None,
    start_date=dt.datetime(2026, 1, 1, tzinfo=dt.UTC),
    catchup=False,
    tags=["sagemaker-fleet-example"],
    default_args={"owner": "ml-platform", "retries": 2},
):
    # [START howto_operator_plan_fleet]
    plan = PlanFleetOperator(task_id="plan", spec_path=SPEC, aws_conn_id="aws_default")
    # [END howto_operator_plan_fleet]

    # [START howto_operator_fleet_training]
    train = FleetTrainingOperator.partial(
        task_id="train",
        spec_path=SPEC,
        options=CityOptions(plan_task_id="plan"),
        map_index_template="{{ task.city }}",
    ).expand(city=XComArg(plan))
    # [END howto_operator_fleet_training]

    # [START howto_operator_fleet_pool_release]
    release = FleetPoolReleaseOperator(task_id="release_pools", spec_path=SPEC, trigger_rule="all_done")
    # [END howto_operator_fleet_pool_release]

    # [START howto_operator_fleet_cost_report]
    report = FleetCostReportOperator(
        task_id="cost_report",
        spec_path=SPEC,
        plan_task_id="plan",
        release_task_id="release_pools",
        trigger_rule="all_done",
    )
    # [END howto_operator_fleet_cost_report]

    # [START howto_operator_fleet_outcome]
    outcome = FleetOutcomeOperator(task_id="outcome", plan_task_id="plan")
    # [END howto_operator_fleet_outcome]

    # [START howto_operator_fleet_notify]
    notify = FleetNotifyOperator(
        task_id="notify",
        spec_path=SPEC,
        plan_task_id="plan",
        on_failure=[log_notice],
    )
    # [END howto_operator_fleet_notify]

    # [START howto_fleet_dependencies]
    plan >> train >> release >> report >> notify
    train >> outcome
    # [END howto_fleet_dependencies]

    # [START howto_operator_fleet_register]
    # a spec with register: (here small.yaml has none, so the task skips): the gate after every city, its
    # decisions in the report (register_task_id) and in the run's outcome
    register = FleetRegisterOperator(task_id="register_models", spec_path=SPEC)
    report.register_task_id = outcome.register_task_id = "register_models"
    train >> register >> [report, outcome]
    # [END howto_operator_fleet_register]
