"""What the Fleet view reads from SageMaker, cheaply: one batched listing per refresh, describes only for jobs that
moved, and one answer per run shared by every viewer for a few seconds.

A refresh lists the run's jobs once (ListTrainingJobs by the run's name filter and creation window, every page),
then describes only the jobs whose description is not cached or may still change: a job is *final* once it is
terminal and its warm pool is settled (none, Terminated or Reused); a final job's description never changes, so
it is described once for the life of the cache. Never one call per city per refresh.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Iterator, Mapping
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import Any, Protocol

from sagemaker_fleet.fleetspec.names import run_key_floor, run_name_contains
from sagemaker_fleet.fleetview.model import ListingStats
from sagemaker_fleet.jobs.statuses import TERMINAL_STATUSES as TERMINAL

POOL_SETTLED = frozenset({"Terminated", "Reused"})
DESCRIBE_WORKERS = 4
#: Seconds one answer serves every viewer of a run (the page refreshes every few seconds; SageMaker changes slower).
DEFAULT_TTL = 5.0


class JobReader(Protocol):
    """The two calls used; :class:`sagemaker_fleet.hooks.fleet.SageMakerFleetHook` fits."""

    def list_jobs(
        self, name_contains: str, *, creation_time_after: Any = None
    ) -> Iterator[dict[str, Any]]: ...

    def describe(self, job_name: str) -> dict[str, Any] | None: ...


def _pool_status(job: Mapping[str, Any]) -> str | None:
    pool = job.get("WarmPoolStatus") or {}
    status = pool.get("Status")
    return str(status) if status else None


def is_final(job: Mapping[str, Any]) -> bool:
    """Terminal and holding no pool that could still be billed or handed on."""
    pool = _pool_status(job)
    return job.get("TrainingJobStatus") in TERMINAL and (pool is None or pool in POOL_SETTLED)


def _signature(summary: Mapping[str, Any]) -> tuple[Any, ...]:
    return (
        summary.get("TrainingJobStatus"),
        summary.get("SecondaryStatus"),
        _pool_status(summary),
        str(summary.get("LastModifiedTime")),
    )


@dataclass
class RunJobsReader:
    """The describes of one run's jobs, refreshed with as few calls as the run's state allows."""

    run_key: str
    names: Mapping[str, tuple[str, int]]
    cached: dict[str, tuple[tuple[Any, ...], dict[str, Any]]] = field(default_factory=dict)

    def read(self, reader: JobReader) -> tuple[list[dict[str, Any]], ListingStats]:
        summaries = [
            s
            for s in reader.list_jobs(
                run_name_contains(self.run_key), creation_time_after=run_key_floor(self.run_key)
            )
            if s.get("TrainingJobName") in self.names
        ]
        stale = []
        for summary in summaries:
            name = str(summary["TrainingJobName"])
            hit = self.cached.get(name)
            if hit is None or hit[0] != _signature(summary) or not is_final(hit[1]):
                stale.append(summary)
        with ThreadPoolExecutor(max_workers=DESCRIBE_WORKERS) as pool:
            described = list(pool.map(lambda s: reader.describe(str(s["TrainingJobName"])), stale))
        for summary, description in zip(stale, described, strict=True):
            if description is not None:
                self.cached[str(summary["TrainingJobName"])] = (_signature(summary), description)
        listed = [str(s["TrainingJobName"]) for s in summaries]
        out = [self.cached[name][1] for name in sorted(listed) if name in self.cached]
        stats = ListingStats(list_calls=1, describe_calls=len(stale), cached_describes=len(out) - len(stale))
        return out, stats


@dataclass
class _Entry:
    lock: threading.Lock = field(default_factory=threading.Lock)
    value: Any = None
    at: float = float("-inf")
    state: Any = None  # the caller's own state kept between refreshes (a RunJobsReader)


class ViewCache:
    """Answers per key (``(dag_id, run_id)``), shared between viewers for ``ttl`` seconds. Concurrent viewers of
    one run wait for the one refresh in progress instead of each starting their own."""

    def __init__(
        self, ttl: float = DEFAULT_TTL, clock: Callable[[], float] = time.monotonic, max_entries: int = 256
    ) -> None:
        self.ttl = ttl
        self.clock = clock
        self.max_entries = max_entries
        self._entries: dict[tuple[str, str], _Entry] = {}
        self._lock = threading.Lock()

    def get(self, key: tuple[str, str], compute: Callable[[Any], tuple[Any, Any]]) -> Any:
        """The cached answer, or ``compute(state)`` → (answer, state to keep) when it is older than ``ttl``."""
        with self._lock:
            entry = self._entries.get(key)
            if entry is None:
                if len(self._entries) >= self.max_entries:
                    oldest = min(self._entries, key=lambda k: self._entries[k].at)
                    del self._entries[oldest]
                entry = self._entries[key] = _Entry()
        with entry.lock:
            if self.clock() - entry.at < self.ttl:
                return entry.value
            entry.value, entry.state = compute(entry.state)
            entry.at = self.clock()
            return entry.value
