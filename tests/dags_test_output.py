"""The warnings in an ``airflow dags test`` output, and which of them our own code causes.

A deprecated Airflow API that the provider calls shows in the output as a ``py.warnings`` line whose ``filename`` is
the provider's module (Airflow warns with ``stacklevel=2``: the caller is named), on every supported Airflow:
structlog's ``… [py.warnings] category=DeprecationWarning filename=/…/sagemaker_fleet/x.py lineno=12`` from 3.1 and
the stdlib's ``…/sagemaker_fleet/x.py:12: DeprecationWarning: …`` on 3.0. An asset event for an asset no DAG declares
("Emitting event for inactive AssetModel") is ours too: in a fleet DAG only the report task emits one (the models
asset, through its alias). Warnings that name another package (the Amazon provider, Airflow, SQLAlchemy) are
Airflow's own: :func:`warning_lines` lists them, :func:`warnings_from_our_code` leaves them out.

For the first-run e2e module (``tests/e2e/test_first_run.py``: ``assert warnings_from_our_code(output) == []``);
tested on sample lines in ``tests/unit/airflow/test_dags_test_output.py``.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

#: What marks a line as a warning worth reading: deprecations (Airflow's own categories included), SQLAlchemy's
#: warnings, and Airflow's word on an asset event for an undeclared asset.
MARKERS = (
    "DeprecationWarning",
    "DeprecatedImportWarning",
    "RemovedInAirflow",
    "is deprecated",
    "SAWarning",
    "inactive AssetModel",
)
#: The provider's package, as it appears in a warning's file path.
PACKAGE = "sagemaker_fleet"
_FILENAME = re.compile(r"filename=(\S+)|(\S+\.py):\d+: \w*Warning")


@dataclass(frozen=True)
class WarningLine:
    """One warning line of the output: its text, the file the warning names (None: it names none) and whether the
    provider's own code caused it."""

    text: str
    filename: str | None
    ours: bool


def warning_lines(output: str) -> list[WarningLine]:
    """Every line of ``output`` that carries one of :data:`MARKERS`, with where the warning points."""
    found = []
    for line in output.splitlines():
        if not any(marker in line for marker in MARKERS):
            continue
        match = _FILENAME.search(line)
        filename = (match.group(1) or match.group(2)) if match else None
        ours = "inactive AssetModel" in line or (filename is not None and f"/{PACKAGE}/" in filename)
        found.append(WarningLine(line.strip(), filename, ours))
    return found


def warnings_from_our_code(output: str) -> list[str]:
    """The warning lines the provider's own code causes (a deprecated call of ours, an event for an undeclared
    asset): empty when there is none."""
    return [line.text for line in warning_lines(output) if line.ours]
