"""``report.json`` and ``report.csv`` (docs/formats.md, cost report files): the stable fields first, in their order, extras
after; ``plan_against_actual`` (the run against its plan, per group) when the report has the plan.

Money is rounded to micro-dollars (6 places) and percentages to 2 places when written; totals are summed before
rounding. The CSV has one row per job with exactly the JSON job object's columns. A run whose jobs report final
metrics (MetricDefinitions) adds ``metrics`` to each job and to the document, and a ``metric:<name>`` column per
metric to the CSV; a run without them has neither. A run whose models went through the registry's gate
(``register:``) adds ``models`` to the document (the counts and each city's decision) and the ``model:*`` columns
to the CSV, filled on the row of the job the decision was about.
"""

from __future__ import annotations

import csv
import dataclasses
import io
import json
from collections.abc import Mapping
from datetime import datetime
from typing import TYPE_CHECKING, Any

from sagemaker_fleet.cost.metrics import city_metrics, metric_names, summarize
from sagemaker_fleet.cost.totals import CostTotals

if TYPE_CHECKING:
    from sagemaker_fleet.cost.against_plan import MissedWarmStart
    from sagemaker_fleet.cost.model import CostLine
    from sagemaker_fleet.cost.report import CostReport

#: The stable job fields (docs/formats.md, cost report files), in their order. Never rename or drop one.
STABLE_JOB_FIELDS = (
    "city",
    "job_name",
    "status",
    "secondary_status",
    "failure_reason",
    "instance_type",
    "instance_count",
    "spot",
    "start",
    "startup_seconds",
    "training_seconds",
    "billable_seconds",
    "retained_billable_seconds",
    "price_per_hour",
    "cost_usd",
    "on_demand_cost_usd",
    "spot_savings_pct",
)
EXTRA_JOB_FIELDS = (
    "attempt",
    "start_evidence",
    "startup_seconds_saved",
    "retained_cost_usd",
    "price_source",
    "group",
    "lane",
    "warm_pool_status",
    "reused_by_job",
    "keep_alive_seconds",
    "created_at",
    "training_started_at",
    "ended_at",
    "image_pulled",
    "pool_from_job",
    "pool_from_other_run",
    "reused_by_other_run",
    "pool_untaken",
    "planned_start",
    "missed_warm_start",
)
JOB_FIELDS = STABLE_JOB_FIELDS + EXTRA_JOB_FIELDS

#: The stable totals fields (docs/formats.md, cost report files), in their order.
STABLE_TOTAL_FIELDS = (
    "jobs",
    "completed",
    "failed",
    "cost_usd",
    "on_demand_cost_usd",
    "spot_savings_usd",
    "retained_cost_usd",
    "warm_starts",
    "cold_starts",
    "startup_seconds_saved",
)
EXTRA_TOTAL_FIELDS = (
    "stopped",
    "in_progress",
    "resubmitted",
    "spot_jobs",
    "spot_savings_pct",
    "startup_seconds",
    "training_seconds",
    "billable_seconds",
    "retained_billable_seconds",
    "warm_image_pulls",
    "pools_given_to_other_runs",
    "pools_taken_from_other_runs",
    "unpriced_jobs",
    "untaken_pools",
    "untaken_retained_billable_seconds",
    "untaken_retained_cost_usd",
)
#: A job's money fields: null in the JSON (empty in the CSV) for a job whose instance type has no price.
JOB_MONEY_FIELDS = frozenset({"price_per_hour", "cost_usd", "on_demand_cost_usd", "retained_cost_usd"})

#: The CSV's columns of a gated run: the decision about the row's job (empty on the city's other rows).
MODEL_COLUMNS = ("model:decision", "model:value", "model:champion", "model:package_arn")

MONEY_PLACES = 6


def _money(value: float) -> float:
    return round(value, MONEY_PLACES) + 0.0  # + 0.0 turns -0.0 into 0.0


def _time(value: datetime | None) -> str | None:
    return value.isoformat() if value is not None else None


def job_json(
    line: CostLine,
    lane: str | None = None,
    planned_start: str | None = None,
    missed: MissedWarmStart | None = None,
) -> dict[str, Any]:
    """A job's object: ``planned_start`` is how the run's plan starts its city (None: no plan, or a city it does not
    have), ``missed`` the planned warm start this job missed (:mod:`sagemaker_fleet.cost.against_plan`)."""
    values: dict[str, Any] = {
        "city": line.city,
        "job_name": line.job_name,
        "status": line.status,
        "secondary_status": line.secondary_status,
        "failure_reason": line.failure_reason,
        "instance_type": line.instance_type,
        "instance_count": line.instance_count,
        "spot": line.spot,
        "start": line.start,
        "startup_seconds": round(line.startup_seconds, 3),
        "training_seconds": line.training_seconds,
        "billable_seconds": line.billable_seconds,
        "retained_billable_seconds": line.retained_billable_seconds,
        "price_per_hour": line.price_per_hour,
        "cost_usd": _money(line.cost_usd),
        "on_demand_cost_usd": _money(line.on_demand_cost_usd),
        "spot_savings_pct": round(line.spot_savings_pct, 2),
        "attempt": line.attempt,
        "start_evidence": line.start_evidence,
        "startup_seconds_saved": round(line.startup_seconds_saved, 3),
        "retained_cost_usd": _money(line.retained_cost_usd),
        "price_source": line.price_source,
        "group": line.group,
        "lane": lane,
        "warm_pool_status": line.warm_pool_status,
        "reused_by_job": line.reused_by_job,
        "keep_alive_seconds": line.keep_alive_seconds,
        "created_at": _time(line.created_at),
        "training_started_at": _time(line.training_started_at),
        "ended_at": _time(line.ended_at),
        "image_pulled": line.image_pulled,
        "pool_from_job": line.pool_from_job,
        "pool_from_other_run": line.pool_from_other_run,
        "reused_by_other_run": line.reused_by_other_run,
        "pool_untaken": line.pool_untaken,
        "planned_start": planned_start,
        "missed_warm_start": missed.reason if missed is not None else None,
    }
    if not line.priced:  # no source knows its price: unknown, not zero
        values.update(dict.fromkeys(JOB_MONEY_FIELDS))
    return {name: values[name] for name in JOB_FIELDS}


def metrics_json(report: CostReport) -> dict[str, Any] | None:
    """The run's final metrics: their names, each city's values, the best and worst city of each; None without."""
    names = metric_names(report.lines)
    if not names:
        return None
    by_city = city_metrics(report.lines)
    return {
        "names": list(names),
        "by_city": by_city,
        "summary": [summary.to_json() for summary in summarize(by_city, names)],
    }


def totals_json(totals: CostTotals) -> dict[str, Any]:
    values: dict[str, Any] = {
        "jobs": totals.jobs,
        "completed": totals.completed,
        "failed": totals.failed,
        "cost_usd": _money(totals.cost_usd),
        "on_demand_cost_usd": _money(totals.on_demand_cost_usd),
        "spot_savings_usd": _money(totals.spot_savings_usd),
        "retained_cost_usd": _money(totals.retained_cost_usd),
        "warm_starts": totals.warm_starts,
        "cold_starts": totals.cold_starts,
        "startup_seconds_saved": round(totals.startup_seconds_saved, 3),
        "stopped": totals.stopped,
        "in_progress": totals.in_progress,
        "resubmitted": totals.resubmitted,
        "spot_jobs": totals.spot_jobs,
        "spot_savings_pct": round(totals.spot_savings_pct, 2),
        "startup_seconds": round(totals.startup_seconds, 3),
        "training_seconds": totals.training_seconds,
        "billable_seconds": totals.billable_seconds,
        "retained_billable_seconds": totals.retained_billable_seconds,
        "warm_image_pulls": totals.warm_image_pulls,
        "pools_given_to_other_runs": totals.pools_given_to_other_runs,
        "pools_taken_from_other_runs": totals.pools_taken_from_other_runs,
        "unpriced_jobs": totals.unpriced_jobs,
        "untaken_pools": totals.untaken_pools,
        "untaken_retained_billable_seconds": totals.untaken_retained_billable_seconds,
        "untaken_retained_cost_usd": _money(totals.untaken_retained_cost_usd),
    }
    return {name: values[name] for name in STABLE_TOTAL_FIELDS + EXTRA_TOTAL_FIELDS}


def lane_of_jobs(report: CostReport) -> dict[str, str]:
    return {job: lane.label for lane in report.lanes for job in lane.jobs}


def missed_of_jobs(report: CostReport) -> dict[str, MissedWarmStart]:
    """Job name → the planned warm start it missed (empty without the plan)."""
    return {m.job_name: m for m in report.against_plan.missed} if report.against_plan else {}


def report_jobs(report: CostReport) -> list[dict[str, Any]]:
    """The report's job objects, in its line order (the rows of report.csv)."""
    lanes, missed = lane_of_jobs(report), missed_of_jobs(report)
    return [
        job_json(
            line,
            lanes.get(line.job_name),
            report.planned_starts.get(line.city),
            missed.get(line.job_name),
        )
        for line in report.lines
    ]


def report_json(report: CostReport) -> dict[str, Any]:
    """The ``report.json`` document: ``fleet, run_key, jobs, totals`` (stable), then extras."""
    metrics = metrics_json(report)
    jobs = report_jobs(report)
    if metrics is not None:
        jobs = [{**job, "metrics": dict(line.metrics)} for job, line in zip(jobs, report.lines, strict=True)]
    document = {
        "fleet": report.fleet,
        "run_key": report.run_key,
        "jobs": jobs,
        "totals": totals_json(report.totals),
        "region": report.region,
        "input_mode": report.input_mode,
        "generated_at": report.generated_at.isoformat(),
        "by_city": _named(report.by_city, "city"),
        "by_group": [
            {
                "group": g.id,
                "label": g.label,
                "instance_type": g.instance_type,
                "instance_count": g.instance_count,
                "spot": g.spot,
                "planned": g.planned,
                "key": g.key.to_json() if g.key else None,
                **totals_json(report.by_group.get(g.id, CostTotals())),
            }
            for g in report.groups
        ],
        "by_instance_type": _named(report.by_instance_type, "instance_type"),
        "lanes": [
            {"lane": lane.label, "group": lane.group, "chains": [list(chain.jobs) for chain in lane.chains]}
            for lane in report.lanes
        ],
        "prices": {
            itype: {"usd_per_hour": p.usd_per_hour, "source": p.source, "detail": p.detail}
            for itype, p in sorted(report.prices.items())
        },
        "price_table_as_of": report.price_table_as_of,
        "cities_without_jobs": list(report.cities_without_jobs),
        "pools_released": dataclasses.asdict(report.released) if report.released else None,
        "other_runs_pools": other_runs_json(report),
        "plan_against_actual": report.against_plan.to_json() if report.against_plan else None,
    }
    if metrics is not None:
        document["metrics"] = metrics
    if report.models is not None:
        document["models"] = report.models.to_json()
    return document


def other_runs_json(report: CostReport) -> dict[str, Any]:
    """Pools handed between the run and other runs: each job of the run whose pool another run's job took, each
    that started on another run's pool, and what the look at the account could not read."""
    return {
        "given": [
            {"city": line.city, "job_name": line.job_name, "taken_by_job": line.reused_by_job}
            for line in report.lines
            if line.reused_by_other_run
        ],
        "taken": [
            {"city": line.city, "job_name": line.job_name, "from_job": line.pool_from_job}
            for line in report.lines
            if line.pool_from_other_run
        ],
        **report.other_runs.to_json(),
    }


def _named(totals: Mapping[str, CostTotals], field: str) -> list[dict[str, Any]]:
    return [{field: name, **totals_json(value)} for name, value in totals.items()]


def render_json(report: CostReport) -> str:
    return json.dumps(report_json(report), indent=2, ensure_ascii=False) + "\n"


#: A text cell starting with one of these is a formula to a spreadsheet (``=HYPERLINK(...)`` in a container's
#: failure reason, say): such cells get a leading ``'``, which spreadsheets show as text. Numbers are left alone.
FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r", "\n")


def _csv_cell(value: Any) -> str:
    if value is None:
        return ""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, str):
        # a lone CR would end the row for a reader (the writer quotes only the "\n" terminator): newlines only
        text = value.replace("\r\n", "\n").replace("\r", "\n")
        return "'" + text if text.startswith(FORMULA_STARTS) else text
    return str(value)


def render_csv(report: CostReport) -> str:
    """One row per job, the columns of the JSON job object; booleans ``true``/``false``, nulls empty, text that a
    spreadsheet would run as a formula prefixed with ``'``."""
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    names = metric_names(report.lines)
    decided = (
        {d.job_name: d for d in report.models.cities if d.job_name} if report.models is not None else None
    )
    models = MODEL_COLUMNS if decided is not None else ()
    writer.writerow([*JOB_FIELDS, *(f"metric:{name}" for name in names), *models])
    for line, row in zip(report.lines, report_jobs(report), strict=True):
        metrics = dict(line.metrics)
        cells = [_csv_cell(row[name]) for name in JOB_FIELDS] + [
            _csv_cell(metrics.get(name)) for name in names
        ]
        if decided is not None:
            d = decided.get(line.job_name)
            values = (d.decision, d.challenger, d.champion, d.package_arn) if d else (None,) * 4
            cells += [_csv_cell(value) for value in values]
        writer.writerow(cells)
    return out.getvalue()
