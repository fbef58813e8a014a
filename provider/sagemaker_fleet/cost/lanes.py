"""Lanes of the run as SageMaker actually ran them, rebuilt from ``WarmPoolStatus.ReusedByJob``.

A *pool chain* is a sequence of jobs that handed one warm pool on: job → the job its ReusedByJob names → …
A chain starts with a job no other job of the run handed a pool to (a cold start, or a pool from an earlier run).
Chains of one group that do not overlap in time (retained idle time included) are packed into one *lane*, first
fit in start order, which reproduces the planner's lanes when the run went as planned.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from sagemaker_fleet.cost.model import CostLine


@dataclass(frozen=True)
class PoolChain:
    group: str
    jobs: tuple[str, ...]
    start: datetime | None
    end: datetime | None


@dataclass(frozen=True)
class Lane:
    group: str
    index: int
    chains: tuple[PoolChain, ...]

    @property
    def label(self) -> str:
        return f"{self.group} · lane {self.index + 1}"

    @property
    def jobs(self) -> tuple[str, ...]:
        return tuple(job for chain in self.chains for job in chain.jobs)


def occupied_until(line: CostLine) -> datetime | None:
    """When the job's instances stopped being billed: its end plus the idle time its pool was retained."""
    if line.ended_at is None:
        return None
    return line.ended_at + timedelta(seconds=line.retained_billable_seconds)


def pool_chains(lines: Sequence[CostLine]) -> list[PoolChain]:
    by_name = {line.job_name: line for line in lines}
    handed_to = {line.reused_by_job for line in lines if line.reused_by_job in by_name}
    chains: list[PoolChain] = []
    seen: set[str] = set()
    heads = [line for line in lines if line.job_name not in handed_to]
    # Jobs only reachable through a cycle (corrupt data) still get a chain of their own.
    for head in [*heads, *lines]:
        if head.job_name in seen:
            continue
        names: list[str] = []
        current: CostLine | None = head
        while current is not None and current.job_name not in seen:
            seen.add(current.job_name)
            names.append(current.job_name)
            current = by_name.get(current.reused_by_job or "")
        first, last = by_name[names[0]], by_name[names[-1]]
        chains.append(PoolChain(head.group, tuple(names), first.created_at, occupied_until(last)))
    return chains


def pack_lanes(chains: Iterable[PoolChain]) -> list[Lane]:
    """First-fit packing of chains into lanes, per group, in start order."""
    by_group: dict[str, list[PoolChain]] = {}
    for chain in chains:
        by_group.setdefault(chain.group, []).append(chain)
    lanes: list[Lane] = []
    for group in sorted(by_group):
        rows: list[list[PoolChain]] = []
        for chain in sorted(by_group[group], key=_start_key):
            row = next((r for r in rows if _fits_after(r[-1], chain)), None)
            if row is None:
                rows.append([chain])
            else:
                row.append(chain)
        lanes.extend(Lane(group, i, tuple(row)) for i, row in enumerate(rows))
    return lanes


def build_lanes(lines: Sequence[CostLine]) -> list[Lane]:
    return pack_lanes(pool_chains(lines))


def _start_key(chain: PoolChain) -> tuple[int, float, str]:
    if chain.start is None:
        return (0, 0.0, chain.jobs[0])
    return (1, chain.start.timestamp(), chain.jobs[0])


def _fits_after(previous: PoolChain, chain: PoolChain) -> bool:
    if previous.end is None or chain.start is None:
        return False
    return previous.end <= chain.start
