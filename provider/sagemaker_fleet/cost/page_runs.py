"""The report page's sections that set the run against others: its plan (warm starts planned and got, each missed
one and why, the idle cost nobody took) and other runs of the account (the pools that went between them)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from sagemaker_fleet.cost.against_plan import NO_PLAN
from sagemaker_fleet.cost.html import cell, head
from sagemaker_fleet.cost.svg import esc, usd

if TYPE_CHECKING:
    from sagemaker_fleet.cost.report import CostReport

NOT_SHOWN = "a job of another fleet (not named)"


def other_runs_section(report: CostReport) -> str:
    """The pools handed between this run and other runs of the account, and what could not be read. Other runs'
    jobs are named only where the report's disclosure allows (the run's own fleet); the rest are counted."""
    given = [line for line in report.lines if line.reused_by_other_run]
    taken = [line for line in report.lines if line.pool_from_other_run]
    looked = report.other_runs
    rows = [
        f"<tr>{cell(line.city)}{cell(line.job_name)}{cell('took the pool of')}"
        f"{cell(line.pool_from_job or NOT_SHOWN)}</tr>"
        for line in taken
    ] + [
        f"<tr>{cell(line.city)}{cell(line.job_name)}{cell('pool taken by')}"
        f"{cell(line.reused_by_job or NOT_SHOWN)}</tr>"
        for line in given
    ]
    columns = head([("city", False), ("job of this run", False), ("", False), ("job of another run", False)])
    table = (
        f'<table id="other-runs">{columns}<tbody>{"".join(rows)}</tbody></table>'
        if rows
        else '<p class="empty">No warm pool went between this run and another run.</p>'
    )
    notes: list[tuple[str, str]] = []
    if looked.listing_denied:
        notes.append(
            (
                "other-runs-unknown",
                "The credentials may not list the account's training jobs (AccessDenied): pools this run took from "
                "other runs are unknown and counted by start-up time only.",
            )
        )
    elif looked.unknown or looked.unknown_not_shown:
        named = f": {', '.join(looked.unknown)}" if looked.unknown else ""
        hidden = (
            f" ({looked.unknown_not_shown} of other fleets, not named)" if looked.unknown_not_shown else ""
        )
        notes.append(
            (
                "other-runs-unknown",
                f"{len(looked.unknown) + looked.unknown_not_shown} job(s) of other runs could not be described "
                f"(AccessDenied){hidden}{named}. A pool one of them handed to this run is counted only where the "
                "listing named the taker, and no image re-pull is flagged on it.",
            )
        )
    if not looked.looked_up and not taken:
        notes.append(
            (
                "other-runs-not-looked-up",
                "Pools taken from other runs were not looked up: only the run's jobs were read.",
            )
        )
    note = "".join(f'<p class="note" id="{name}">{esc(text)}</p>' for name, text in notes)
    return (
        f'<p class="note">SageMaker matches warm pools across the account: {len(taken)} job(s) of this run '
        f"started on another run's pool (counted as their warm starts) and {len(given)} pool(s) of this run went "
        f"to another run's job (its warm start, not this run's). Jobs of other fleets are counted, not named."
        f"</p>{table}{note}"
    )


PLAN_COLUMNS: tuple[tuple[str, bool], ...] = (
    ("group", False),
    ("pool key", False),
    ("planned jobs", True),
    ("planned warm", True),
    ("warm got", True),
    ("planned warm missed", True),
    ("why missed", False),
    ("pools nobody took", True),
    ("idle cost nobody took", True),
)


def plan_section(report: CostReport) -> str:
    """The run against its plan: a flag when it got far fewer warm starts than planned, a row per group, and each
    missed warm start with its reason; one line saying how to get it when the report was made without the plan."""
    against = report.against_plan
    if against is None:
        return f'<p class="note" id="no-plan">{esc(NO_PLAN)}</p>'
    flag = (
        f'<p class="warn" id="plan-short">Far fewer warm starts than planned: {esc(against.headline())}.</p>'
        if against.short
        else f'<p class="note" id="plan-headline">{esc(against.headline())}.</p>'
    )
    rows = "".join(
        "<tr>"
        + "".join(
            [
                cell(g.group.id),
                cell(g.group.label),
                cell(g.planned_jobs, True),
                cell(g.planned_warm_starts, True),
                cell(g.warm_starts, True),
                cell(len(g.missed), True),
                cell(g.reasons() + (f"; {g.not_started} not started" if g.not_started else "")),
                cell(g.untaken_pools, True),
                cell(usd(g.untaken_retained_cost_usd, 4), True, round(g.untaken_retained_cost_usd, 6)),
            ]
        )
        + "</tr>"
        for g in against.groups
    )
    missed = "".join(
        f"<tr>{cell(m.city)}{cell(m.job_name)}{cell(m.group)}{cell(m.reason)}{cell(m.detail)}</tr>"
        for m in against.missed
    )
    missed_table = (
        f'<table id="missed-warm">{head([(n, False) for n in ("city", "job", "group", "reason", "why")])}'
        f"<tbody>{missed}</tbody></table>"
        if missed
        else '<p class="empty">Every planned warm start that ran started warm.</p>'
    )
    return (
        f'{flag}<div class="scroll"><table id="plan-groups">{head(PLAN_COLUMNS)}<tbody>{rows}</tbody></table>'
        f'</div><h3>Planned warm starts that started cold</h3><div class="scroll">{missed_table}</div>'
        '<p class="note">Warm got counts every warm start of the group, planned or not (the run hands a pool to '
        "whichever city of the group is ready). A planned warm start is missed when the city's first job started "
        "cold; why is read from what SageMaker said of its lane predecessor's pool (ReusedByJob, retained time, "
        "keep-alive). Idle cost nobody took: the retained warm-pool time billed for pools that ended with no job "
        "taking them over.</p>"
    )
