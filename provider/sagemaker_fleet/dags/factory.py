"""build_fleet_dag: plan → one mapped training task per warm-pool group → cost report.

Structure comes from the spec at parse time (pure: no network, DB or connection lookup): one mapped task per
group of matching jobs, its concurrency the group's lane count, so Airflow runs each group exactly as wide as
the plan's lanes. The run-time plan (with the previous run's durations) decides the order inside each group.
Every task of a group trains on the same matching key, so any finished job's pool serves the next one.
"""

from __future__ import annotations

import dataclasses
import datetime as dt
import itertools
import os
import re
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from airflow.sdk import DAG, Asset, Param, XComArg

from sagemaker_fleet.operators.plan import PlanFleetOperator, group_signature
from sagemaker_fleet.operators.report import FleetCostReportOperator
from sagemaker_fleet.operators.training import FleetTrainingOperator
from sagemaker_fleet.plan import FleetPlan, PoolGroup, plan_fleet
from sagemaker_fleet.spec.load import load_fleet_spec
from sagemaker_fleet.spec.overrides import FleetOverrides, apply_overrides

if TYPE_CHECKING:
    from sagemaker_fleet.spec.model import FleetSpec

PARSE_RUN_KEY = "0"
DEFAULT_ARGS: dict[str, Any] = {"owner": "ml-platform", "retries": 2, "retry_delay": dt.timedelta(minutes=1)}


def instance_pool_name(instance_type: str) -> str:
    """The Airflow pool guarding an instance type's account-wide quota (slots = instances, deferred counted)."""
    return "sagemaker_fleet__" + re.sub(r"[^a-z0-9]+", "_", instance_type.lower()).strip("_")


def _variants(spec: FleetSpec, manual: bool) -> list[FleetOverrides]:
    if not manual:
        return [FleetOverrides()]
    types: list[str | None] = [None, *sorted(spec.quotas)]
    return [FleetOverrides(spot=spot, instance_type=t) for spot, t in itertools.product((True, False), types)]


def peak_lanes(plan: FleetPlan, group: str) -> int:
    """How many of a group's lanes run at the same moment in the plan. Lanes that take turns on the same
    instances (planned one after the other) must not run side by side, so this, not the lane count, is the
    group's task concurrency."""
    edges: list[tuple[int, int]] = []
    for lane in plan.lanes:
        if lane.group == group and lane.jobs:
            edges += [(lane.start_seconds, 1), (lane.end_seconds, -1)]
    running = peak = 0
    for _, step in sorted(edges):  # an end sorts before a start at the same second
        running += step
        peak = max(peak, running)
    return max(1, peak)


def parse_time_groups(spec: FleetSpec, manual: bool = False) -> dict[str, PoolGroup]:
    """Every group a run of this DAG can have, by signature; ``lanes`` is the widest concurrency seen."""
    groups: dict[str, PoolGroup] = {}
    for overrides in _variants(spec, manual):
        plan: FleetPlan = plan_fleet(apply_overrides(spec, overrides), PARSE_RUN_KEY)
        for group in plan.groups:
            signature = group_signature(group)
            width = dataclasses.replace(group, lanes=peak_lanes(plan, group.group))
            if signature not in groups or groups[signature].lanes < width.lanes:
                groups[signature] = width
    return groups


def _task_id(group: PoolGroup, taken: set[str]) -> str:
    role = group.key.role_arn.rsplit("/", 1)[-1]
    base = re.sub(r"[^a-zA-Z0-9_]+", "_", f"train_{role}_{group.key.instance_type}{'_spot' if group.spot else ''}")
    task_id, n = base.lower(), 2
    while task_id in taken:
        task_id, n = f"{base.lower()}_{n}", n + 1
    taken.add(task_id)
    return task_id


def manual_params(spec: FleetSpec) -> dict[str, Param]:
    """The UI trigger form: subset of cities, spot on/off, instance-type override, dry run."""
    return {
        "cities": Param([], type="array", items={"type": "string", "enum": [c.name for c in spec.cities]},
                        title="Cities", description="Train only these cities (empty: the whole fleet)."),
        "spot": Param(True, type="boolean", title="Use spot",
                      description="Off: every city trains on demand (and may use warm pools)."),
        "instance_type": Param(None, type=["null", "string"], enum=[None, *sorted(spec.quotas)],
                               title="Instance type override", description="Train every city on this type."),
        "dry_run": Param(False, type="boolean", title="Dry run",
                         description="Only plan and report the expected cost; launch nothing."),
    }


def build_fleet_dag(
    spec_path: str | Path,
    *,
    dag_id: str | None = None,
    schedule: Any = None,
    start_date: dt.datetime | None = None,
    manual: bool = False,
    tags: Sequence[str] = (),
    default_args: dict[str, Any] | None = None,
    instance_pools: bool = True,
    poll_interval: float | None = None,
    capacity_retry_seconds: float | None = None,
    report_dir: str | None = None,
    aws_conn_id: str = "aws_default",
    **dag_kwargs: Any,
) -> DAG:
    """A DAG that trains every city of the fleet at ``spec_path`` in pool-aware order and reports the cost.

    :param manual: add the trigger form (cities, spot, instance type, dry run); structure then covers every
        variant the form can ask for.
    :param poll_interval: seconds between status sweeps of the run's jobs (default 30, or
        ``SAGEMAKER_FLEET_POLL_INTERVAL``); with a sped-up simulator use a few seconds.
    :param capacity_retry_seconds: base back-off on ResourceLimitExceeded (default 60, or
        ``SAGEMAKER_FLEET_CAPACITY_RETRY_SECONDS``).
    :param report_dir: where the cost report task writes its files (default: a temporary folder, or
        ``SAGEMAKER_FLEET_REPORT_DIR``); they are uploaded to S3 either way.
    :param instance_pools: put each training task in the Airflow pool of its instance type
        (:func:`instance_pool_name`), which must exist with slots = the account's instance quota and
        ``include_deferred`` on, so that several fleet DAGs never exceed the quota together.
    """
    spec_path = str(spec_path)
    spec = load_fleet_spec(spec_path)
    poll_interval = poll_interval or float(os.environ.get("SAGEMAKER_FLEET_POLL_INTERVAL", "30"))
    capacity_retry_seconds = capacity_retry_seconds or float(
        os.environ.get("SAGEMAKER_FLEET_CAPACITY_RETRY_SECONDS", "60")
    )
    report_dir = report_dir or os.environ.get("SAGEMAKER_FLEET_REPORT_DIR")
    groups = parse_time_groups(spec, manual)
    report_asset = Asset(name=f"{spec.fleet}-reports", uri=f"{spec.output_s3_uri}/reports/")
    model_asset = Asset(name=f"{spec.fleet}-models", uri=f"{spec.output_s3_uri}/models/")
    with DAG(
        dag_id=dag_id or f"fleet_{spec.fleet.replace('-', '_')}",
        schedule=schedule,
        start_date=start_date or dt.datetime(2026, 1, 1, tzinfo=dt.UTC),
        catchup=False,
        max_active_runs=1,
        tags=[*tags, "sagemaker-fleet", spec.fleet],
        default_args={**DEFAULT_ARGS, **(default_args or {})},
        params=manual_params(spec) if manual else None,
        doc_md=f"Trains the {len(spec.cities)} cities of fleet `{spec.fleet}` ({spec_path}).",
        **dag_kwargs,
    ) as dag:
        taken: set[str] = set()
        plans, trains = [], []
        for signature, group in sorted(groups.items(), key=lambda kv: (kv[1].key, kv[1].spot)):
            task_id = _task_id(group, taken)
            plan = PlanFleetOperator(task_id=f"plan_{task_id.removeprefix('train_')}", spec_path=spec_path,
                                     signature=signature, signatures=sorted(groups), use_params=manual,
                                     concurrency={sig: g.lanes for sig, g in groups.items()},
                                     aws_conn_id=aws_conn_id)
            pool_kwargs = (
                {"pool": instance_pool_name(group.key.instance_type), "pool_slots": group.key.instance_count}
                if instance_pools else {}
            )
            train = FleetTrainingOperator.partial(
                task_id=task_id,
                spec_path=spec_path,
                use_params=manual,
                poll_interval=poll_interval,
                capacity_retry_seconds=capacity_retry_seconds,
                aws_conn_id=aws_conn_id,
                max_active_tis_per_dagrun=group.lanes,
                map_index_template="{{ task.city }}",
                outlets=[model_asset],
                **pool_kwargs,
            ).expand_kwargs(XComArg(plan))
            plan >> train
            plans.append(plan)
            trains.append(train)
        report = FleetCostReportOperator(task_id="cost_report", spec_path=spec_path, trigger_rule="all_done",
                                         use_params=manual, aws_conn_id=aws_conn_id, outlets=[report_asset],
                                         out_dir=report_dir,
                                         plan_task_id=plans[0].task_id)
        trains >> report
    return dag
