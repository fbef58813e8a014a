"""The pool-aware planner (pure: no Airflow, no boto3): which jobs share warm-pool lanes, in which order, with
which keep-alive, within the account's instance and warm-pool quotas.

- ``planner.py``: :func:`plan_fleet`, the plan of one run from its spec, quotas and durations;
- ``groups.py``: cities grouped by warm-pool matching key, spot cities in groups of their own;
- ``durations.py``: how long each planned job is expected to take (start-up plus training);
- ``history.py``: durations measured in a previous run's report.json;
- ``history_check.py``: that file checked whole before any of it is used;
- ``capacity.py``: capacity pools, the per-instance-type quotas that groups' lanes share;
- ``units.py``: each pool split into units (lanes of one width over a number of slots);
- ``selection.py``: how many cold slots a unit gives to groups that would rather keep warm pools;
- ``slots.py``: each unit's groups laid onto its slots so that all slots end together (McNaughton);
- ``schedule.py``: every job placed in virtual time, longest first onto the earliest free lane;
- ``waiting.py``: a group's waiting jobs, longest first, searchable by training image;
- ``lane_images.py``: a warm lane's jobs regrouped by training image when that pulls less;
- ``keepalive.py``: how long a job's warm pool is kept for its successor;
- ``assemble.py``: scheduled lanes turned into the plan's value objects;
- ``summary.py``: a plan's totals, makespan, lower bound and quota request;
- ``notes.py``: warnings where quotas or settings keep the plan from using warm pools;
- ``advice.py``: AWS's warm-pool best practices as notes;
- ``model.py``: the plan's value objects (groups, lanes, planned jobs, summary);
- ``fleet_plan.py``: :class:`FleetPlan`, the plan JSON the DAG launches from;
- ``jsonread.py``: typed reads from decoded JSON, failing with the field path;
- ``render.py``: the plan as a table for people;
- ``errors.py``: the planning layer's errors, each naming the fix.
"""

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
