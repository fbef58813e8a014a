"""The outcome of a simulated run: the simulate JSON of docs/formats.md, priced by the one cost model.

Money, billed seconds and warm/cold starts come from :func:`build_cost_report` over the engine's final
DescribeTrainingJob responses — the same numbers ``sagemaker-fleet report`` would print for the run (rounded as
``report.json`` rounds them). Starts are counted per submission, as the report counts them (a re-submission
starts cold; a spot job that never got capacity counts cold). ``jobs``, ``completed`` and ``failed`` count cities:
``failed`` is a city whose last submission did not complete. ``warm_image_pulls`` (the last field) counts warm
starts that pulled their image again, as the report sees them (TrainingImage against the pool's previous job's). ``api_calls`` are the calls the strategy made while
the run went on (the report's own describes at the end are not counted; throttled calls are).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from sagemaker_fleet.cost.export import totals_json

if TYPE_CHECKING:
    from sagemaker_fleet.cost.against_plan import MissedWarmStart
    from sagemaker_fleet.cost.report import CostReport
    from sagemaker_fleet.plan.model import PlanSummary
    from sagemaker_fleet.registry.decision import RunDecisions

#: The operations the simulate JSON counts, in its stable order (docs/formats.md, simulate JSON).
COUNTED_OPERATIONS = ("CreateTrainingJob", "DescribeTrainingJob", "ListTrainingJobs")


@dataclass(frozen=True)
class SimulationResult:
    strategy: str
    seed: int
    fleet: str
    run_key: str
    jobs: int
    completed: int
    failed: int
    submissions: int
    makespan_seconds: int
    api_calls: Mapping[str, int]
    throttled: int
    quota_rejections: int  # CreateTrainingJob answered ResourceLimitExceeded (retried after a back-off)
    report: CostReport = field(repr=False, compare=False)
    plan_summary: PlanSummary | None = field(default=None, compare=False)
    #: The registry gate's expected decisions for a first run (a spec with ``register:``; None without).
    models: RunDecisions | None = field(default=None, compare=False)

    @property
    def missed_warm_starts(self) -> tuple[MissedWarmStart, ...]:
        """The plan's warm starts that started cold, each with its reason (the report's, planned strategy only)."""
        against = self.report.against_plan
        return against.missed if against is not None else ()

    @property
    def resubmitted(self) -> int:
        return self.submissions - self.jobs

    def to_json(self) -> dict[str, Any]:
        """The simulate JSON (docs/formats.md): its stable fields first, in their order, then extras (``fleet``, ``run_key``, …)."""
        totals = totals_json(self.report.totals)
        out: dict[str, Any] = {
            "strategy": self.strategy,
            "seed": self.seed,
            "jobs": self.jobs,
            "completed": self.completed,
            "failed": self.failed,
            "resubmitted": self.resubmitted,
            "cold_starts": totals["cold_starts"],
            "warm_starts": totals["warm_starts"],
            "makespan_seconds": self.makespan_seconds,
            "startup_seconds": round(totals["startup_seconds"]),
            "training_seconds": totals["training_seconds"],
            "billable_seconds": totals["billable_seconds"],
            "retained_billable_seconds": totals["retained_billable_seconds"],
            "cost_usd": totals["cost_usd"],
            "on_demand_equivalent_usd": totals["on_demand_cost_usd"],
            "spot_savings_pct": totals["spot_savings_pct"],
            "api_calls": {operation: self.api_calls.get(operation, 0) for operation in COUNTED_OPERATIONS},
            "throttled": self.throttled,
            "fleet": self.fleet,
            "run_key": self.run_key,
            "submissions": self.submissions,
            "quota_rejections": self.quota_rejections,
            "retained_cost_usd": totals["retained_cost_usd"],
            "spot_savings_usd": totals["spot_savings_usd"],
            "startup_seconds_saved": round(totals["startup_seconds_saved"]),
        }
        if self.plan_summary is not None:
            summary = self.plan_summary
            out["plan"] = {
                "cold_starts": summary.cold_starts,
                "warm_starts": summary.warm_starts,
                "lanes": summary.lanes,
                "planned_makespan_seconds": summary.planned_makespan_seconds,
                "planned_retained_seconds": summary.planned_retained_seconds,
                "missed_warm_starts": [missed.to_json() for missed in self.missed_warm_starts],
            }
        out["warm_image_pulls"] = totals["warm_image_pulls"]
        if self.models is not None:  # a spec with register: only (the simulate JSON of others is unchanged)
            out["models"] = self.models.to_json()
        return out
