"""A manual run's note: what was asked, what the plan expects, or why the run was refused.

- ``text.py``: what the note says (pure);
- ``client.py``: reads and writes a run's note through Airflow's public REST API.
"""

from __future__ import annotations

from sagemaker_fleet.runnote.client import RunNoteClient, RunNoteError
from sagemaker_fleet.runnote.text import (
    asked_line,
    compose_note,
    cost_line,
    dry_run_line,
    fleet_view_line,
    plan_line,
    refused_line,
)

__all__ = [
    "RunNoteClient",
    "RunNoteError",
    "asked_line",
    "compose_note",
    "cost_line",
    "dry_run_line",
    "fleet_view_line",
    "plan_line",
    "refused_line",
]
