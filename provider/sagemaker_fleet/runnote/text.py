"""What a manual run's note says: what was asked, what the plan expects, or why the run was refused (pure).

Airflow shows a run's note on the run page, where a person who just pressed "Trigger" lands; the task logs are
one click per task further. The run page shows the note's first line until it is opened, so that line carries
what matters most: for a dry run the expected cost, otherwise what was asked. The note is a Markdown list (one line
per item also reads as plain text). A note the person typed when triggering is kept above ours; ours is rewritten, never appended twice, when
the plan task is retried.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from sagemaker_fleet.cost.svg import usd
from sagemaker_fleet.jobs.duration_text import duration

if TYPE_CHECKING:
    from sagemaker_fleet.fleetspec.model import FleetSpec
    from sagemaker_fleet.fleetspec.overrides import FleetOverrides
    from sagemaker_fleet.plan.model import PlanSummary

#: Airflow refuses a longer run note (``DAGRunPatchBody.note``).
NOTE_MAX_CHARS = 1000
#: How each of our notes begins (where our part of a note begins).
ASKED = "- Asked:"
REFUSED = "- Refused:"
DRY_RUN = "- Dry run, nothing launched:"
#: Cities named in the note; more are counted.
CITIES_SHOWN = 10


def _cities(names: Sequence[str], fleet_size: int) -> str:
    if not names:
        return f"all {fleet_size} cities"
    shown = ", ".join(names[:CITIES_SHOWN])
    more = f", … ({len(names) - CITIES_SHOWN} more)" if len(names) > CITIES_SHOWN else ""
    return f"{len(names)} of {fleet_size} cities ({shown}{more})"


def asked_line(overrides: FleetOverrides, spec: FleetSpec, dry_run: bool) -> str:
    """``- Asked: 3 of 200 cities (lima, oslo, seoul) · spot on · instance type: fleet default · dry run``."""
    itype = overrides.instance_type or "fleet default"
    launch = "dry run" if dry_run else "train"
    return (
        f"{ASKED} {_cities(overrides.cities, len(spec.cities))} · spot {'on' if overrides.spot else 'off'} · "
        f"instance type: {itype} · {launch}"
    )


def _planned(summary: PlanSummary) -> str:
    jobs = f"{summary.jobs} job" + ("" if summary.jobs == 1 else "s")
    return (
        f"{jobs} · {summary.warm_starts} warm / {summary.cold_starts} cold starts · makespan "
        f"{duration(summary.planned_makespan_seconds)}"
    )


def plan_line(summary: PlanSummary) -> str:
    return f"- Planned: {_planned(summary)}"


def dry_run_line(summary: PlanSummary, estimate: Mapping[str, Any]) -> str:
    """A dry run's first line: ``- Dry run, nothing launched: expected cost $0.42 · 3 jobs · 1 warm / 2 cold …``."""
    return f"{DRY_RUN} expected cost {usd(float(estimate['expected_usd']))} · {_planned(summary)}"


def cost_line(estimate: Mapping[str, Any]) -> str:
    """The expected cost (:func:`sagemaker_fleet.cost.estimate.estimate_plan_cost`) and what it is made of."""
    unpriced = list(estimate.get("unpriced") or ())
    return (
        f"- Expected cost: {usd(float(estimate['expected_usd']))} (on demand "
        f"{usd(float(estimate['on_demand_usd']))} · spot at most {usd(float(estimate['spot_upper_bound_usd']))}"
        f" · idle warm pools {usd(float(estimate['retained_usd']))})"
        + (
            f"; without the jobs on {', '.join(unpriced)}, which have no price in this region"
            if unpriced
            else ""
        )
    )


def fleet_view_line(url: str) -> str:
    """Where the run's Fleet view is, for an Airflow without the Fleet tab (3.0): ``- [Fleet view](url): …``."""
    return f"- [Fleet view]({url}): the run's jobs, lanes and cost, live"


def refused_line(reasons: Sequence[str]) -> str:
    return f"{REFUSED} {'; '.join(reasons)} — nothing was launched"


def compose_note(lines: Sequence[str], existing: str | None) -> str:
    """Our ``lines`` under the part of ``existing`` that is not ours, within Airflow's length limit."""
    own = _their_part(existing or "")
    ours = "\n".join(lines)
    if len(ours) > NOTE_MAX_CHARS:
        return ours[: NOTE_MAX_CHARS - 1] + "…"
    room = NOTE_MAX_CHARS - len(ours) - 2
    if not own or room < 20:
        return ours
    if len(own) > room:
        own = own[: room - 1] + "…"
    return f"{own}\n\n{ours}"


def _their_part(note: str) -> str:
    cut = min(
        (i for i in (note.find(mark) for mark in (ASKED, REFUSED, DRY_RUN)) if i >= 0), default=len(note)
    )
    return note[:cut].strip()
