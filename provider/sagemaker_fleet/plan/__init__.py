"""The pool-aware planner (pure: no Airflow, no boto3): which jobs share warm-pool lanes, in which order, with
which keep-alive, within the account's instance and warm-pool quotas."""

from __future__ import annotations

from sagemaker_fleet.plan.errors import HistoryError, PlanError, PlanFormatError
from sagemaker_fleet.plan.fleet_plan import FleetPlan
from sagemaker_fleet.plan.history import DurationHistory
from sagemaker_fleet.plan.model import Lane, PlannedJob, PlanSummary, PoolGroup
from sagemaker_fleet.plan.planner import plan_fleet

__all__ = [
    "DurationHistory",
    "FleetPlan",
    "HistoryError",
    "Lane",
    "PlanError",
    "PlanFormatError",
    "PlanSummary",
    "PlannedJob",
    "PoolGroup",
    "plan_fleet",
]
