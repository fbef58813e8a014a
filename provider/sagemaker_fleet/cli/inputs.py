"""What the commands share about their input: the fleet spec read with its warnings on stderr, the ``--history``
file when given, and one way of saying why the input does not allow a run (exit 2)."""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING

from sagemaker_fleet.fleetspec import FleetSpecError, load_fleet_spec
from sagemaker_fleet.fleetspec.names import InvalidRunKeyError
from sagemaker_fleet.plan import DurationHistory, HistoryError, PlanError

if TYPE_CHECKING:
    from sagemaker_fleet.fleetspec.model import FleetSpec

#: The errors of a spec, a run key, a history file or quotas that allow no plan: the message says what to fix.
INPUT_ERRORS: tuple[type[Exception], ...] = (FleetSpecError, HistoryError, InvalidRunKeyError, PlanError)


def load_spec(path: str) -> FleetSpec:
    """The fleet spec at ``path``; its warnings go to stderr."""
    spec = load_fleet_spec(path)
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
