"""Why a planned warm start did not happen: the city, and what became of the pool it was planned to take over.

Read from the run's cost lines (the same DescribeTrainingJob evidence the report counts starts by), for each city
the plan starts warm whose first submission the report counts cold. The pool it was planned to reuse is its lane
predecessor's (the predecessor's last submission); what SageMaker says of that pool gives the reason:

- **spot** — the city ran on spot, which never uses a warm pool;
- **ordering** — it was created before its predecessor ended (capacity was free, so it did not wait for the
  pool), or another city took the predecessor's pool first (``ReusedByJob`` names that city's job);
- **quota** — the predecessor ended with a keep-alive but no pool was kept (its ``WarmPoolStatus`` is missing or
  Terminated with no retained time): the warm-pool quota was full, or no warm pool or instance was free;
- **expiry** — the pool was kept and ran out (or was ended) before the city was created;
- **predecessor** — the predecessor failed before training, or has no keep-alive in the run (nothing to keep).

A city that is warm in the plan but whose pool came from elsewhere counts warm and is not listed: the dispatch
hands pools to whichever planned successor is ready, so cities may trade pools without losing a warm start.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Literal

if TYPE_CHECKING:
    from datetime import datetime

    from sagemaker_fleet.cost.model import CostLine
    from sagemaker_fleet.plan.fleet_plan import FleetPlan

MissReason = Literal["spot", "ordering", "quota", "expiry", "predecessor"]


@dataclass(frozen=True)
class MissedWarmStart:
    """One planned warm start that started cold; ``detail`` says what happened, in a sentence."""

    city: str
    job_name: str
    reason: MissReason
    detail: str

    def to_json(self) -> dict[str, Any]:
        return {"city": self.city, "job_name": self.job_name, "reason": self.reason, "detail": self.detail}


def _at(when: datetime | None, began: datetime) -> str:
    return "?" if when is None else f"{(when - began).total_seconds():,.0f} s"


def _reason(
    line: CostLine, before: CostLine | None, owner: dict[str, str], began: datetime
) -> MissedWarmStart:
    def missed(reason: MissReason, detail: str) -> MissedWarmStart:
        return MissedWarmStart(city=line.city, job_name=line.job_name, reason=reason, detail=detail)

    created = _at(line.created_at, began)
    if line.spot:
        return missed("spot", f"it ran on spot (created at {created}), which never uses a warm pool")
    if before is None:
        return missed("predecessor", "its lane predecessor has no job in the run")
    name = before.city
    if before.ended_at is None or (line.created_at is not None and line.created_at < before.ended_at):
        return missed(
            "ordering",
            f"it was created at {created}, before {name} ended at {_at(before.ended_at, began)}: capacity was "
            "free, so it started cold rather than wait for the pool",
        )
    if before.reused_by_job:
        taker = owner.get(before.reused_by_job, before.reused_by_job)
        return missed("ordering", f"{taker} took {name}'s pool first (this city was created at {created})")
    if before.keep_alive_seconds <= 0:
        return missed("predecessor", f"{name} ran without keep-alive ({before.status}): it kept no pool")
    if before.status == "Failed" and before.training_started_at is None:
        return missed("predecessor", f"{name} failed before training: there was no pool to keep")
    if before.warm_pool_status in (None, "Terminated") and before.retained_billable_seconds == 0:
        return missed(
            "quota",
            f"{name} ended at {_at(before.ended_at, began)} with keep-alive {before.keep_alive_seconds} s but "
            "SageMaker kept no pool: the warm-pool quota was full (no warm pool or instance free)",
        )
    return missed(
        "expiry",
        f"{name}'s pool was idle {before.retained_billable_seconds} s (keep-alive {before.keep_alive_seconds} s) "
        f"and ended before this city was created at {created}",
    )


def missed_warm_starts(
    plan: FleetPlan, lines: tuple[CostLine, ...], began: datetime
) -> list[MissedWarmStart]:
    """The plan's warm starts that the run's cost lines count cold, each with its reason, in plan order."""
    first: dict[str, CostLine] = {}
    last: dict[str, CostLine] = {}
    for line in sorted(lines, key=lambda item: item.attempt):
        first.setdefault(line.city, line)
        last[line.city] = line
    owner = {line.job_name: line.city for line in lines}
    out: list[MissedWarmStart] = []
    for job in plan.jobs:
        started = first.get(job.city)
        if job.start != "warm" or started is None or started.start == "warm":
            continue
        predecessor = plan.predecessor(job.city)
        before = last.get(predecessor.city) if predecessor is not None else None
        out.append(_reason(started, before, owner, began))
    return out
