"""DAG-integrity checks: every DAG file imports, parsing does no network/DB/connection lookup, every fleet YAML
validates, DAGs carry tags, an owner and retries, and have no cycles.

Usage in a user's test suite::

    from sagemaker_fleet.testing import assert_dag_folder_ok

    def test_dags():
        assert_dag_folder_ok("dags/")
"""

from __future__ import annotations

import contextlib
import socket
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from unittest import mock

from sagemaker_fleet.errors import SageMakerFleetError
from sagemaker_fleet.fleetspec.errors import FleetSpecError
from sagemaker_fleet.fleetspec.load import load_fleet_spec


class ParseTimeAccessError(SageMakerFleetError, RuntimeError):
    """A DAG file touched the network, the metadata DB or a connection while being parsed."""


@dataclass
class DagFolderReport:
    dag_ids: list[str] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)
    parse_seconds: float = 0.0

    @property
    def ok(self) -> bool:
        return not self.problems


def _forbid(what: str) -> Any:
    def refuse(*args: Any, **kwargs: Any) -> Any:
        raise ParseTimeAccessError(f"{what} while parsing DAGs: move it into a task")

    return refuse


@contextlib.contextmanager
def no_parse_time_access() -> Iterator[None]:
    """Refuse sockets, connection lookups and metadata-DB sessions for the duration (as the Amazon provider's
    example-DAG test does for connections)."""
    with contextlib.ExitStack() as stack:
        stack.enter_context(mock.patch.object(socket.socket, "connect", _forbid("a network connection")))
        stack.enter_context(mock.patch.object(socket, "create_connection", _forbid("a network connection")))
        stack.enter_context(mock.patch("airflow.sdk.BaseHook.get_connection", _forbid("a connection lookup")))
        stack.enter_context(mock.patch("airflow.settings.Session", _forbid("a metadata-DB session")))
        yield


def check_dag_folder(folder: str | Path, *, min_retries: int = 1) -> DagFolderReport:
    """Parse every DAG file under ``folder`` and validate every fleet YAML beside them."""
    from airflow.dag_processing.dagbag import DagBag

    folder = Path(folder)
    report = DagFolderReport()
    for spec in sorted([*folder.rglob("*.yaml"), *folder.rglob("*.yml")]):
        try:
            load_fleet_spec(spec)
        except FleetSpecError as exc:
            report.problems.append(str(exc))
    started = time.perf_counter()
    with no_parse_time_access():
        bag = DagBag(dag_folder=str(folder), safe_mode=True)  # what the dag-processor does by default
    report.parse_seconds = time.perf_counter() - started
    for where, error in sorted(bag.import_errors.items()):
        report.problems.append(f"{where}: import error: {error}")
    parsed = {Path(dag.fileloc).resolve() for dag in bag.dags.values()}
    for source in sorted(folder.rglob("*.py")):
        text = source.read_text(encoding="utf-8", errors="replace")
        if source.resolve() not in parsed and ("build_fleet_dag(" in text or "DAG(" in text):
            report.problems.append(
                f"{source}: defines a DAG that Airflow's safe mode skips: the file must contain the words "
                "'airflow' and 'dag' (e.g. in its docstring)"
            )
    for dag_id, dag in sorted(bag.dags.items()):
        report.dag_ids.append(dag_id)
        report.problems.extend(_dag_problems(dag_id, dag, min_retries))
    return report


def _dag_problems(dag_id: str, dag: Any, min_retries: int) -> list[str]:
    problems = []
    if not dag.tags:
        problems.append(f"{dag_id}: no tags")
    try:
        dag.check_cycle()
    except Exception as exc:  # noqa: BLE001 - Airflow raises its own exception types for cycles
        problems.append(f"{dag_id}: cycle: {exc}")
    for task in dag.tasks:
        if not task.owner or task.owner == "airflow":
            problems.append(f"{dag_id}.{task.task_id}: set an owner (default_args['owner'])")
        if (task.retries or 0) < min_retries:
            problems.append(f"{dag_id}.{task.task_id}: retries {task.retries} < {min_retries}")
    return problems


def assert_dag_folder_ok(folder: str | Path, *, min_retries: int = 1) -> DagFolderReport:
    """Raise AssertionError listing every problem of the folder; return the report when clean."""
    report = check_dag_folder(folder, min_retries=min_retries)
    assert report.ok, "DAG folder problems:\n" + "\n".join(f"  - {p}" for p in report.problems)
    return report
