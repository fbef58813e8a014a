"""Totals over cost lines: for the run, per city, per warm-pool group and per instance type.

Sums are taken over unrounded line values (``math.fsum``); rounding happens only when the report is written.
``failed`` counts TrainingJobStatus ``Failed``; stopped jobs (incl. spot ``MaxWaitTimeExceeded``) are counted in
``stopped`` and still-running ones in ``in_progress`` — all of them are in ``jobs`` and in every cost.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from sagemaker_fleet.cost.model import CostLine


@dataclass(frozen=True)
class CostTotals:
    jobs: int = 0
    completed: int = 0
    failed: int = 0
    stopped: int = 0
    in_progress: int = 0
    resubmitted: int = 0
    cost_usd: float = 0.0
    on_demand_cost_usd: float = 0.0
    spot_savings_usd: float = 0.0
    retained_cost_usd: float = 0.0
    warm_starts: int = 0
    cold_starts: int = 0
    startup_seconds: float = 0.0
    startup_seconds_saved: float = 0.0
    training_seconds: int = 0
    billable_seconds: int = 0
    retained_billable_seconds: int = 0
    spot_jobs: int = 0
    spot_on_demand_cost_usd: float = 0.0
    warm_image_pulls: int = 0  # warm starts that pulled their image again (counted in warm_starts too)
    pools_given_to_other_runs: int = 0  # jobs whose warm pool another run's job took
    pools_taken_from_other_runs: int = 0  # warm starts on another run's pool (counted in warm_starts too)
    #: jobs on an instance type no price source knows: their money is in none of the totals above
    unpriced_jobs: int = 0
    untaken_pools: int = 0  # warm pools that idled, billed, and ended with no job taking them over
    untaken_retained_billable_seconds: int = 0  # their retained (idle) seconds, as SageMaker billed them
    untaken_retained_cost_usd: float = 0.0  # what that idle time cost (counted in retained_cost_usd too)

    @property
    def spot_savings_pct(self) -> float:
        """What spot saved on the spot jobs, as a share of their on-demand equivalent."""
        if self.spot_on_demand_cost_usd <= 0:
            return 0.0
        return self.spot_savings_usd / self.spot_on_demand_cost_usd * 100


def total(lines: Sequence[CostLine]) -> CostTotals:
    def usd(value: Callable[[CostLine], float], only: Callable[[CostLine], bool] = lambda _: True) -> float:
        return math.fsum(value(line) for line in lines if only(line))

    def count(test: Callable[[CostLine], bool]) -> int:
        return sum(1 for line in lines if test(line))

    return CostTotals(
        jobs=len(lines),
        completed=count(lambda line: line.status == "Completed"),
        failed=count(lambda line: line.status == "Failed"),
        stopped=count(lambda line: line.status in ("Stopped", "Stopping")),
        in_progress=count(lambda line: line.status == "InProgress"),
        resubmitted=count(lambda line: line.attempt >= 2),
        cost_usd=usd(lambda line: line.cost_usd),
        on_demand_cost_usd=usd(lambda line: line.on_demand_cost_usd),
        spot_savings_usd=usd(lambda line: line.spot_savings_usd),
        retained_cost_usd=usd(lambda line: line.retained_cost_usd),
        warm_starts=count(lambda line: line.start == "warm"),
        cold_starts=count(lambda line: line.start == "cold"),
        startup_seconds=math.fsum(line.startup_seconds for line in lines),
        startup_seconds_saved=math.fsum(line.startup_seconds_saved for line in lines),
        training_seconds=sum(line.training_seconds for line in lines),
        billable_seconds=sum(line.billable_seconds for line in lines),
        retained_billable_seconds=sum(line.retained_billable_seconds for line in lines),
        spot_jobs=count(lambda line: line.spot),
        spot_on_demand_cost_usd=usd(lambda line: line.on_demand_cost_usd, lambda line: line.spot),
        warm_image_pulls=count(lambda line: line.start == "warm" and line.image_pulled),
        pools_given_to_other_runs=count(lambda line: line.reused_by_other_run),
        pools_taken_from_other_runs=count(lambda line: line.pool_from_other_run),
        unpriced_jobs=count(lambda line: not line.priced),
        untaken_pools=count(lambda line: line.pool_untaken),
        untaken_retained_billable_seconds=sum(
            line.retained_billable_seconds for line in lines if line.pool_untaken
        ),
        untaken_retained_cost_usd=usd(lambda line: line.untaken_retained_cost_usd),
    )


def totals_by(lines: Iterable[CostLine], key: Callable[[CostLine], str]) -> dict[str, CostTotals]:
    """Totals per value of ``key`` (city, group, instance type), in key order."""
    groups: dict[str, list[CostLine]] = {}
    for line in lines:
        groups.setdefault(key(line), []).append(line)
    return {name: total(groups[name]) for name in sorted(groups)}
