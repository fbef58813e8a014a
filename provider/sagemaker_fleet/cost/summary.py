"""The few lines the CLI prints and the report task logs."""

from __future__ import annotations

from typing import TYPE_CHECKING

from sagemaker_fleet.cost.svg import usd
from sagemaker_fleet.jobs.duration_text import duration
from sagemaker_fleet.registry.decision import summary_line

if TYPE_CHECKING:
    from sagemaker_fleet.cost.report import CostReport


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
        *_other_runs(report),
        *_released(report),
        *([summary_line(report.models)] if report.models is not None else []),
    ]


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
