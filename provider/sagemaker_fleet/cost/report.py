"""The cost report of one run: cost lines, totals per run, city, group and instance type, lanes, and the run
against its plan when the plan is known.

Pure: it takes DescribeTrainingJob responses (however they were fetched — AWS, the simulator, a test) and a
:class:`PriceBook`, and returns values. Writing files and talking to AWS live in ``publish`` and ``collect``.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any

from sagemaker_fleet.cost.against_plan import PlanAgainstActual, plan_against_actual
from sagemaker_fleet.cost.crossruns import OtherRunsPools
from sagemaker_fleet.cost.disclosure import Disclosure
from sagemaker_fleet.cost.errors import UnattributedJobError
from sagemaker_fleet.cost.groups import GroupInfo, RunPlan, assign_groups
from sagemaker_fleet.cost.lanes import Lane, build_lanes
from sagemaker_fleet.cost.model import CostLine, cost_line
from sagemaker_fleet.cost.totals import CostTotals, total, totals_by
from sagemaker_fleet.fleetspec.names import ATTEMPT_TAG, CITY_TAG, MAX_SUBMISSIONS, validate_run_key
from sagemaker_fleet.jobs.progress import run_job_names
from sagemaker_fleet.jobs.record import TrainingJobRecord, parse_training_job
from sagemaker_fleet.jobs.starts import observe_start

if TYPE_CHECKING:
    from sagemaker_fleet.fleetspec.model import FleetSpec
    from sagemaker_fleet.jobs.prices import Price, PriceBook
    from sagemaker_fleet.jobs.record import Description
    from sagemaker_fleet.registry.decision import RunDecisions


@dataclass(frozen=True)
class RunJobIndex:
    """Every job name the run can have (docs/formats.md, job names), mapped to its city and attempt."""

    run_key: str
    names: Mapping[str, tuple[str, int]]

    @classmethod
    def for_run(cls, spec: FleetSpec, run_key: str, max_attempts: int = MAX_SUBMISSIONS) -> RunJobIndex:
        validate_run_key(run_key)
        return cls(run_key, run_job_names(spec, run_key, max_attempts))

    def __contains__(self, name: object) -> bool:
        return name in self.names

    def attribute(self, record: TrainingJobRecord) -> tuple[str, int]:
        """(city, attempt): from the job's tags when Describe carries them, else from its name."""
        city = record.tag(CITY_TAG)
        attempt = record.tag(ATTEMPT_TAG)
        if city and attempt and attempt.isdigit():
            return city, int(attempt)
        if record.name in self.names:
            return self.names[record.name]
        raise UnattributedJobError(
            f"training job {record.name} belongs to no city of this fleet's run {self.run_key}: its name is not "
            f"one the run creates and it has no {CITY_TAG} tag; leave it out of the report's input"
        )


@dataclass(frozen=True)
class ReleasedPools:
    """Idle warm pools the run ended at its end (``release_pools``), and what they would still have cost idle."""

    pools: int
    idle_seconds_saved: int  # instance-seconds the pools had left of their keep-alive
    idle_cost_saved_usd: float
    kept: int = 0  # pools kept for the next scheduled run (carry_pools)


def released_pools(release: Mapping[str, Any], prices: PriceBook) -> ReleasedPools:
    """From the release task's result (``ended``: pool, type, count and seconds left of each ended pool): an XCom
    value, so JSON, typed no further than ``Mapping[str, Any]``."""
    ended = list(release.get("ended") or [])
    seconds = sum(int(p["idle_seconds_left"]) * int(p["instance_count"]) for p in ended)
    cost = (
        sum(
            int(p["idle_seconds_left"])
            * int(p["instance_count"])
            * prices.price(p["instance_type"]).usd_per_hour
            for p in ended
        )
        / 3600
    )
    return ReleasedPools(
        pools=len(ended),
        idle_seconds_saved=seconds,
        idle_cost_saved_usd=round(cost, 2),
        kept=len(release.get("kept") or []),
    )


@dataclass(frozen=True)
class CostReport:
    fleet: str
    run_key: str
    region: str
    input_mode: str
    generated_at: datetime
    lines: tuple[CostLine, ...]
    totals: CostTotals
    by_city: Mapping[str, CostTotals]
    by_group: Mapping[str, CostTotals]
    by_instance_type: Mapping[str, CostTotals]
    groups: tuple[GroupInfo, ...]
    lanes: tuple[Lane, ...]
    prices: Mapping[str, Price]
    price_table_as_of: str
    cities_without_jobs: tuple[str, ...] = ()
    released: ReleasedPools | None = None
    #: what the report looked up of pools taken from other runs (:mod:`sagemaker_fleet.cost.crossruns`)
    other_runs: OtherRunsPools = field(default_factory=OtherRunsPools)
    #: the run against its plan, per group (None: the report was made without the plan)
    against_plan: PlanAgainstActual | None = None
    #: how the plan starts each planned city (city → ``cold``/``warm``; empty without the plan)
    planned_starts: Mapping[str, str] = field(default_factory=dict)
    #: each city's model through the registry's gate (a spec with ``register:``; None: not registered)
    models: RunDecisions | None = None


def build_cost_report(
    spec: FleetSpec,
    run_key: str,
    describes: Iterable[Description],
    prices: PriceBook,
    *,
    generated_at: datetime | None = None,
    index: RunJobIndex | None = None,
    other_runs: OtherRunsPools | None = None,
    disclosure: Disclosure | None = None,
    plan: RunPlan | None = None,
) -> CostReport:
    """Price every submission in ``describes`` (DescribeTrainingJob responses of the run) and total them;
    ``other_runs``: the other runs' jobs that handed a job of the run their pool (:func:`~.collect.find_other_runs_givers`);
    ``disclosure``: whose jobs the report may name beside the run's (default: the run's own fleet's): any other
    run's job is left out of every line and counted (:mod:`.disclosure`);
    ``plan``: the run's plan (a ``FleetPlan``), whose groups the report names and compares the run with."""
    generated_at = generated_at or datetime.now(UTC)
    index = index or RunJobIndex.for_run(spec, run_key)
    other_runs = other_runs or OtherRunsPools()
    disclosure = disclosure or Disclosure.of_fleet(spec.fleet)
    records = [parse_training_job(raw) for raw in describes]
    priced = prices.cover(record.instance_type for record in records)
    handed_by = {record.reused_by_job: record for record in records if record.reused_by_job}
    names = {record.name for record in records}
    givers = {taker: giver for taker, giver in other_runs.givers.items() if taker not in handed_by}
    attributed = [(record, *index.attribute(record)) for record in records]
    groups, group_of = assign_groups([(city, record) for record, city, _ in attributed], spec, plan)
    lines: list[CostLine] = []
    for record, city, attempt in attributed:
        previous = handed_by.get(record.name)
        giver = givers.get(record.name)
        start = observe_start(
            record,
            handed_by.keys() | givers.keys(),
            spec.input_mode,
            previous_image=previous.training_image
            if previous is not None
            else (giver.training_image if giver is not None else None),
        )
        line = cost_line(
            record,
            city=city,
            attempt=attempt,
            price=priced[record.instance_type],
            start=start,
            group=group_of[record.name],
            now=generated_at,
            pool_from_job=previous.name
            if previous is not None
            else (disclosure.name(giver.job_name) if giver else None),
            pool_from_other_run=previous is None and giver is not None,
            reused_by_other_run=record.reused_by_job is not None
            and record.reused_by_job not in names
            and record.reused_by_job not in index,
        )
        if line.reused_by_other_run and not disclosure.shows(line.reused_by_job):
            line = dataclasses.replace(line, reused_by_job=None)
        lines.append(line)
    lines.sort(key=lambda line: (line.city, line.attempt, line.job_name))
    seen_cities = {line.city for line in lines}
    by_group = totals_by(lines, lambda line: line.group)
    return CostReport(
        fleet=spec.fleet,
        run_key=run_key,
        region=spec.region,
        input_mode=spec.input_mode,
        generated_at=generated_at,
        lines=tuple(lines),
        totals=total(lines),
        by_city=totals_by(lines, lambda line: line.city),
        by_group=by_group,
        by_instance_type=totals_by(lines, lambda line: line.instance_type),
        groups=groups,
        lanes=tuple(build_lanes(lines)),
        prices=priced,
        price_table_as_of=prices.table.as_of,
        cities_without_jobs=tuple(city.name for city in spec.cities if city.name not in seen_cities),
        other_runs=other_runs.disclosed(disclosure),
        against_plan=plan_against_actual(plan, lines, groups, by_group) if plan is not None else None,
        planned_starts={job.city: job.start for job in plan.jobs} if plan is not None else {},
    )
