"""The Fleet view of one run: the plan's lanes beside what SageMaker did, who waits and why, and the money (pure).

Everything is computed from values handed in — the fleet spec as the run trains it, the plan JSON the plan task
pushed, the DescribeTrainingJob responses of the run's jobs and a clock — so the same function serves the
Airflow plugin, the tests and any other shell. Costs come from the cost report's own model
(:func:`sagemaker_fleet.cost.build_cost_report`), so the tab and report.html can never disagree on a job.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any

from sagemaker_fleet.cost.crossruns import Giver, OtherRunsPools
from sagemaker_fleet.cost.estimate import estimate_plan_cost, expected_cost_by_city
from sagemaker_fleet.cost.export import metrics_json, report_jobs
from sagemaker_fleet.cost.gantt import TimeScale, render_gantt, time_scale
from sagemaker_fleet.cost.report import RunJobIndex, build_cost_report
from sagemaker_fleet.dispatch import dispatch_from_plan
from sagemaker_fleet.dispatch.state import Wait
from sagemaker_fleet.fleetview.account import AccountSnapshot, account_json
from sagemaker_fleet.fleetview.plan_svg import plan_makespan, render_plan_gantt
from sagemaker_fleet.jobs.statuses import TERMINAL_STATUSES as TERMINAL
from sagemaker_fleet.links.fleet import SageMakerTrainingJobLink, TrainingJobLogsLink
from sagemaker_fleet.plan.fleet_plan import FleetPlan

if TYPE_CHECKING:
    from sagemaker_fleet.cost.disclosure import Disclosure
    from sagemaker_fleet.cost.model import CostLine
    from sagemaker_fleet.dispatch.tracker import RunTracker
    from sagemaker_fleet.fleetspec.model import FleetSpec
    from sagemaker_fleet.jobs.prices import PriceBook
    from sagemaker_fleet.registry.decision import RunDecisions

#: The report.json job fields (:func:`sagemaker_fleet.cost.export.job_json`) a job's row shows, in its order.
VIEW_JOB_FIELDS = (
    "city",
    "job_name",
    "attempt",
    "group",
    "status",
    "secondary_status",
    "failure_reason",
    "instance_type",
    "instance_count",
    "spot",
    "start",
    "warm_pool_status",
    "training_seconds",
    "billable_seconds",
    "retained_billable_seconds",
    "planned_start",
    "missed_warm_start",
)
#: Airflow DAG-run states after which nothing more will start.
RUN_ENDED = frozenset({"success", "failed"})


@dataclass(frozen=True)
class RunContext:
    """What Airflow knows of the run: its ids, state, run key and where its report is served (None: no report)."""

    dag_id: str
    run_id: str
    run_key: str
    state: str
    report_url: str | None = None
    dry_run: bool = False
    plan_task_state: str | None = None


@dataclass(frozen=True)
class ListingStats:
    """The SageMaker calls one refresh made: a bounded number of listings, and describes only for what moved."""

    list_calls: int = 0
    describe_calls: int = 0
    cached_describes: int = 0
    other_describe_calls: int = 0  #: describes of other runs' jobs (each once, for its instance type)
    #: the run had ended with every job final when read: the answer is kept and served without calling again
    final: bool = False


@dataclass(frozen=True)
class ViewInputs:
    spec: FleetSpec
    plan: Mapping[str, Any] | None
    describes: Sequence[Mapping[str, Any]]
    prices: PriceBook
    now: datetime
    stats: ListingStats = field(default_factory=ListingStats)
    account: AccountSnapshot = field(default_factory=AccountSnapshot)
    #: the run's models through the registry's gate (the register task's return value); None: none registered
    models: RunDecisions | None = None


def partition_of(region: str) -> str:
    if region.startswith("cn-"):
        return "aws-cn"
    if region.startswith("us-gov-"):
        return "aws-us-gov"
    return "aws"


def job_links(region: str, job: str) -> dict[str, str]:
    """The job's console page and CloudWatch log streams: the same links the training task shows."""
    # the console domain of the partition, as the Amazon provider (and so the training task's links) has it
    domain = SageMakerTrainingJobLink.get_aws_domain(partition_of(region))
    return {
        "console_url": SageMakerTrainingJobLink.format_str.format(
            aws_domain=domain, region_name=region, job_name=job
        ),
        "logs_url": TrainingJobLogsLink.format_str.format(
            aws_domain=domain, region_name=region, job_name=job
        ),
    }


def running_usd(line: CostLine, now: datetime) -> float:
    """What a job still running has cost so far and SageMaker has not billed yet: its time since creation at its
    on-demand rate (for spot an upper bound; its BillableTimeInSeconds replaces this once it ends)."""
    if line.status in TERMINAL or line.created_at is None:
        return 0.0
    seconds = max(0.0, (now - line.created_at).total_seconds())
    return seconds * line.instance_count * line.price_per_hour / 3600


def _round(value: float) -> float:
    return round(value + 0.0, 2)


def observed_now(describes: Iterable[Mapping[str, Any]], now: datetime) -> datetime:
    """``now``, or the latest time SageMaker has reported if that is later: an endpoint whose clock runs ahead
    (the simulator at speed, a skewed host) must not make running jobs look as if they started in the future."""
    seen = [now]
    for job in describes:
        seen += [
            job[k]
            for k in ("CreationTime", "LastModifiedTime", "TrainingEndTime")
            if isinstance(job.get(k), datetime)
        ]
        for step in job.get("SecondaryStatusTransitions") or ():
            seen += [step[k] for k in ("StartTime", "EndTime") if isinstance(step.get(k), datetime)]
    return max(seen)


def build_fleet_view(
    run: RunContext, inputs: ViewInputs, disclosure: Disclosure | None = None
) -> dict[str, Any]:
    """The JSON the Fleet tab draws (see docs/guides/fleet-view.md for each field). ``disclosure``: whose jobs
    it may name beside the run's (default: the run's own fleet's; the plugin adds the fleets whose DAGs the reader
    may read); every other run's job is left unnamed."""
    spec, now = inputs.spec, observed_now(inputs.describes, inputs.now)
    plan = FleetPlan.from_json(dict(inputs.plan)) if inputs.plan is not None else None
    index = RunJobIndex.for_run(spec, run.run_key)
    other_runs = OtherRunsPools(
        givers={taker: Giver(giver) for taker, giver in inputs.account.givers.items()},
        looked_up=inputs.account.listed_since is not None,
    )
    report = build_cost_report(
        spec,
        run.run_key,
        inputs.describes,
        inputs.prices,
        generated_at=now,
        index=index,
        other_runs=other_runs,
        disclosure=disclosure,
        plan=plan,
    )
    latest: dict[str, CostLine] = {}
    for line in report.lines:  # sorted by city, then attempt
        latest[line.city] = line
    planned = _planned_cities(inputs.plan)
    expected = expected_cost_by_city(inputs.plan, spec, inputs.prices) if inputs.plan else {}
    estimate = estimate_plan_cost(inputs.plan, spec, inputs.prices) if inputs.plan else None
    accrued = {line.city: running_usd(line, now) for line in latest.values()}
    billed = report.totals.cost_usd
    running_total = math.fsum(accrued.values())
    remaining = (
        math.fsum(
            max(0.0, expected.get(city, 0.0) - accrued.get(city, 0.0))
            for city in planned
            if city not in latest or latest[city].status not in TERMINAL
        )
        if run.state not in RUN_ENDED
        else 0.0
    )
    waiting = _waiting(run, inputs, latest, planned)
    scale = _scale(report.lines, inputs.plan, now)
    labels = {group.id: group.label for group in report.groups}
    plan_summary = dict((inputs.plan or {}).get("summary") or {})
    return {
        "dag_id": run.dag_id,
        "run_id": run.run_id,
        "run_key": run.run_key,
        "fleet": spec.fleet,
        "region": spec.region,
        "state": run.state,
        "dry_run": run.dry_run,
        "generated_at": inputs.now.isoformat(),
        "has_plan": inputs.plan is not None,
        "counts": {
            "cities": len(planned) if inputs.plan is not None else len(spec.cities),
            "waiting": len(waiting),
            "running": sum(1 for line in latest.values() if line.status not in TERMINAL),
            "completed": sum(1 for line in latest.values() if line.status == "Completed"),
            "failed": sum(1 for line in latest.values() if line.status in ("Failed", "Stopped")),
            "submissions": len(report.lines),
            "resubmissions": len(report.lines) - len(latest),
            "warm_starts": report.totals.warm_starts,
            "cold_starts": report.totals.cold_starts,
            "planned_warm_starts": plan_summary.get("warm_starts"),
            "planned_cold_starts": plan_summary.get("cold_starts"),
        },
        "cost": {
            "billed_usd": _round(billed),
            "running_unbilled_usd": _round(running_total),
            "so_far_usd": _round(billed + running_total),
            "expected_usd": estimate["expected_usd"] if estimate else None,
            "projected_usd": _round(billed + running_total + remaining),
            "retained_usd": _round(report.totals.retained_cost_usd),
            "spot_savings_usd": _round(report.totals.spot_savings_usd),
        },
        "gantt": {
            "plan_svg": render_plan_gantt(inputs.plan, scale, labels) if inputs.plan else "",
            "actual_svg": render_gantt(
                report.lines, report.lanes, labels, scale=scale, svg_id="actual-gantt"
            ),
            "span_seconds": scale.span_seconds if scale else 0,
        },
        "waiting": waiting,
        "jobs": [
            _job(line, exported, spec.region, now)
            for line, exported in zip(report.lines, report_jobs(report), strict=True)
        ],
        "resubmissions": _resubmissions(report.lines),
        "failures": [
            {
                "city": line.city,
                "job_name": line.job_name,
                "status": line.status,
                "reason": line.failure_reason or line.secondary_status,
            }
            for line in latest.values()
            if line.status in ("Failed", "Stopped")
        ],
        "report_url": run.report_url,
        # each city's final metrics, the best and worst city of each (None: no job reports metrics)
        "metrics": metrics_json(report),
        # each city's model through the registry's gate (None: the run registers no model, or not yet)
        "models": inputs.models.to_json() if inputs.models is not None else None,
        "listing": {
            "list_calls": inputs.stats.list_calls,
            "describe_calls": inputs.stats.describe_calls,
            "cached_describes": inputs.stats.cached_describes,
            "other_describe_calls": inputs.stats.other_describe_calls,
            "final": inputs.stats.final,
        },
        "account": account_json(inputs.account, inputs.spec, inputs.plan, report.lines),
        # the run against its plan, per group (report.json's section; None before the plan task has run)
        "plan_against_actual": report.against_plan.to_json() if report.against_plan else None,
    }


def _planned_cities(plan: Mapping[str, Any] | None) -> list[str]:
    return [str(job["city"]) for job in (plan or {}).get("jobs") or ()]


def _scale(lines: Sequence[CostLine], plan: Mapping[str, Any] | None, now: datetime) -> TimeScale:
    """One time axis for both charts: from the run's first job (now, before any), as long as the longer of
    what happened and the plan."""
    actual = time_scale(lines)
    origin = actual.origin if actual else now
    span = max(actual.span_seconds if actual else 0.0, float(plan_makespan(plan)), 60.0)
    return TimeScale(origin, span)


def _waiting(
    run: RunContext, inputs: ViewInputs, latest: Mapping[str, CostLine], planned: Sequence[str]
) -> list[dict[str, str]]:
    """The planned cities without a job yet, each with the dispatcher's own reason."""
    if inputs.plan is None:
        if run.state in RUN_ENDED or run.dry_run:
            return []
        return [{"city": city.name, "reason": "waits for the plan task"} for city in inputs.spec.cities]
    if run.dry_run:
        return []
    missing = [city for city in planned if city not in latest]
    if run.state in RUN_ENDED:
        return [{"city": city, "reason": "never started: the run ended first"} for city in missing]
    tracker = _tracker(inputs)
    stamp = inputs.now.timestamp()
    return [
        {"city": city, "reason": tracker.waiting_reason(Wait(city, since=stamp), stamp)} for city in missing
    ]


def _tracker(inputs: ViewInputs) -> RunTracker:
    """The run's tracker as the triggerer's is built, reading the account as its sweeps feed it: the other runs'
    jobs (their listing, then the descriptions of those holding capacity) and the account's board, then the run's
    own jobs; so a waiting city's reason here is the one the triggerer logs."""
    assert inputs.plan is not None
    plan = FleetPlan.from_json(dict(inputs.plan))
    tracker = dispatch_from_plan(plan, inputs.spec, plan.run_key).tracker
    assert tracker is not None
    _read_account(tracker, inputs.account, inputs.now.timestamp())
    tracker.observe(inputs.describes, whole=True)
    return tracker


def _read_account(tracker: RunTracker, account: AccountSnapshot, now: float) -> None:
    """Give ``tracker`` the account as one sweep of the triggerer does (:class:`~sagemaker_fleet.dispatch.sweep.
    RunSweeps`: the board's records, the listing's other jobs, their descriptions), at ``now`` (wall-clock seconds:
    the board's records are stamped so)."""
    shares, view = tracker.shares, tracker.account
    if shares is not None and account.board is not None:
        shares.board.read_as_viewer(account.board, now, now)
    if view is None or account.listed_since is None:
        return
    view.observe(account.listed, now, own=tracker.names)
    for name, description in account.described.items():
        view.described(name, description, now, own=tracker.names)


def _job(line: CostLine, exported: Mapping[str, Any], region: str, now: datetime) -> dict[str, Any]:
    """A job's row: the report.json job fields it shows (``exported``: same names, same values), its cost to the
    hundredth of a cent, what it runs up unbilled, and its links."""
    return {
        **{name: exported[name] for name in VIEW_JOB_FIELDS},
        "cost_usd": round(line.cost_usd, 4),
        "running_usd": round(running_usd(line, now), 4),
        "created_at": exported["created_at"],
        "metrics": dict(line.metrics),
        **job_links(region, line.job_name),
    }


def _resubmissions(lines: Iterable[CostLine]) -> list[dict[str, Any]]:
    """Cities with more than one submission, each earlier one with why it did not stand."""
    by_city: dict[str, list[CostLine]] = {}
    for line in lines:
        by_city.setdefault(line.city, []).append(line)
    out = []
    for city, attempts in by_city.items():
        if len(attempts) < 2:
            continue
        out.append(
            {
                "city": city,
                "submissions": len(attempts),
                "attempts": [
                    {
                        "attempt": line.attempt,
                        "job_name": line.job_name,
                        "status": line.status,
                        "reason": line.failure_reason or line.secondary_status,
                    }
                    for line in attempts
                ],
            }
        )
    return out


def utc_now() -> datetime:
    return datetime.now(UTC)
