"""What the api-server knows of a fleet run, read from Airflow's metadata DB: the run, its DAG's plan task (spec
path, connection, params), the plan XCom and where the report task wrote its files; and which fleets a user may
read (those with a fleet DAG the auth manager lets them read).

A fleet DAG is one built by :func:`sagemaker_fleet.dags.build_fleet_dag`: tagged ``sagemaker-fleet`` and with a
``plan`` task that has a ``spec_path``. Anything else is "not a fleet DAG".
"""

from __future__ import annotations

from collections.abc import Collection
from dataclasses import dataclass
from functools import cache
from typing import TYPE_CHECKING, Any

from sqlalchemy import select

from sagemaker_fleet.contract import (
    FLEET_DAG_TAG,
    PLAN_TASK_ID,
    PLAN_XCOM_KEY,
    REGISTER_TASK_ID,
    REPORT_TASK_ID,
)
from sagemaker_fleet.errors import SageMakerFleetError
from sagemaker_fleet.fleetspec.names import run_key_for

if TYPE_CHECKING:
    from sqlalchemy.orm import Session


class NotAFleetRunError(SageMakerFleetError, LookupError):
    """The run exists but its DAG is not a fleet DAG (or the run does not exist: ``missing``)."""

    def __init__(self, message: str, missing: bool = False) -> None:
        super().__init__(message)
        self.missing = missing


@dataclass(frozen=True)
class RunStamp:
    """What tells a DAG run from another of the same ids (its row), and one life of it from the next (its state,
    end and how often it was cleared): a view read of an ended run is served again only while the stamp holds."""

    row: int
    state: str
    end_date: str | None
    clear_number: int


def _stamp(dag_run: Any) -> RunStamp:
    end = dag_run.end_date
    return RunStamp(
        row=int(dag_run.id),
        state=str(getattr(dag_run.state, "value", dag_run.state)),
        end_date=end.isoformat() if end is not None else None,
        clear_number=int(dag_run.clear_number or 0),
    )


def run_stamp(session: Session, dag_id: str, run_id: str) -> RunStamp | None:
    """The run's stamp, from its row alone (no DAG, no XCom): None when the run is gone."""
    from airflow.models.dagrun import DagRun

    dag_run = session.scalar(select(DagRun).where(DagRun.dag_id == dag_id, DagRun.run_id == run_id))
    return None if dag_run is None else _stamp(dag_run)


@dataclass(frozen=True)
class FleetRunRecord:
    dag_id: str
    run_id: str
    run_key: str
    state: str
    spec_path: str
    aws_conn_id: str
    params: dict[str, Any]
    use_params: bool
    plan: dict[str, Any] | None
    plan_task_state: str | None
    report: dict[str, Any] | None  # the report task's return value (local_html, totals), once it ran
    stamp: RunStamp | None = None
    models: dict[str, Any] | None = None  # the register task's return value (the decisions), once it ran


def _xcom(session: Session, dag_id: str, run_id: str, task_id: str, key: str) -> Any:
    from airflow.models.xcom import XComModel

    row = session.scalars(
        select(XComModel).where(
            XComModel.dag_id == dag_id,
            XComModel.run_id == run_id,
            XComModel.task_id == task_id,
            XComModel.key == key,
            XComModel.map_index == -1,
        )
    ).first()
    return None if row is None else XComModel.deserialize_value(row)


def _task_state(session: Session, dag_id: str, run_id: str, task_id: str) -> str | None:
    from airflow.models.taskinstance import TaskInstance

    state = session.scalar(
        select(TaskInstance.state).where(
            TaskInstance.dag_id == dag_id,
            TaskInstance.run_id == run_id,
            TaskInstance.task_id == task_id,
            TaskInstance.map_index == -1,
        )
    )
    return None if state is None else str(getattr(state, "value", state))


def _params_of(dag: Any) -> dict[str, Any]:
    params = getattr(dag, "params", None) or {}
    return {key: params.get(key) for key in params}


@cache
def _dag_bag() -> Any:
    """One DB DAG bag for the api-server's life: it keeps each DAG version it deserialized."""
    from sagemaker_fleet.compat import run_dag_bag

    return run_dag_bag()


def dag_run_key(dag_run: Any) -> str:
    """The run key of a DAG run as read from Airflow's database: a run made by ``airflow dags test`` (triggered by
    ``test``) is keyed as its tasks keyed it (:func:`~sagemaker_fleet.fleetspec.names.run_key_for`)."""
    triggered_by = getattr(dag_run, "triggered_by", None)
    return run_key_for(
        dag_run.logical_date,
        dag_run.run_id,
        dag_run.run_type,
        dag_id=dag_run.dag_id,
        test=str(getattr(triggered_by, "value", triggered_by)) == "test",
    )


def load_fleet_run(session: Session, dag_id: str, run_id: str) -> FleetRunRecord:
    """The fleet run ``(dag_id, run_id)``; :class:`NotAFleetRunError` when there is none."""
    from airflow.models.dagrun import DagRun

    dag_run = session.scalar(select(DagRun).where(DagRun.dag_id == dag_id, DagRun.run_id == run_id))
    if dag_run is None:
        raise NotAFleetRunError(f"no run {run_id!r} of DAG {dag_id!r}", missing=True)
    dag = _dag_bag().get_dag_for_run(dag_run, session=session)
    task: Any = dag.task_dict.get(PLAN_TASK_ID) if dag is not None else None
    if dag is None or FLEET_DAG_TAG not in set(dag.tags or ()) or not getattr(task, "spec_path", None):
        raise NotAFleetRunError(
            f"DAG {dag_id!r} is not a SageMaker fleet DAG: it has no fleet plan task "
            f"(fleet DAGs are built by build_fleet_dag and tagged {FLEET_DAG_TAG!r})"
        )
    # every fleet DAG reads the run's conf, with the form or without (sagemaker_fleet.fleetspec.runconf)
    use_params = True
    params = {**_params_of(dag), **(dag_run.conf or {})}
    report = _xcom(session, dag_id, run_id, REPORT_TASK_ID, "return_value")
    models = (
        _xcom(session, dag_id, run_id, REGISTER_TASK_ID, "return_value")
        if REGISTER_TASK_ID in dag.task_dict
        else None
    )
    return FleetRunRecord(
        dag_id=dag_id,
        run_id=run_id,
        run_key=dag_run_key(dag_run),
        state=str(getattr(dag_run.state, "value", dag_run.state)),
        spec_path=str(task.spec_path),
        aws_conn_id=str(getattr(task, "aws_conn_id", None) or "aws_default"),
        params=params,
        use_params=use_params,
        plan=_xcom(session, dag_id, run_id, PLAN_TASK_ID, PLAN_XCOM_KEY),
        plan_task_state=_task_state(session, dag_id, run_id, PLAN_TASK_ID),
        report=report if isinstance(report, dict) else None,
        stamp=_stamp(dag_run),
        models=models if isinstance(models, dict) else None,
    )


def fleet_runs(session: Session, dag_ids: set[str], limit: int = 50) -> list[dict[str, Any]]:
    """The newest runs of the fleet DAGs among ``dag_ids`` (the user's readable DAGs)."""
    from airflow.models.dag import DagTag
    from airflow.models.dagrun import DagRun

    fleet_dags = set(session.scalars(select(DagTag.dag_id).where(DagTag.name == FLEET_DAG_TAG))) & dag_ids
    if not fleet_dags:
        return []
    rows = session.scalars(
        select(DagRun)
        .where(DagRun.dag_id.in_(sorted(fleet_dags)))
        .order_by(DagRun.run_after.desc())
        .limit(limit)
    )
    return [
        {
            "dag_id": run.dag_id,
            "run_id": run.run_id,
            "state": str(getattr(run.state, "value", run.state)),
            "run_after": run.run_after.isoformat() if run.run_after else None,
            "run_key": dag_run_key(run),
        }
        for run in rows
    ]


def readable_fleets(
    session: Session, readable_dag_ids: Collection[str], fleets: Collection[str]
) -> frozenset[str]:
    """The fleets among ``fleets`` that have a fleet DAG among ``readable_dag_ids`` (what the auth manager lets the
    user read): a DAG tagged with the fleet's name (the DAG factory's tag) whose plan task's spec really trains that
    fleet — a tag alone is not trusted, any DAG may carry any tag."""
    from airflow.models.dag import DagTag

    if not fleets:
        return frozenset()
    fleet_dags = select(DagTag.dag_id).where(DagTag.name == FLEET_DAG_TAG)
    rows = session.execute(
        select(DagTag.dag_id, DagTag.name).where(
            DagTag.name.in_(sorted(fleets)), DagTag.dag_id.in_(fleet_dags)
        )
    ).all()
    found: set[str] = set()
    for dag_id, fleet in rows:
        if fleet not in found and dag_id in readable_dag_ids and _fleet_of_dag(session, dag_id) == fleet:
            found.add(fleet)
    return frozenset(found)


#: DAG version id → the fleet its plan task trains (a version never changes)
_FLEET_OF_VERSION: dict[Any, str | None] = {}


def _fleet_of_dag(session: Session, dag_id: str) -> str | None:
    """The fleet the DAG's latest version trains (its plan task's spec), None when that cannot be read."""
    from airflow.models.serialized_dag import SerializedDagModel

    from sagemaker_fleet.fleetspec.errors import FleetSpecError
    from sagemaker_fleet.fleetspec.runspec import load_run_spec

    serdag = SerializedDagModel.get(dag_id, session=session)
    if serdag is None:
        return None
    version = serdag.dag_version_id
    if version in _FLEET_OF_VERSION:
        return _FLEET_OF_VERSION[version]
    spec_path = getattr(serdag.dag.task_dict.get(PLAN_TASK_ID), "spec_path", None)
    if not spec_path:
        return None
    try:
        fleet = load_run_spec(str(spec_path), None, use_params=False, cached=True).fleet.fleet
    except (FleetSpecError, OSError):
        return None  # not remembered: the file may be readable next time
    if len(_FLEET_OF_VERSION) >= 1024:
        _FLEET_OF_VERSION.clear()
    _FLEET_OF_VERSION[version] = fleet
    return fleet
