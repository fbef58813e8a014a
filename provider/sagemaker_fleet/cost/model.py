"""One cost line per submission (docs/formats.md, cost report files): what it cost, what on-demand would have cost, how it started.

    cost_usd           = (billable + retained) × instance_count × price_per_hour / 3600
    on_demand_cost_usd = (training + retained) × instance_count × price_per_hour / 3600
    spot_savings_pct   = (1 − billable / training) × 100 for spot jobs with training time, else 0

For spot jobs BillableTimeInSeconds already expresses the spot discount at the on-demand rate (docs/sagemaker-behaviour.md, billing fields),
so one on-demand price serves both. Retained warm-pool time is billed on-demand and appears in both costs, so
spot savings are never inflated by idle pools. Every submission gets a line: failed, stopped, re-submitted and
still-running ones (the last with the billing SageMaker has reported so far).
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import TYPE_CHECKING

from sagemaker_fleet.jobs.starts import StartEvidence, StartKind, StartObservation, training_started_at

if TYPE_CHECKING:
    from sagemaker_fleet.jobs.prices import Price, PriceSource
    from sagemaker_fleet.jobs.record import StatusTransition, TrainingJobRecord

SECONDS_PER_HOUR = 3600


@dataclass(frozen=True)
class CostLine:
    city: str
    job_name: str
    attempt: int
    status: str
    secondary_status: str
    failure_reason: str | None
    instance_type: str
    instance_count: int
    spot: bool
    start: StartKind
    start_evidence: StartEvidence
    startup_seconds: float
    startup_seconds_saved: float
    training_seconds: int
    billable_seconds: int
    retained_billable_seconds: int
    price_per_hour: float
    price_source: PriceSource
    group: str = ""
    warm_pool_status: str | None = None
    reused_by_job: str | None = None
    keep_alive_seconds: int = 0
    created_at: datetime | None = None
    training_started_at: datetime | None = None
    ended_at: datetime | None = None
    phases: tuple[StatusTransition, ...] = ()
    #: A warm start that pulled its image again (another image than the pool's previous job's).
    image_pulled: bool = False
    #: The job whose warm pool this one started on (its ReusedByJob names this job): the run's or another run's.
    pool_from_job: str | None = None
    #: ``pool_from_job`` is not a job of the run: this job took another run's pool (counted as its warm start).
    pool_from_other_run: bool = False
    #: ``reused_by_job`` is not a job of the run: another run's job took this job's pool.
    reused_by_other_run: bool = False
    #: the job's final metrics (FinalMetricDataList), for a job with MetricDefinitions
    metrics: tuple[tuple[str, float], ...] = ()

    @property
    def priced(self) -> bool:
        """Whether the job's instance type has a price: its money figures are 0 otherwise, and the report writes
        them as unknown and leaves them out of its totals."""
        return self.price_source != "unknown"

    def _usd(self, seconds: int) -> float:
        return seconds * self.instance_count * self.price_per_hour / SECONDS_PER_HOUR

    @property
    def cost_usd(self) -> float:
        return self._usd(self.billable_seconds + self.retained_billable_seconds)

    @property
    def on_demand_cost_usd(self) -> float:
        return self._usd(self.training_seconds + self.retained_billable_seconds)

    @property
    def retained_cost_usd(self) -> float:
        return self._usd(self.retained_billable_seconds)

    @property
    def pool_untaken(self) -> bool:
        """The job's warm pool idled, was billed for it, and ended with no job taking it over (no ``ReusedByJob``):
        idle money nobody took. A pool still Available is not counted: a job may still take it."""
        return (
            self.retained_billable_seconds > 0
            and self.warm_pool_status == "Terminated"
            and self.reused_by_job is None
        )

    @property
    def untaken_retained_cost_usd(self) -> float:
        """The retained cost of a pool nobody took (:attr:`pool_untaken`), else 0."""
        return self.retained_cost_usd if self.pool_untaken else 0.0

    @property
    def spot_savings_usd(self) -> float:
        return self.on_demand_cost_usd - self.cost_usd if self.spot else 0.0

    @property
    def spot_savings_pct(self) -> float:
        if not self.spot or self.training_seconds <= 0:
            return 0.0
        return (1 - self.billable_seconds / self.training_seconds) * 100


def cost_line(
    record: TrainingJobRecord,
    *,
    city: str,
    attempt: int,
    price: Price,
    start: StartObservation,
    group: str = "",
    now: datetime | None = None,
    pool_from_job: str | None = None,
    pool_from_other_run: bool = False,
    reused_by_other_run: bool = False,
) -> CostLine:
    """Price one submission. ``price`` must be the price of ``record.instance_type``."""
    if price.instance_type != record.instance_type:
        raise ValueError(f"{record.name}: priced as {price.instance_type}, runs on {record.instance_type}")
    return CostLine(
        city=city,
        job_name=record.name,
        attempt=attempt,
        status=record.status,
        secondary_status=record.secondary_status,
        failure_reason=record.failure_reason,
        instance_type=record.instance_type,
        instance_count=record.instance_count,
        spot=record.spot,
        start=start.kind,
        start_evidence=start.evidence,
        startup_seconds=start.startup_seconds,
        startup_seconds_saved=start.seconds_saved,
        training_seconds=record.training_seconds,
        billable_seconds=record.billable_seconds,
        retained_billable_seconds=record.retained_billable_seconds,
        price_per_hour=price.usd_per_hour,
        price_source=price.source,
        group=group,
        warm_pool_status=record.warm_pool.status if record.warm_pool else None,
        reused_by_job=record.reused_by_job,
        keep_alive_seconds=record.keep_alive_seconds,
        created_at=record.started_at,
        training_started_at=training_started_at(record),
        ended_at=record.ended_at(now),
        phases=record.transitions,
        image_pulled=start.image_pulled,
        pool_from_job=pool_from_job,
        pool_from_other_run=pool_from_other_run,
        reused_by_other_run=reused_by_other_run,
        metrics=record.final_metrics,
    )
