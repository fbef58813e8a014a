"""The cost report of one run: cost lines, totals per run, city, group and instance type, and lanes.

Pure: it takes DescribeTrainingJob responses (however they were fetched — AWS, the simulator, a test) and a
:class:`PriceBook`, and returns values. Writing files and talking to AWS live in ``publish`` and ``collect``.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any

from sagemaker_fleet.cost.crossruns import OtherRunsPools
from sagemaker_fleet.cost.errors import UnattributedJobError
from sagemaker_fleet.cost.lanes import Lane, build_lanes
from sagemaker_fleet.cost.model import CostLine, cost_line
from sagemaker_fleet.cost.totals import CostTotals, total, totals_by
from sagemaker_fleet.fleetspec.names import MAX_SUBMISSIONS, validate_run_key
from sagemaker_fleet.jobs.progress import run_job_names
from sagemaker_fleet.jobs.record import TrainingJobRecord, parse_training_job
from sagemaker_fleet.jobs.request import ATTEMPT_TAG, CITY_TAG
from sagemaker_fleet.jobs.starts import observe_start

if TYPE_CHECKING:
    from sagemaker_fleet.fleetspec.model import FleetSpec
    from sagemaker_fleet.jobs.keys import WarmPoolKey
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
class GroupInfo:
    """A warm-pool group as the report sees it: jobs with one matching key, split by spot."""

    id: str
    label: str
    instance_type: str
    instance_count: int
    spot: bool
    key: WarmPoolKey | None


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
) -> CostReport:
    """Price every submission in ``describes`` (DescribeTrainingJob responses of the run) and total them;
    ``other_runs``: the other runs' jobs that handed a job of the run their pool (:func:`~.collect.find_other_runs_givers`)."""
    generated_at = generated_at or datetime.now(UTC)
    index = index or RunJobIndex.for_run(spec, run_key)
    other_runs = other_runs or OtherRunsPools()
    records = [parse_training_job(raw) for raw in describes]
    priced = prices.require(record.instance_type for record in records)
    handed_by = {record.reused_by_job: record for record in records if record.reused_by_job}
    names = {record.name for record in records}
    givers = {taker: giver for taker, giver in other_runs.givers.items() if taker not in handed_by}
    groups, group_of = _assign_groups(records)
    lines: list[CostLine] = []
    for record in records:
        city, attempt = index.attribute(record)
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
        lines.append(
            cost_line(
                record,
                city=city,
                attempt=attempt,
                price=priced[record.instance_type],
                start=start,
                group=group_of[record.name],
                now=generated_at,
                pool_from_job=previous.name if previous is not None else (giver.job_name if giver else None),
                pool_from_other_run=previous is None and giver is not None,
                reused_by_other_run=record.reused_by_job is not None
                and record.reused_by_job not in names
                and record.reused_by_job not in index,
            )
        )
    lines.sort(key=lambda line: (line.city, line.attempt, line.job_name))
    seen_cities = {line.city for line in lines}
    return CostReport(
        fleet=spec.fleet,
        run_key=run_key,
        region=spec.region,
        input_mode=spec.input_mode,
        generated_at=generated_at,
        lines=tuple(lines),
        totals=total(lines),
        by_city=totals_by(lines, lambda line: line.city),
        by_group=totals_by(lines, lambda line: line.group),
        by_instance_type=totals_by(lines, lambda line: line.instance_type),
        groups=groups,
        lanes=tuple(build_lanes(lines)),
        prices=priced,
        price_table_as_of=prices.table.as_of,
        cities_without_jobs=tuple(city.name for city in spec.cities if city.name not in seen_cities),
        other_runs=other_runs,
    )


def _group_sort_key(record: TrainingJobRecord) -> tuple[str, ...]:
    key = record.pool_key
    role = key.role_arn if key else ""
    return (record.instance_type, f"{record.instance_count:04d}", role, str(record.spot), repr(key))


def _assign_groups(records: Sequence[TrainingJobRecord]) -> tuple[tuple[GroupInfo, ...], dict[str, str]]:
    """Group ids ``g0, g1, …`` in (instance type, count, role, spot) order; one id per matching key and spot."""
    ids: dict[tuple[str, ...], GroupInfo] = {}
    group_of: dict[str, str] = {}
    for record in sorted(records, key=_group_sort_key):
        sort_key = _group_sort_key(record)
        info = ids.get(sort_key)
        if info is None:
            info = GroupInfo(
                id=f"g{len(ids)}",
                label=_group_label(record),
                instance_type=record.instance_type,
                instance_count=record.instance_count,
                spot=record.spot,
                key=record.pool_key,
            )
            ids[sort_key] = info
        group_of[record.name] = info.id
    return tuple(ids.values()), group_of


def _group_label(record: TrainingJobRecord) -> str:
    parts = [f"{record.instance_type} ×{record.instance_count}"]
    if record.pool_key is not None:
        parts.append(record.pool_key.role_arn.rsplit("/", 1)[-1])
        parts.append(f"{record.pool_key.volume_size_gb} GB")
        if record.pool_key.subnets:
            parts.append("VPC")
    if record.spot:
        parts.append("spot")
    return " · ".join(parts)
