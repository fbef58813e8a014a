"""The fleet's metrics: their names and types, and their values at a city's end and from the run's cost report (pure).

Airflow's own Stats sends them (:mod:`sagemaker_fleet.observability.stats`), so StatsD, Datadog's StatsD and
OpenTelemetry all work with Airflow's ``[metrics]`` settings and prefix. Every name carries the fleet,
``sagemaker_fleet.<fleet>.<metric>``, because plain StatsD drops tags: fleets stay apart there too. The tags
(``fleet``, ``run_key`` and, where it applies, ``instance_type`` or ``reason``) serve the backends that keep them.

Each value is counted once, by whoever sees it final: a submission's start, its re-submission and the hand-off by
the trigger that sees the job end; the capacity back-offs by the trigger that waited them; the billed money by the
cost report. Nothing here calls AWS: the values come from what the run's sweeps and the city's trigger hold already.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Literal

from sagemaker_fleet.contract import REPORT_TASK_ID
from sagemaker_fleet.jobs.paging import as_datetime
from sagemaker_fleet.jobs.record import parse_training_job
from sagemaker_fleet.jobs.starts import observe_start

if TYPE_CHECKING:
    from sagemaker_fleet.cost.report import CostReport
    from sagemaker_fleet.dispatch.city_run import CityRun
    from sagemaker_fleet.dispatch.tracker import RunTracker
    from sagemaker_fleet.jobs.record import Description

#: Every metric name starts so (after Airflow's own ``[metrics] statsd_prefix`` / ``otel_prefix``).
METRIC_PREFIX = "sagemaker_fleet"

Kind = Literal["counter", "gauge", "timer"]


@dataclass(frozen=True)
class MetricDef:
    """One metric of the contract (docs/guides/observability.md, every metric): its type, unit, tags and who sends it."""

    kind: Kind
    unit: str
    tags: tuple[str, ...]
    sender: str  #: ``triggerer`` (the city triggers and the run's poller) or the cost report's task id
    #: what it counts or measures, and when it is sent (one line, for the generated reference)
    meaning: str = ""


_RUN = ("fleet", "run_key")
_TYPED = (*_RUN, "instance_type")
#: The stable metrics, by the last part of their name. Add freely; renaming or dropping one needs a changelog note.
METRICS: Mapping[str, MetricDef] = {
    "warm_starts": MetricDef(
        "counter",
        "submissions",
        _TYPED,
        "triggerer",
        "jobs that started on a warm pool, counted once per job whose end the city's trigger saw",
    ),
    "cold_starts": MetricDef(
        "counter",
        "submissions",
        _TYPED,
        "triggerer",
        "every other start (spot, never trained, provisioned), counted as warm_starts",
    ),
    "handoff": MetricDef(
        "timer",
        "seconds (StatsD: milliseconds)",
        _TYPED,
        "triggerer",
        "for a city that waited on a predecessor: its first job's creation less the predecessor's training end",
    ),
    "cities_waiting": MetricDef(
        "gauge",
        "cities",
        _RUN,
        "triggerer",
        "the run's cities waiting for their turn or for room in their quota, after a sweep that changed it",
    ),
    "capacity_backoffs": MetricDef(
        "counter",
        "refused CreateTrainingJob calls",
        _TYPED,
        "triggerer",
        "each ResourceLimitExceeded a city backed off from",
    ),
    "resubmissions": MetricDef(
        "counter",
        "submissions",
        (*_TYPED, "reason"),
        "triggerer",
        "re-submissions whose end the city's trigger saw; reason: spot, fallback, retry or forced",
    ),
    "cost_usd": MetricDef(
        "counter", "USD", _TYPED, REPORT_TASK_ID, "the run's billed cost (report.json's totals.cost_usd)"
    ),
    "idle_pool_seconds": MetricDef(
        "counter",
        "seconds",
        _TYPED,
        REPORT_TASK_ID,
        "the warm pools' billed idle time (report.json's retained_billable_seconds)",
    ),
    "idle_pool_cost_usd": MetricDef(
        "counter",
        "USD",
        _TYPED,
        REPORT_TASK_ID,
        "the warm pools' idle cost (report.json's retained_cost_usd)",
    ),
    "spot_savings_usd": MetricDef(
        "counter",
        "USD",
        _TYPED,
        REPORT_TASK_ID,
        "saved by spot against on demand (report.json's spot_savings_usd)",
    ),
}


def metric_name(fleet: str, metric: str) -> str:
    """``sagemaker_fleet.<fleet>.<metric>`` (a fleet name is 1-20 lowercase letters or digits: a valid stat name)."""
    if metric not in METRICS:
        raise KeyError(f"{metric!r} is not one of the fleet's metrics ({', '.join(METRICS)})")
    return f"{METRIC_PREFIX}.{fleet}.{metric}"


@dataclass(frozen=True)
class Measurement:
    """One value to send: ``metric`` (a key of :data:`METRICS`) of ``fleet``, with its tags."""

    fleet: str
    metric: str
    value: float
    tags: Mapping[str, str]

    @property
    def name(self) -> str:
        return metric_name(self.fleet, self.metric)

    @property
    def kind(self) -> Kind:
        return METRICS[self.metric].kind


class RunLedger:
    """What the run's listings said about its jobs' ends and hand-overs, fed every sweep: each job's
    ``TrainingEndTime`` and the names other jobs' warm pools were ``ReusedByJob`` (the only direct evidence of a
    warm start). Kept beside the run's tracker by the triggerer's poller; read at each city's end."""

    def __init__(self) -> None:
        self.ended: dict[str, dt.datetime] = {}
        self.reused: set[str] = set()

    def observe(self, summaries: Iterable[Mapping[str, object]]) -> None:
        for summary in summaries:
            end = as_datetime(summary.get("TrainingEndTime"))
            if end is not None:
                self.ended[str(summary.get("TrainingJobName"))] = end
            pool = summary.get("WarmPoolStatus")
            reused = pool.get("ReusedByJob") if isinstance(pool, Mapping) else None
            if reused:
                self.reused.add(str(reused))


def handoff_seconds(
    tracker: RunTracker | None, ledger: RunLedger, city: str, created: object
) -> float | None:
    """The hand-off of ``city``'s first job: its creation less the latest end, before it, of another job of its
    warm-pool group — for a city that waited on a predecessor (its rank in the group is past the group's width);
    None for the group's first wave, a city outside the plan, or no such end seen."""
    if tracker is None:
        return None
    turn = tracker.book.turns.get(city)
    created_at = as_datetime(created)
    if turn is None or created_at is None or turn.rank < tracker.book.widths[turn.group]:
        return None
    latest: dt.datetime | None = None
    for name, end in ledger.ended.items():
        owner = tracker.names.get(name)
        if owner is None or owner[0] == city or end > created_at:
            continue
        other = tracker.book.turns.get(owner[0])
        if other is not None and other.group == turn.group and (latest is None or end > latest):
            latest = end
    return (created_at - latest).total_seconds() if latest is not None else None


def resubmission_reason(previous: Description, current: Description) -> str:
    """Why ``current`` followed ``previous`` in a city's run: ``spot`` (spot again after MaxWait), ``fallback``
    (on demand after spot attempts ran out), ``forced`` (a completed city retrained) or ``retry`` (a task retry)."""
    if previous.get("TrainingJobStatus") == "Completed":
        return "forced"
    if previous.get("SecondaryStatus") == "MaxWaitTimeExceeded" and previous.get("EnableManagedSpotTraining"):
        return "spot" if current.get("EnableManagedSpotTraining") else "fallback"
    return "retry"


def _instance_type(description: Description) -> str:
    resources = description.get("ResourceConfig")
    return str(resources.get("InstanceType", "")) if isinstance(resources, Mapping) else ""


def job_end_measurements(run: CityRun, description: Description, ledger: RunLedger) -> list[Measurement]:
    """What a city's trigger sends as it sees one of its jobs ended: how it started and, for a re-submission, why
    it was made; for the city's first job, its hand-off."""
    fleet, city = run.spec.fleet, run.city.name
    name = str(description.get("TrainingJobName"))
    tags = {"fleet": fleet, "run_key": run.run_key, "instance_type": _instance_type(description)}
    start = observe_start(parse_training_job(description), ledger.reused, run.spec.input_mode)
    out = [Measurement(fleet, f"{start.kind}_starts", 1, tags)]
    names = [str(d.get("TrainingJobName")) for d in run.history]
    index = names.index(name) if name in names else -1
    if index > 0:
        reason = resubmission_reason(run.history[index - 1], description)
        out.append(Measurement(fleet, "resubmissions", 1, {**tags, "reason": reason}))
    elif index == 0:
        seconds = handoff_seconds(run.tracker, ledger, city, description.get("CreationTime"))
        if seconds is not None:
            out.append(Measurement(fleet, "handoff", max(0.0, seconds), tags))
    return out


def refusal_measurement(run: CityRun, refusals: int = 1) -> Measurement:
    """A city's create refused by the instance quota (ResourceLimitExceeded): it backs off."""
    tags = {"fleet": run.spec.fleet, "run_key": run.run_key, "instance_type": run.city.instance_type}
    return Measurement(run.spec.fleet, "capacity_backoffs", refusals, tags)


def city_measurements(
    run: CityRun, ended: Sequence[Description], ledger: RunLedger, refusals: int
) -> list[Measurement]:
    """Everything a city's trigger sends over its run: :func:`job_end_measurements` for each job whose end it saw,
    and its capacity back-offs."""
    out = [m for description in ended for m in job_end_measurements(run, description, ledger)]
    return out + ([refusal_measurement(run, refusals)] if refusals else [])


def waiting_measurement(fleet: str, run_key: str, waiting: int) -> Measurement:
    """The run's cities waiting for their turn or for room, after a sweep."""
    return Measurement(fleet, "cities_waiting", waiting, {"fleet": fleet, "run_key": run_key})


def report_measurements(report: CostReport) -> list[Measurement]:
    """What the cost report sends: the run's billed money and idle pools, per instance type (sum them for the
    run; plain StatsD sums them by itself). A type without a price sends its idle seconds, not a money figure of 0."""
    out: list[Measurement] = []
    for instance_type, totals in sorted(report.by_instance_type.items()):
        tags = {"fleet": report.fleet, "run_key": report.run_key, "instance_type": instance_type}
        price = report.prices.get(instance_type)
        money = price is None or price.known
        for metric, value in (
            ("cost_usd", totals.cost_usd if money else None),
            ("idle_pool_seconds", totals.retained_billable_seconds),
            ("idle_pool_cost_usd", totals.retained_cost_usd if money else None),
            ("spot_savings_usd", totals.spot_savings_usd if money else None),
        ):
            if value is None:
                continue
            out.append(Measurement(report.fleet, metric, round(float(value), 6), tags))
    return out
