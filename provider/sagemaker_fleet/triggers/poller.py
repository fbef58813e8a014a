"""One batched poller per fleet run per triggerer process.

Every deferred training task of a fleet run registers its job name here instead of polling on its own. Once per
interval the poller lists the run's jobs with ListTrainingJobs (NameContains, paginated, ≤ 100 per call) and hands
each watcher its job's summary. The listing starts 5 minutes before the creation of the oldest job still watched,
so late in a run it holds the jobs of the last stretch, not every job the run made (StatusEquals would not help:
SageMaker applies it after cutting the page). A job whose summary is terminal — or that is missing from two
listings in a row — is described with the sweep's own client, a few at a time, and the description goes to its
watcher. State lives in AWS only, so a restarted triggerer rebuilds it on the first poll.
"""

from __future__ import annotations

import asyncio
import contextlib
import datetime as dt
import logging
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from botocore.exceptions import ClientError

from sagemaker_fleet.hooks.fleet import TERMINAL_STATUSES, THROTTLING_CODES, SageMakerFleetHook, error_code

log = logging.getLogger(__name__)

MAX_BACKOFF_FACTOR = 8
MAX_CONSECUTIVE_ERRORS = 5
#: DescribeTrainingJob calls in flight at once when many jobs end in one sweep.
DESCRIBE_CONCURRENCY = 8
#: Consecutive listings a watched job may be missing from before it is described directly.
MISSES_BEFORE_DESCRIBE = 2
#: The listing starts this long before the oldest watched job's creation (clock skew, listing lag).
CREATION_MARGIN = dt.timedelta(minutes=5)

PollerKey = tuple[Any, ...]


@dataclass
class _Watch:
    queue: asyncio.Queue[dict[str, Any]] = field(default_factory=asyncio.Queue)
    misses: int = 0
    #: A lower bound of the job's CreationTime: the caller's, then SageMaker's own once the job is listed.
    created: dt.datetime | None = None


class FleetPoller:
    """Watches many training jobs with few API calls; shared by all triggers with the same key in one loop."""

    _registry: dict[tuple[int, PollerKey], FleetPoller] = {}

    def __init__(self, hook: SageMakerFleetHook, name_contains: str, interval: float) -> None:
        self.hook = hook
        self.name_contains = name_contains
        self.interval = interval
        self.watches: dict[str, _Watch] = {}
        self._task: asyncio.Task[None] | None = None
        self._key: tuple[int, PollerKey] | None = None

    @classmethod
    def shared(
        cls, key: PollerKey, factory: Callable[[], SageMakerFleetHook], name_contains: str, interval: float
    ) -> FleetPoller:
        loop_key = (id(asyncio.get_running_loop()), key)
        poller = cls._registry.get(loop_key)
        if poller is None or (poller._task is not None and poller._task.done()):
            poller = cls(factory(), name_contains, interval)
            poller._key = loop_key
            cls._registry[loop_key] = poller
        poller.interval = min(poller.interval, interval)
        return poller

    def watch(self, job_name: str, created_after: dt.datetime | None = None) -> asyncio.Queue[dict[str, Any]]:
        """Register a job; each poll puts on the returned queue its ListTrainingJobs summary while it runs, its
        DescribeTrainingJob response once it has ended (so a terminal update is always a full description), or
        ``{"error": ...}``.
        ``created_after``: a time before the job's creation; without it the listing covers the name's whole past."""
        watch = self.watches.setdefault(job_name, _Watch())
        if created_after is not None and (watch.created is None or created_after < watch.created):
            watch.created = created_after
        if self._task is None or self._task.done():
            self._task = asyncio.get_running_loop().create_task(self._run())
        return watch.queue

    def window_start(self) -> dt.datetime | None:
        """CreationTimeAfter of the next listing: the oldest watched job's creation less the margin."""
        times = [watch.created for watch in self.watches.values() if watch.created is not None]
        if not times or len(times) < len(self.watches):  # a job without a bound: list the name's whole past
            return None
        return min(times) - CREATION_MARGIN

    def unwatch(self, job_name: str) -> None:
        self.watches.pop(job_name, None)

    async def _run(self) -> None:
        errors = 0
        backoff = 1
        try:
            while self.watches:
                try:
                    await self._poll_once()
                    errors, backoff = 0, max(1, backoff // 2)
                except ClientError as exc:
                    if error_code(exc) in THROTTLING_CODES:
                        backoff = min(MAX_BACKOFF_FACTOR, backoff * 2)
                        log.warning("ListTrainingJobs throttled; polling every %.0f s", self.interval * backoff)
                    else:
                        errors += 1
                        self._fail_all_if(errors, exc)
                except (TimeoutError, OSError) as exc:
                    errors += 1
                    self._fail_all_if(errors, exc)
                await asyncio.sleep(self.interval * backoff)
        finally:
            if self._key is not None and FleetPoller._registry.get(self._key) is self:
                del FleetPoller._registry[self._key]

    def _fail_all_if(self, errors: int, exc: BaseException) -> None:
        log.warning("polling %s failed (%d in a row): %s", self.name_contains, errors, exc)
        if errors >= MAX_CONSECUTIVE_ERRORS:
            for watch in self.watches.values():
                watch.queue.put_nowait({"error": f"{type(exc).__name__}: {exc}"})

    async def _poll_once(self) -> None:
        async with await self.hook.get_async_conn() as client:
            listing = self.hook.alist_jobs(client, self.name_contains, creation_time_after=self.window_start())
            seen = {summary["TrainingJobName"]: summary async for summary in listing}
            to_describe: list[str] = []
            for name, watch in list(self.watches.items()):
                summary = seen.get(name)
                if summary is None:
                    watch.misses += 1
                    if watch.misses >= MISSES_BEFORE_DESCRIBE:
                        to_describe.append(name)
                    continue
                watch.misses = 0
                _learn_creation(watch, summary)
                if summary.get("TrainingJobStatus") in TERMINAL_STATUSES:
                    to_describe.append(name)
                else:
                    watch.queue.put_nowait(summary)
            await self._describe_all(client, to_describe)

    async def _describe_all(self, client: Any, names: list[str]) -> None:
        """Describe terminal or missing jobs with the sweep's client, a few at a time (a burst of jobs ending
        together must not open a client per job nor stall the loop), and hand each watcher its description."""
        limit = asyncio.Semaphore(DESCRIBE_CONCURRENCY)

        async def one(name: str) -> None:
            async with limit:
                described = await self.hook.adescribe(client, name)
            watch = self.watches.get(name)
            if watch is None:
                return
            if described is None:
                watch.queue.put_nowait({"error": f"training job {name} does not exist"})
                return
            watch.misses = 0
            _learn_creation(watch, described)  # a job the listing missed is in the next one
            watch.queue.put_nowait(described)

        # all finish before the sweep's client closes; then the first failure (a throttle, say) counts for the sweep
        results = await asyncio.gather(*(one(name) for name in names), return_exceptions=True)
        for result in results:
            if isinstance(result, BaseException):
                raise result

    async def close(self) -> None:
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._task


def _learn_creation(watch: _Watch, job: dict[str, Any]) -> None:
    created = job.get("CreationTime")
    if isinstance(created, dt.datetime):
        watch.created = created
