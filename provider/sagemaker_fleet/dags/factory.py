"""build_fleet_dag: plan → one training task mapped over the run's cities → (the models registered) → cost report and
outcome.

The DAG has the same handful of tasks whatever the fleet's size (pure at parse time: no network, DB or connection
lookup): a plan task, the training task ``train`` mapped over the cities the plan lists in start order (one more
per thousand cities, :mod:`sagemaker_fleet.operators.cities`), the run's idle pools released, the cost report, and
the outcome (which fails the run when a city did not train: the report, which runs whatever happened, cannot). Each
city's task instance starts on a worker, defers at once and is ended from the triggerer: it waits there for its
turn — the run-time plan (with the previous run's durations and the run's conf: the form's cities, spot and
instance type, or the same keys given to any fleet DAG) decides each warm-pool group's order and width, and the run's shared poller starts the next city of
a group in the sweep that sees one of its jobs end. docs/concepts/hand-off.md says why (Airflow's cost per city is constant).
A spec with ``register:`` adds one task after the cities, beside the pools' release, that registers each city's
model through the champion gate (docs/guides/model-registry.md): one task whatever the number of cities.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from airflow.sdk import DAG, Asset, AssetAlias, BaseOperator, XComArg, get_parsing_context

from sagemaker_fleet import settings
from sagemaker_fleet.contract import (
    FLEET_DAG_TAG,
    NOTIFY_TASK_ID,
    OUTCOME_TASK_ID,
    PLAN_TASK_ID,
    REGISTER_TASK_ID,
    RELEASE_TASK_ID,
    REPORT_TASK_ID,
    cities_task_id,
    models_alias_name,
    train_task_chunk,
    train_task_id,
)
from sagemaker_fleet.dags.config import MOVED_KEYWORDS, ConnectionConfig, DispatchConfig, ReportConfig
from sagemaker_fleet.operators.cities import FleetCitiesOperator, chunks_for
from sagemaker_fleet.operators.training import FleetTrainingOperator
from sagemaker_fleet.triggers.defaults import CityOptions

if TYPE_CHECKING:
    from sagemaker_fleet.fleetspec.model import FleetSpec

DEFAULT_ARGS: dict[str, Any] = {"owner": "ml-platform", "retries": 2, "retry_delay": dt.timedelta(minutes=1)}
#: The grid and the task log name each mapped training task instance by its city.
CITY_MAP_INDEX_TEMPLATE = "{{ task.city }}"


def build_fleet_dag(
    spec_path: str | Path,
    *,
    dag_id: str | None = None,
    schedule: Any = None,
    start_date: dt.datetime | None = None,
    manual: bool = False,
    tags: Sequence[str] = (),
    default_args: dict[str, Any] | None = None,
    connections: ConnectionConfig | None = None,
    dispatch: DispatchConfig | None = None,
    report: ReportConfig | None = None,
    **dag_kwargs: Any,
) -> DAG:
    """A DAG that trains every city of the fleet at ``spec_path`` in pool-aware order and reports the cost.

    :param dag_id, schedule, start_date, tags, default_args: the DAG's (``dag_id`` default ``fleet_{fleet}``; the
        tags ``sagemaker-fleet`` and the fleet's name are added; ``default_args`` are merged over
        :data:`DEFAULT_ARGS`); ``**dag_kwargs``: passed on to Airflow's ``DAG``.
    :param manual: add the trigger form (cities, spot, instance type, dry run) and a run note on every run. Every
        fleet DAG, with the form or without, reads the same keys from a run's conf and refuses any other before
        anything is launched (:mod:`sagemaker_fleet.fleetspec.runconf`); the run-time plan of the chosen variant
        decides the order and widths.
    :param connections: the AWS and api-server connections (:class:`~sagemaker_fleet.dags.config.ConnectionConfig`).
    :param dispatch: the poll interval, the capacity back-off and whether the run's idle warm pools are carried to
        the next run (:class:`~sagemaker_fleet.dags.config.DispatchConfig`).
    :param report: the cost report's folder and the run's notice and notifiers
        (:class:`~sagemaker_fleet.dags.config.ReportConfig`).
    """
    moved = sorted(set(dag_kwargs) & set(MOVED_KEYWORDS))
    if moved:  # the keywords of before the groups: say where each went, not DAG's "unexpected keyword"
        raise TypeError(
            "build_fleet_dag: "
            + "; ".join(f"give {name} as {MOVED_KEYWORDS[name]}({name}=...)" for name in moved)
            + " (from sagemaker_fleet.dags)"
        )
    spec_path = str(spec_path)
    connections = connections or ConnectionConfig()
    default_args = {**DEFAULT_ARGS, **(default_args or {})}
    city_task = CityTask(spec_path, connections, dispatch or DispatchConfig())
    parsing = get_parsing_context()
    chunk = train_task_chunk(parsing.task_id) if dag_id is not None and parsing.dag_id == dag_id else None
    if dag_id is not None and chunk is not None:
        # a worker parses this file to run one city's task instance, which only defers: build that task alone,
        # without loading a thousand-city spec or importing the other operators (boto3, the planner, …)
        return _city_task_dag(dag_id, chunk, spec_path, manual, default_args, city_task, dag_kwargs)
    from sagemaker_fleet.fleetspec.cache import load_fleet_spec_cached
    from sagemaker_fleet.hooks.request_model import BOTOCORE_MODEL

    # a spec whose job: template botocore's model refuses makes no DAG: nothing of it can launch
    spec = load_fleet_spec_cached(spec_path, BOTOCORE_MODEL)
    dag_args = {
        "dag_id": dag_id or f"fleet_{spec.fleet.replace('-', '_')}",
        "schedule": schedule,
        "start_date": start_date or dt.datetime(2026, 1, 1, tzinfo=dt.UTC),
        "tags": [*tags, FLEET_DAG_TAG, spec.fleet],
        "default_args": default_args,
        **dag_kwargs,
    }
    return _fleet_dag(spec, spec_path, manual, dag_args, city_task, report or ReportConfig())


@dataclass(frozen=True)
class CityTask:
    """The fleet DAG's training task, the same in the whole DAG and in the one-task DAG a city's task process
    builds: the fleet file and the groups that reach it, handed to the operator whole."""

    spec_path: str
    connections: ConnectionConfig
    dispatch: DispatchConfig

    def mapped(self, chunk: int, cities: BaseOperator) -> Any:
        """The training task of ``chunk``, mapped over the cities ``cities`` returns."""
        options = CityOptions(
            # every fleet DAG reads the run's conf (the form only offers it): sagemaker_fleet.fleetspec.runconf
            use_params=True,
            plan_task_id=PLAN_TASK_ID,
            carry_pools=self.dispatch.carry_pools,
        )
        return FleetTrainingOperator.partial(
            task_id=train_task_id(chunk),
            spec_path=self.spec_path,
            options=options,
            timing=self.dispatch.city_timing(),
            aws_conn_id=self.connections.aws_conn_id,
            map_index_template=CITY_MAP_INDEX_TEMPLATE,
        ).expand(city=XComArg(cities))


def _city_task_dag(
    dag_id: str,
    chunk: int,
    spec_path: str,
    manual: bool,
    default_args: dict[str, Any],
    city_task: CityTask,
    dag_kwargs: dict[str, Any],
) -> DAG:
    """The DAG as a city's task process needs it: the training task, mapped over a stand-in of the task its
    cities come from (the task process reads that task's return value by task id), and the trigger form's params
    for a manual DAG. Built the same way as in :func:`_fleet_dag`, by the same :class:`CityTask`."""
    params = None
    if manual:
        from sagemaker_fleet.dags.form import manual_params
        from sagemaker_fleet.fleetspec.cache import load_fleet_spec_cached

        params = manual_params(load_fleet_spec_cached(spec_path))
    with DAG(
        dag_id=dag_id,
        schedule=None,
        default_args=default_args,
        params=params,
        max_active_tasks=dag_kwargs.get("max_active_tasks", 16),
    ) as dag:
        source = BaseOperator(task_id=PLAN_TASK_ID if chunk == 0 else cities_task_id(chunk))
        city_task.mapped(chunk, source)
    return dag


def _fleet_dag(
    spec: FleetSpec,
    spec_path: str,
    manual: bool,
    dag_args: dict[str, Any],
    city_task: CityTask,
    report_config: ReportConfig,
) -> DAG:
    from sagemaker_fleet.dags.form import manual_params
    from sagemaker_fleet.fleetspec.names import reports_s3_prefix
    from sagemaker_fleet.operators.notify import FleetNotifyOperator
    from sagemaker_fleet.operators.outcome import FleetOutcomeOperator
    from sagemaker_fleet.operators.plan import PlanFleetOperator
    from sagemaker_fleet.operators.register import FleetRegisterOperator
    from sagemaker_fleet.operators.release import FleetPoolReleaseOperator
    from sagemaker_fleet.operators.report import FleetCostReportOperator, models_asset

    connections, dispatch = city_task.connections, city_task.dispatch
    report_dir = report_config.report_dir or settings.get("report_dir")
    report_asset = Asset(name=f"{spec.fleet}-reports", uri=reports_s3_prefix(spec.output_s3_uri))
    # the training tasks end in the triggerer, where Airflow registers no asset event for a task's outlets: the
    # report, on a worker after every city, emits the models asset's event (through an alias: only when a city
    # trained), with the cities and their model artifacts in its extra
    models_alias = AssetAlias(name=models_alias_name(spec.fleet))
    chunks = chunks_for(len(spec.cities))
    # a deferred city counts as an active task: with Airflow's default of 16 the 17th city would not start before
    # the first one ended, and no warm pool could be handed over
    dag_args.setdefault("max_active_tasks", len(spec.cities) + 2)
    with DAG(
        catchup=False,
        max_active_runs=1,
        params=manual_params(spec) if manual else None,
        doc_md=f"Trains the {len(spec.cities)} cities of fleet `{spec.fleet}` ({spec_path}).",
        **dag_args,
    ) as dag:
        plan = PlanFleetOperator(
            task_id=PLAN_TASK_ID,
            spec_path=spec_path,
            chunks=chunks,
            use_params=True,
            run_note=manual,
            aws_conn_id=connections.aws_conn_id,
            api_conn_id=connections.api_conn_id,
        )
        # one mapped task per thousand cities, each over its part of the plan's start order: map index i is the
        # i-th city to start, and Airflow queues mapped instances by map index, so the first wave defers first
        sources = [plan] + [
            FleetCitiesOperator(task_id=cities_task_id(chunk), plan_task_id=PLAN_TASK_ID, chunk=chunk)
            for chunk in range(1, chunks)
        ]
        trains = [city_task.mapped(chunk, sources[chunk]) for chunk in range(chunks)]
        # every city has had its turn: end the pools nobody will take over, so the report sees final idle time
        release = FleetPoolReleaseOperator(
            task_id=RELEASE_TASK_ID,
            spec_path=spec_path,
            trigger_rule="all_done",
            carry_pools=dispatch.carry_pools,
            use_params=True,
            aws_conn_id=connections.aws_conn_id,
        )
        # the models through the champion gate, once every city has had its turn (a spec with register: only)
        registers = any(city.register is not None for city in spec.cities)
        register = (
            FleetRegisterOperator(
                task_id=REGISTER_TASK_ID,
                spec_path=spec_path,
                use_params=manual,
                aws_conn_id=connections.aws_conn_id,
            )
            if registers
            else None
        )
        report = FleetCostReportOperator(
            task_id=REPORT_TASK_ID,
            spec_path=spec_path,
            trigger_rule="all_done",
            use_params=True,
            aws_conn_id=connections.aws_conn_id,
            outlets=[report_asset, models_alias],
            # the models it reads and emits an event for, declared so that Airflow keeps the asset active
            inlets=[models_asset(spec)],
            out_dir=report_dir,
            plan_task_id=PLAN_TASK_ID,
            release_task_id=RELEASE_TASK_ID,
            register_task_id=REGISTER_TASK_ID if registers else None,
        )
        # the report succeeds whatever happened, so the run's state comes from this second leaf
        outcome = FleetOutcomeOperator(
            task_id=OUTCOME_TASK_ID,
            chunks=chunks,
            plan_task_id=PLAN_TASK_ID,
            register_task_id=REGISTER_TASK_ID if registers else None,
        )
        plan >> sources[1:]
        plan >> trains >> release >> report
        trains >> outcome
        if register is not None:
            trains >> register >> [report, outcome]
        if report_config.on_success or report_config.on_failure:
            notify = FleetNotifyOperator(
                task_id=NOTIFY_TASK_ID,
                spec_path=spec_path,
                chunks=chunks,
                plan_task_id=PLAN_TASK_ID,
                on_success=report_config.on_success,
                on_failure=report_config.on_failure,
                **({"message": report_config.notice} if report_config.notice else {}),
            )
            # after the report (its totals), beside the outcome: Airflow takes the run's state from its last
            # tasks, so the outcome must stay one of them; the notice reads the cities' states itself
            report >> notify
    return dag
