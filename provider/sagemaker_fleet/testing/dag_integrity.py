"""DAG-integrity checks: the folder exists and holds DAGs, every DAG file imports, parsing does no
network/DB/connection lookup, every fleet YAML validates, DAGs carry tags, an owner and retries, and have no cycles.

Usage in a user's test suite (the folder named from the test file, so the check finds it from any directory)::

    from pathlib import Path

    from sagemaker_fleet.testing import assert_dag_folder_ok

    def test_dags():
        assert_dag_folder_ok(Path(__file__).resolve().parents[1] / "dags")
"""

from __future__ import annotations

import contextlib
import socket
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any
from unittest import mock

from sagemaker_fleet.errors import SageMakerFleetError
from sagemaker_fleet.fleetspec.errors import FleetSpecError
from sagemaker_fleet.fleetspec.load import load_fleet_spec
from sagemaker_fleet.hooks.request_model import BOTOCORE_MODEL

if TYPE_CHECKING:
    from sagemaker_fleet.fleetspec.issue import SpecIssue


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
    from sagemaker_fleet.compat import base_hook

    with contextlib.ExitStack() as stack:
        stack.enter_context(mock.patch.object(socket.socket, "connect", _forbid("a network connection")))
        stack.enter_context(mock.patch.object(socket, "create_connection", _forbid("a network connection")))
        stack.enter_context(mock.patch.object(base_hook(), "get_connection", _forbid("a connection lookup")))
        stack.enter_context(mock.patch("airflow.settings.Session", _forbid("a metadata-DB session")))
        yield


def check_dag_folder(folder: str | Path, *, min_retries: int = 1) -> DagFolderReport:
    """Parse every DAG file under ``folder`` and validate every fleet YAML beside them.

    A check that checks nothing must not pass: a missing folder (a relative path read from another working
    directory) and a folder without any DAG are problems. Each problem is reported once: a fleet spec's errors are
    listed once even when DAG files fail to import because of them (those files get one line each pointing there).
    """
    from sagemaker_fleet.compat import dag_bag_class

    DagBag = dag_bag_class()  # Airflow's class, from where this version keeps it

    folder = Path(folder)
    report = DagFolderReport()
    if not folder.is_dir():
        report.problems.append(_not_a_folder(folder))
        return report
    listed: set[tuple[str, tuple[SpecIssue, ...]]] = set()
    for spec in sorted([*folder.rglob("*.yaml"), *folder.rglob("*.yml")]):
        try:
            load_fleet_spec(spec, BOTOCORE_MODEL)
        except FleetSpecError as exc:
            listed.add(_spec_key(exc))
            report.problems.append(str(exc))
    started = time.perf_counter()
    with no_parse_time_access(), _spec_errors_raised() as raised:
        bag = DagBag(dag_folder=str(folder), safe_mode=True)  # what the dag-processor does by default
    report.parse_seconds = time.perf_counter() - started
    failed = set()
    for where, error in sorted(bag.import_errors.items()):
        failed.add(Path(where).resolve())
        report.problems.extend(_import_problems(where, error, raised, listed))
    parsed = {Path(dag.fileloc).resolve() for dag in bag.dags.values()}
    skipped = [
        source
        for source in sorted(folder.rglob("*.py"))
        if source.resolve() not in parsed | failed and _skipped_by_safe_mode(source)
    ]
    for source in skipped:
        report.problems.append(
            f"{source}: defines a DAG that Airflow's safe mode skips: the file must contain the words "
            "'airflow' and 'dag' (e.g. in its docstring)"
        )
    if not bag.dags and not failed and not skipped:
        report.problems.append(
            f"{folder.resolve()}: no DAG found: a check over it would pass while checking nothing; point it at "
            "the folder of your DAG files"
        )
    for dag_id, dag in sorted(bag.dags.items()):
        report.dag_ids.append(dag_id)
        report.problems.extend(_dag_problems(dag_id, dag, min_retries))
    return report


def _not_a_folder(folder: Path) -> str:
    what = "is a file, not a folder" if folder.exists() else "does not exist"
    return (
        f"{folder}: {what} (looked in {folder.resolve()}, from the working directory {Path.cwd()}); name the DAG "
        "folder from the test file, e.g. Path(__file__).resolve().parents[1] / 'dags', so the check finds it from "
        "any working directory"
    )


def _spec_key(error: FleetSpecError) -> tuple[str, tuple[SpecIssue, ...]]:
    """The same spec read through two paths (``dags/fleets/x.yaml``, ``/abs/dags/fleets/x.yaml``) is one spec."""
    return (str(Path(error.source).resolve()) if error.source else "", error.issues)


@contextlib.contextmanager
def _spec_errors_raised() -> Iterator[list[FleetSpecError]]:
    """Every FleetSpecError created while DAG files are imported: an import error only carries its text."""
    raised: list[FleetSpecError] = []
    original = FleetSpecError.__init__

    def record(self: FleetSpecError, *args: Any, **kwargs: Any) -> None:
        original(self, *args, **kwargs)
        raised.append(self)

    with mock.patch.object(FleetSpecError, "__init__", record):
        yield raised


def _import_problems(
    where: str, error: str, raised: list[FleetSpecError], listed: set[tuple[str, tuple[SpecIssue, ...]]]
) -> list[str]:
    """One line for a DAG file that failed to import; a fleet spec's errors once, not again inside a traceback."""
    spec_error = next((exc for exc in raised if str(exc) in error), None)
    if spec_error is None:
        return [f"{where}: import error: {error}"]
    problems = []
    if _spec_key(spec_error) not in listed:
        listed.add(_spec_key(spec_error))
        problems.append(str(spec_error))
    spec = f" {spec_error.source}" if spec_error.source else ""
    problems.append(f"{where}: import error: its fleet spec{spec} has errors (listed above)")
    return problems


def _skipped_by_safe_mode(source: Path) -> bool:
    """A file that builds a DAG but that the dag-processor's safe-mode heuristic would not even import."""
    from airflow.utils.file import might_contain_dag

    text = source.read_text(encoding="utf-8", errors="replace")
    mentions_dag = "build_fleet_dag(" in text or "DAG(" in text
    return mentions_dag and not might_contain_dag(str(source), safe_mode=True)


def _dag_problems(dag_id: str, dag: Any, min_retries: int) -> list[str]:
    problems = []
    if not dag.tags:
        problems.append(f"{dag_id}: no tags")
    from sagemaker_fleet.compat import check_cycle

    try:
        check_cycle(dag)
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
