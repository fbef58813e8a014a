"""The run against its plan, per warm-pool group: warm starts planned and got, why each missed one started cold,
and the idle pools nobody took.

Read from the run's cost lines (the same DescribeTrainingJob evidence the report counts starts by). A planned warm
start is *missed* when the city's first submission started cold; the pool it was planned to take is its lane
predecessor's (the predecessor's last submission), and what SageMaker says of that pool gives the reason:

- ``spot`` — the city ran on spot, which never uses a warm pool;
- ``ordering`` — it was created before its predecessor ended (capacity was free, so it did not wait for the pool);
- ``taken`` — another job took the predecessor's pool first (its ``WarmPoolStatus.ReusedByJob`` names it);
- ``predecessor`` — the pool never existed: the predecessor has no job in the run, ran on spot, failed before
  training, or ran without keep-alive;
- ``quota`` — the predecessor ended with a keep-alive but SageMaker kept no pool (no retained time): the warm-pool
  quota was full;
- ``expiry`` — the pool was kept and expired (or was ended) before the city was created: the gap from the
  predecessor's end to the city's creation outlived the keep-alive.

A city planned warm whose pool came from elsewhere counts warm and is not listed: the dispatch hands pools to
whichever planned successor is ready, so cities may trade pools without losing a warm start. The idle money nobody
took is the retained time of the pools that ended untaken (:attr:`CostLine.pool_untaken`), priced as every cost line
is, by the one price lookup.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Literal

from sagemaker_fleet.cost.svg import usd
from sagemaker_fleet.jobs.duration_text import duration

if TYPE_CHECKING:
    from collections.abc import Mapping, Sequence

    from sagemaker_fleet.cost.groups import GroupInfo, RunPlan
    from sagemaker_fleet.cost.model import CostLine
    from sagemaker_fleet.cost.totals import CostTotals

MissReason = Literal["spot", "ordering", "taken", "predecessor", "quota", "expiry"]
#: The reasons in the order the report lists their counts.
MISS_REASONS: tuple[MissReason, ...] = ("expiry", "taken", "quota", "predecessor", "ordering", "spot")
#: A run that got fewer warm starts than this share of the planned ones is flagged (a warning in the task log, the
#: command's output and the report's page).
SHORT_SHARE = 0.5
#: The one line a report made without the run's plan shows where the comparison would be.
NO_PLAN = (
    "plan against actual: not shown, the report was made without the run's plan — pass `--plan PLAN.json` to "
    "`sagemaker-fleet report` (the plan task's `plan` XCom of the run, or what `sagemaker-fleet plan FLEET.yaml "
    "--run-key K --format json` prints)"
)


@dataclass(frozen=True)
class MissedWarmStart:
    """One planned warm start that started cold: why, and the figures behind it (``gap_seconds``: from the
    predecessor's end to this job's creation, negative when created before it ended; ``keep_alive_seconds``: the
    predecessor's)."""

    city: str
    job_name: str
    group: str
    reason: MissReason
    detail: str
    predecessor: str | None = None
    predecessor_job: str | None = None
    gap_seconds: float | None = None
    keep_alive_seconds: int | None = None
    taken_by_job: str | None = None

    def to_json(self) -> dict[str, Any]:
        return {
            "city": self.city,
            "job_name": self.job_name,
            "reason": self.reason,
            "detail": self.detail,
            "group": self.group,
            "predecessor": self.predecessor,
            "predecessor_job": self.predecessor_job,
            "gap_seconds": round(self.gap_seconds, 3) if self.gap_seconds is not None else None,
            "keep_alive_seconds": self.keep_alive_seconds,
            "taken_by_job": self.taken_by_job,
        }


@dataclass(frozen=True)
class GroupAgainstPlan:
    """One group: its planned jobs and warm starts, the warm starts it got (every submission, as the totals count
    them), the planned ones missed, planned warm cities with no job yet, and its pools nobody took."""

    group: GroupInfo
    planned_jobs: int
    planned_warm_starts: int
    warm_starts: int
    missed: tuple[MissedWarmStart, ...]
    not_started: int
    untaken_pools: int
    untaken_retained_billable_seconds: int
    untaken_retained_cost_usd: float

    def reasons(self) -> str:
        return reason_counts(self.missed)

    def to_json(self) -> dict[str, Any]:
        return {
            "group": self.group.id,
            "label": self.group.label,
            "planned_jobs": self.planned_jobs,
            "planned_warm_starts": self.planned_warm_starts,
            "warm_starts": self.warm_starts,
            "missed_warm_starts": [missed.to_json() for missed in self.missed],
            "missed_reasons": self.reasons(),
            "planned_warm_not_started": self.not_started,
            "untaken_pools": self.untaken_pools,
            "untaken_retained_billable_seconds": self.untaken_retained_billable_seconds,
            "untaken_retained_cost_usd": round(self.untaken_retained_cost_usd, 6) + 0.0,
        }


@dataclass(frozen=True)
class PlanAgainstActual:
    """The run against its plan, group by group (the plan's groups first, in its order)."""

    groups: tuple[GroupAgainstPlan, ...]

    @property
    def planned_warm_starts(self) -> int:
        return sum(g.planned_warm_starts for g in self.groups)

    @property
    def warm_starts(self) -> int:
        return sum(g.warm_starts for g in self.groups)

    @property
    def missed(self) -> tuple[MissedWarmStart, ...]:
        return tuple(m for g in self.groups for m in g.missed)

    @property
    def untaken_retained_cost_usd(self) -> float:
        return math.fsum(g.untaken_retained_cost_usd for g in self.groups)

    @property
    def short(self) -> bool:
        """Far fewer warm starts than planned: fewer than :data:`SHORT_SHARE` of them."""
        return self.warm_starts < self.planned_warm_starts * SHORT_SHARE

    def headline(self) -> str:
        """``planned 3 warm, got 0: 3 missed (expiry 3) · $0.19 of idle pools nobody took (2 pools)``."""
        missed = self.missed
        why = f": {len(missed)} missed ({reason_counts(missed)})" if missed else ""
        pools = sum(g.untaken_pools for g in self.groups)
        return (
            f"planned {self.planned_warm_starts} warm, got {self.warm_starts}{why} · "
            f"{usd(self.untaken_retained_cost_usd)} of idle pools nobody took ({pools} pool(s))"
        )

    def to_json(self) -> dict[str, Any]:
        return {
            "planned_warm_starts": self.planned_warm_starts,
            "warm_starts": self.warm_starts,
            "missed_warm_starts": len(self.missed),
            "untaken_retained_cost_usd": round(self.untaken_retained_cost_usd, 6) + 0.0,
            "short": self.short,
            "headline": self.headline(),
            "groups": [group.to_json() for group in self.groups],
        }


def reason_counts(missed: Sequence[MissedWarmStart]) -> str:
    """``expiry 2, taken 1`` (reasons in :data:`MISS_REASONS` order; empty without any)."""
    counts = {reason: sum(1 for m in missed if m.reason == reason) for reason in MISS_REASONS}
    return ", ".join(f"{reason} {n}" for reason, n in counts.items() if n)


def _gap(line: CostLine, before: CostLine) -> float | None:
    if line.created_at is None or before.ended_at is None:
        return None
    return (line.created_at - before.ended_at).total_seconds()


def _miss(line: CostLine, group: str, before: CostLine | None, owner: Mapping[str, str]) -> MissedWarmStart:
    """Why ``line`` (a planned warm start that started cold) missed the pool of ``before``, its lane
    predecessor's last submission (None: the predecessor has none)."""

    def missed(reason: MissReason, detail: str, **figures: Any) -> MissedWarmStart:
        return MissedWarmStart(line.city, line.job_name, group, reason, detail, **figures)

    if line.spot:
        return missed("spot", "it ran on spot, which never uses a warm pool")
    if before is None:
        return missed("predecessor", "its lane predecessor has no job in the run: there was no pool to take")
    name, gap = before.city, _gap(line, before)
    figures: dict[str, Any] = {
        "predecessor": name,
        "predecessor_job": before.job_name,
        "gap_seconds": gap,
        "keep_alive_seconds": before.keep_alive_seconds,
    }
    if before.ended_at is None or (gap is not None and gap < 0):
        ends = f"{duration(-gap)} before {name} ended" if gap is not None else f"while {name} still ran"
        return missed(
            "ordering",
            f"it was created {ends}: capacity was free, so it started cold rather than wait for the pool",
            **figures,
        )
    if before.reused_by_job or before.warm_pool_status == "Reused":
        # another fleet's job is not named in the report (its name left out): "another run's job" then
        taker = (
            owner.get(before.reused_by_job, before.reused_by_job)
            if before.reused_by_job
            else "another run's job"
        )
        after = f" ({line.city} was created {duration(gap)} after {name} ended)" if gap is not None else ""
        return missed(
            "taken", f"{taker} took {name}'s pool first{after}", taken_by_job=before.reused_by_job, **figures
        )
    if before.spot:
        return missed("predecessor", f"{name} ran on spot: spot jobs keep no pool", **figures)
    if before.keep_alive_seconds <= 0:
        return missed(
            "predecessor", f"{name} ran without keep-alive ({before.status}): it kept no pool", **figures
        )
    if before.status == "Failed" and before.training_started_at is None:
        return missed("predecessor", f"{name} failed before training: SageMaker kept no pool", **figures)
    if before.warm_pool_status in (None, "Terminated") and before.retained_billable_seconds == 0:
        return missed(
            "quota",
            f"{name} ended with keep-alive {before.keep_alive_seconds} s but SageMaker kept no pool: the warm-pool "
            "quota was full (no warm pool or instance free)",
            **figures,
        )
    after = f"{duration(gap)} after {name} ended" if gap is not None else f"after {name}'s pool ended"
    return missed(
        "expiry",
        f"{name}'s pool expired: {line.city} was created {after}, past its keep-alive of "
        f"{before.keep_alive_seconds} s (the pool idled {before.retained_billable_seconds} s, billed)",
        **figures,
    )


def plan_against_actual(
    plan: RunPlan,
    lines: Sequence[CostLine],
    groups: Sequence[GroupInfo],
    by_group: Mapping[str, CostTotals],
) -> PlanAgainstActual:
    """The run's cost lines (``lines``, each with its group) against ``plan``, per group of ``groups``."""
    first: dict[str, CostLine] = {}
    last: dict[str, CostLine] = {}
    for line in sorted(lines, key=lambda item: item.attempt):
        first.setdefault(line.city, line)
        last[line.city] = line
    owner = {line.job_name: line.city for line in lines}
    missed: dict[str, list[MissedWarmStart]] = {}
    planned: dict[str, list[str]] = {}
    not_started: dict[str, int] = {}
    for job in plan.jobs:
        planned.setdefault(job.group, []).append(job.start)
        started = first.get(job.city)
        if job.start != "warm" or (started is not None and started.start == "warm"):
            continue
        if started is None:
            not_started[job.group] = not_started.get(job.group, 0) + 1
            continue
        predecessor = plan.predecessor(job.city)
        before = last.get(predecessor.city) if predecessor is not None else None
        missed.setdefault(job.group, []).append(_miss(started, job.group, before, owner))
    out = []
    for group in groups:
        totals = by_group.get(group.id)
        starts = planned.get(group.id, [])
        out.append(
            GroupAgainstPlan(
                group=group,
                planned_jobs=len(starts),
                planned_warm_starts=starts.count("warm"),
                warm_starts=totals.warm_starts if totals else 0,
                missed=tuple(missed.get(group.id, ())),
                not_started=not_started.get(group.id, 0),
                untaken_pools=totals.untaken_pools if totals else 0,
                untaken_retained_billable_seconds=totals.untaken_retained_billable_seconds if totals else 0,
                untaken_retained_cost_usd=totals.untaken_retained_cost_usd if totals else 0.0,
            )
        )
    return PlanAgainstActual(tuple(out))
