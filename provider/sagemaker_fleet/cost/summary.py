"""The few lines the CLI prints and the report task logs.

A line that starts with :data:`WARNING` flags a run that needs a look (far fewer warm starts than planned): the
report task logs it as a warning, without the prefix; the command prints it as it is.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from sagemaker_fleet.cost.against_plan import NO_PLAN
from sagemaker_fleet.cost.svg import usd
from sagemaker_fleet.fleetspec.render import some_names
from sagemaker_fleet.jobs.duration_text import duration
from sagemaker_fleet.registry.decision import summary_line

if TYPE_CHECKING:
    from sagemaker_fleet.cost.report import CostReport

WARNING = "warning: "
#: Missed warm starts the summary names one by one (report.html lists every one).
MISSED_SHOWN = 5


def summary_lines(report: CostReport) -> list[str]:
    t = report.totals
    return [
        f"{report.fleet} run {report.run_key}: {t.jobs} submissions ({t.completed} completed, {t.failed} failed, "
        f"{t.stopped} stopped, {t.in_progress} running; {t.resubmitted} re-submissions)",
        f"cost {usd(t.cost_usd)} · on-demand equivalent {usd(t.on_demand_cost_usd)} · spot saved "
        f"{usd(t.spot_savings_usd)} ({t.spot_savings_pct:.1f} % on {t.spot_jobs} spot jobs) · retained idle "
        f"{usd(t.retained_cost_usd)}",
        f"starts: {t.warm_starts} warm, {t.cold_starts} cold ({t.warm_image_pulls} warm with the image re-pulled)"
        f" · start-up saved {duration(t.startup_seconds_saved)}",
        *_unpriced(report),
        *_other_runs(report),
        *_released(report),
        *plan_lines(report),
        *([summary_line(report.models)] if report.models is not None else []),
    ]


def _unpriced(report: CostReport) -> list[str]:
    """The instance types no price source knows, and the fix: their jobs' money is in none of the figures above."""
    unknown = sorted(itype for itype, price in report.prices.items() if not price.known)
    if not unknown:
        return []
    return [
        f"no price for {', '.join(unknown)} in {report.region}: the cost figures above leave out its "
        f"{report.totals.unpriced_jobs} job(s) (their seconds are counted); run `sagemaker-fleet prices refresh` or "
        "add the price to the fleet spec as `prices:`"
    ]


def plan_lines(report: CostReport) -> list[str]:
    """The run against its plan: the headline (a :data:`WARNING` line when far fewer warm starts than planned),
    a line per group that planned warm starts or left pools nobody took, and the first missed warm starts."""
    against = report.against_plan
    if against is None:
        return [NO_PLAN]
    head = (
        f"{WARNING}far fewer warm starts than planned — {against.headline()}"
        if against.short
        else f"plan against actual: {against.headline()}"
    )
    lines = [head]
    for g in against.groups:
        if not (g.planned_warm_starts or g.untaken_pools):
            continue
        why = f" — missed {len(g.missed)} ({g.reasons()})" if g.missed else ""
        waiting = f", {g.not_started} not started" if g.not_started else ""
        lines.append(
            f"  group {g.group.id} ({g.group.label}): {g.planned_jobs} job(s) planned, {g.planned_warm_starts} "
            f"warm planned, {g.warm_starts} warm got{why}{waiting}; {g.untaken_pools} pool(s) nobody took "
            f"({usd(g.untaken_retained_cost_usd)})"
        )
    missed = against.missed
    lines += [f"  {m.city} ({m.group}): {m.reason} — {m.detail}" for m in missed[:MISSED_SHOWN]]
    if len(missed) > MISSED_SHOWN:
        rest = some_names([m.city for m in missed[MISSED_SHOWN:]])
        lines.append(f"  and {len(missed) - MISSED_SHOWN} more missed ({rest}): report.html lists every one")
    return lines


def _other_runs(report: CostReport) -> list[str]:
    t, looked = report.totals, report.other_runs
    if not (
        t.pools_given_to_other_runs
        or t.pools_taken_from_other_runs
        or looked.unknown
        or looked.listing_denied
    ):
        return []
    unknown = (
        " · the account's jobs may not be listed: pools taken from other runs unknown"
        if looked.listing_denied
        else f" · {len(looked.unknown)} other run(s)' job(s) could not be described"
        if looked.unknown
        else ""
    )
    return [
        f"warm pools across runs: {t.pools_taken_from_other_runs} taken from other runs (warm starts of this run), "
        f"{t.pools_given_to_other_runs} given to other runs{unknown}"
    ]


def _released(report: CostReport) -> list[str]:
    r = report.released
    if r is None:
        return []
    kept = f" · {r.kept} kept for the next run" if r.kept else ""
    return [
        f"at the run's end {r.pools} idle warm pool(s) ended: {duration(r.idle_seconds_saved)} of idle "
        f"instance time ({usd(r.idle_cost_saved_usd)}) not billed{kept}"
    ]
