"""What the api-server knows of a fleet run, read from Airflow's metadata DB: the run, its DAG's plan task (spec
path, connection, params), the plan XCom and where the report task wrote its files.

A fleet DAG is one built by :func:`sagemaker_fleet.dags.build_fleet_dag`: tagged ``sagemaker-fleet`` and with a
``plan`` task that has a ``spec_path``. Anything else is "not a fleet DAG".
"""

from __future__ import annotations

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
    defaults = _params_of(dag)
    use_params = "dry_run" in defaults  # the manual DAG's form
    params = {**defaults, **(dag_run.conf or {})} if use_params else {}
    report = _xcom(session, dag_id, run_id, REPORT_TASK_ID, "return_value")
    models = (
        _xcom(session, dag_id, run_id, REGISTER_TASK_ID, "return_value")
        if REGISTER_TASK_ID in dag.task_dict
        else None
    )
    return FleetRunRecord(
        dag_id=dag_id,
        run_id=run_id,
        run_key=run_key_for(dag_run.logical_date, run_id, dag_run.run_type),
        state=str(getattr(dag_run.state, "value", dag_run.state)),
        spec_path=str(task.spec_path),
        aws_conn_id=str(getattr(task, "aws_conn_id", None) or "aws_default"),
        params=params,
        use_params=use_params,
        plan=_xcom(session, dag_id, run_id, PLAN_TASK_ID, PLAN_XCOM_KEY),
        plan_task_state=_task_state(session, dag_id, run_id, PLAN_TASK_ID),
        report=report if isinstance(report, dict) else None,
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
            "run_key": run_key_for(run.logical_date, run.run_id, run.run_type),
        }
        for run in rows
    ]
