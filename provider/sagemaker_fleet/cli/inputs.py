"""What the commands share about their input: the fleet spec read with its warnings on stderr, the ``--history``
file when given, the ``--run-key`` flag and its one default, one way of saying why the input does not allow a
run (exit 2), and the libraries' log lines kept off stdout while a command prints its result there."""

from __future__ import annotations

import os
import sys
from typing import TYPE_CHECKING

from sagemaker_fleet.fleetspec import FleetSpecError, load_fleet_spec
from sagemaker_fleet.fleetspec.issue import SpecIssue
from sagemaker_fleet.fleetspec.names import InvalidRunKeyError, today_run_key
from sagemaker_fleet.fleetspec.regions import environment_region, region_mismatch
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


def add_connection_argument(parser: argparse.ArgumentParser) -> None:
    """``--aws-conn-id``: the Airflow connection whose region is checked against the fleet's."""
    parser.add_argument(
        "--aws-conn-id",
        default="aws_default",
        metavar="CONN_ID",
        help="the Airflow connection the fleet's DAG uses: when the environment defines it "
        "(AIRFLOW_CONN_<CONN_ID>), or AWS_REGION / AWS_DEFAULT_REGION is set, its region must be the fleet's "
        "(default aws_default)",
    )


def run_key_of(args: argparse.Namespace) -> str:
    """The ``--run-key`` given, or today's in UTC (:func:`~sagemaker_fleet.fleetspec.names.today_run_key`)."""
    given: str | None = args.run_key
    return today_run_key() if given is None else given


def load_spec(path: str, *, conn_id: str | None = None) -> FleetSpec:
    """The fleet spec at ``path``, its ``job:`` templates checked against the installed botocore's model; its
    warnings go to stderr. ``conn_id``: also refuse it (``FleetSpecError`` on ``region``) when the region of that
    Airflow connection, as the environment defines it, is not the fleet's (:mod:`~sagemaker_fleet.fleetspec.regions`)."""
    from sagemaker_fleet.hooks.request_model import BOTOCORE_MODEL

    spec = load_fleet_spec(path, BOTOCORE_MODEL)
    if conn_id is not None:
        mismatch = region_mismatch(spec.region, environment_region(os.environ, conn_id))
        if mismatch is not None:
            raise FleetSpecError([SpecIssue("region", mismatch)], source=path)
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
