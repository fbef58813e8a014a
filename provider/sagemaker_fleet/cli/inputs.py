"""What the commands share about their input: the fleet spec read with its warnings on stderr, the ``--history``
file when given, the ``--run-key`` flag and its one default, one way of saying why the input does not allow a
run (exit 2), and the libraries' log lines kept off stdout while a command prints its result there."""

from __future__ import annotations

import contextlib
import logging
import sys
from collections.abc import Iterator
from typing import TYPE_CHECKING

from sagemaker_fleet.fleetspec import FleetSpecError, load_fleet_spec
from sagemaker_fleet.fleetspec.names import InvalidRunKeyError, today_run_key
from sagemaker_fleet.plan import DurationHistory, HistoryError, PlanError

if TYPE_CHECKING:
    import argparse

    from sagemaker_fleet.fleetspec.model import FleetSpec

#: The errors of a spec, a run key, a history file or quotas that allow no plan: the message says what to fix.
INPUT_ERRORS: tuple[type[Exception], ...] = (FleetSpecError, HistoryError, InvalidRunKeyError, PlanError)


def add_run_key_argument(parser: argparse.ArgumentParser) -> None:
    """``--run-key`` with the one default of every command (:func:`run_key_of`)."""
    parser.add_argument(
        "--run-key",
        metavar="K",
        default=None,
        help="run key in job names, 1-16 lowercase letters or digits (default: today's date in UTC, YYYYMMDD, "
        "the key of today's run of a daily DAG)",
    )


def run_key_of(args: argparse.Namespace) -> str:
    """The ``--run-key`` given, or today's in UTC (:func:`~sagemaker_fleet.fleetspec.names.today_run_key`)."""
    given: str | None = args.run_key
    return today_run_key() if given is None else given


def load_spec(path: str) -> FleetSpec:
    """The fleet spec at ``path``, its ``job:`` templates checked against the installed botocore's model; its
    warnings go to stderr."""
    from sagemaker_fleet.hooks.request_model import BOTOCORE_MODEL

    spec = load_fleet_spec(path, BOTOCORE_MODEL)
    for warning in spec.warnings:
        print(f"warning: {warning}", file=sys.stderr)
    return spec


def load_history(path: str | None, spec: FleetSpec) -> DurationHistory | None:
    """The durations of a previous run's report.json (``--history``), or None without one."""
    return DurationHistory.load(path, spec.fleet) if path else None


def refused(exc: Exception, spec_path: str | None = None) -> int:
    """Say on stderr why the input was refused and return exit code 2. A spec error names its file and line
    itself, a history error is the ``--history`` file's; anything else is said of the spec at ``spec_path``."""
    if isinstance(exc, FleetSpecError) or spec_path is None:
        message = str(exc)
    elif isinstance(exc, HistoryError):
        message = f"--history: {exc}"
    else:
        message = f"{spec_path}: {exc}"
    print(message, file=sys.stderr)
    return 2


@contextlib.contextmanager
def library_logs_to_stderr() -> Iterator[None]:
    """While a command runs, the root logger writes WARNING and above to stderr only (once Airflow is imported,
    3.0's logging sends botocore's INFO lines to stdout, the stream of a command's report or JSON); as it was
    afterwards."""
    root = logging.getLogger()
    handlers, level = root.handlers, root.level
    handler = logging.StreamHandler(sys.stderr)
    handler.setLevel(logging.WARNING)
    root.handlers = [handler]
    try:
        yield
    finally:
        root.handlers, root.level = handlers, level
