"""Managed warm pools (docs/sagemaker-behaviour.md, warm pools): which retained clusters exist and which new job may take one.

A pool matches a job only on an equal :func:`~sagemaker_fleet.jobs.keys.warm_pool_key`; it serves one job at a time
and moves from job to job for at most 28 days. When several pools match, the one expiring soonest is taken (AWS
does not say which; this choice wastes the least retained time).
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Literal

from sagemaker_fleet.fleetspec.model import WARM_POOL_LIFETIME_MAX
from sagemaker_fleet.jobs.statuses import POOL_AVAILABLE

if TYPE_CHECKING:
    from sagemaker_fleet.jobs.keys import WarmPoolKey


ClusterStatus = Literal["Available", "InUse", "Terminated"]


@dataclass(slots=True, eq=False)
class WarmPool:
    pool_id: str
    key: WarmPoolKey
    created_at: float
    holder: str  # the job running on it (InUse) or whose WarmPoolStatus is Available
    status: ClusterStatus = "InUse"
    keep_alive: int = 0
    available_since: float | None = None
    expires_at: float | None = None
    token: int = 0
    jobs: list[str] = field(default_factory=list)  # every job that ran on it, in order

    @property
    def retire_at(self) -> float:
        return self.created_at + WARM_POOL_LIFETIME_MAX


class PoolRegistry:
    def __init__(self) -> None:
        self._pools: dict[str, WarmPool] = {}
        self._available: dict[WarmPoolKey, set[str]] = {}
        self._next = 0

    def __iter__(self) -> Iterator[WarmPool]:
        return iter(self._pools.values())

    def get(self, pool_id: str) -> WarmPool:
        return self._pools[pool_id]

    def create(self, key: WarmPoolKey, job_name: str, now: float) -> WarmPool:
        self._next += 1
        pool = WarmPool(f"wp-{self._next:06d}", key, now, job_name, jobs=[job_name])
        self._pools[pool.pool_id] = pool
        return pool

    def find_available(self, key: WarmPoolKey, now: float) -> WarmPool | None:
        candidates = [self._pools[pid] for pid in self._available.get(key, ())]
        usable = [p for p in candidates if p.retire_at > now and (p.expires_at is None or p.expires_at > now)]
        if not usable:
            return None
        return min(usable, key=lambda p: (p.expires_at or now, p.pool_id))

    def make_available(self, pool: WarmPool, job_name: str, keep_alive: int, now: float) -> float:
        """The pool idles after ``job_name``; returns when it expires."""
        pool.status = POOL_AVAILABLE
        pool.holder = job_name
        pool.keep_alive = keep_alive
        pool.available_since = now
        pool.expires_at = min(now + keep_alive, pool.retire_at)
        pool.token += 1
        self._available.setdefault(pool.key, set()).add(pool.pool_id)
        return pool.expires_at

    def set_keep_alive(self, pool: WarmPool, keep_alive: int) -> float:
        """A new keep-alive for an Available pool, counted from when it became idle; returns the new expiry."""
        assert pool.available_since is not None
        pool.keep_alive = keep_alive
        pool.expires_at = min(pool.available_since + keep_alive, pool.retire_at)
        pool.token += 1
        return pool.expires_at

    def take(self, pool: WarmPool, job_name: str) -> str:
        """``job_name`` starts on the pool; returns the job that left it."""
        previous = pool.holder
        self._unlist(pool)
        pool.status = "InUse"
        pool.holder = job_name
        pool.available_since = None
        pool.expires_at = None
        pool.token += 1
        pool.jobs.append(job_name)
        return previous

    def terminate(self, pool: WarmPool) -> None:
        self._unlist(pool)
        pool.status = "Terminated"
        pool.token += 1

    def _unlist(self, pool: WarmPool) -> None:
        listed = self._available.get(pool.key)
        if listed is not None:
            listed.discard(pool.pool_id)
            if not listed:
                del self._available[pool.key]
