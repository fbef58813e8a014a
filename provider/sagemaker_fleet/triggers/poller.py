"""One batched poller and dispatcher per fleet run per triggerer process.

Every deferred training task of a fleet run registers here instead of polling on its own. Once per interval the
poller lists the run's jobs with ListTrainingJobs (NameContains, paginated, ≤ 100 per call) and
- hands each watcher its job's summary; a job whose summary is terminal — or that is missing from two listings in
  a row — is described with the poller's client, a few at a time, and the description goes to its watcher;
- feeds the run's :class:`~sagemaker_fleet.dispatch.RunTracker` and wakes the cities whose turn has come, in the
  same sweep that saw their predecessor end (the hand-off): no task process, no scheduler loop in between;
- ends the warm pools that no city of their group will take over (keep-alive 0): on the group's last jobs while
  they run, so they end without a pool, and on any pool already idle.
The listing starts 5 minutes before the creation of the oldest job that can still change, so late in a run it holds
the jobs of the last stretch, not every job the run made (StatusEquals would not help: SageMaker applies it after
cutting the page). State lives in AWS only, so a restarted triggerer rebuilds it with its first, whole listing.
"""

from __future__ import annotations

import asyncio
import contextlib
import datetime as dt
import json
import logging
from collections.abc import AsyncIterator, Awaitable, Callable, Mapping
from dataclasses import dataclass, field
from typing import Any, TypeVar

from botocore.exceptions import ClientError, HTTPClientError
from botocore.exceptions import ConnectionError as BotocoreConnectionError

from sagemaker_fleet.dispatch.tracker import CREATION_MARGIN, HANDOFF_INTERVAL, RunTracker, Wait
from sagemaker_fleet.errors import SageMakerFleetError
from sagemaker_fleet.hooks.fleet import SageMakerFleetHook, error_code
from sagemaker_fleet.jobs.statuses import TERMINAL_STATUSES, THROTTLING_CODES

log = logging.getLogger(__name__)

#: A failing sweep (throttled past its retries, the endpoint unreachable, any error) waits up to this many
#: intervals before the next.
MAX_BACKOFF_FACTOR = 8
#: The poller gives up, and tells every trigger that watches or waits through it, once sweeps have failed this
#: many times in a row *and* for at least :data:`GIVE_UP_SECONDS`: a minute-long outage of the endpoint or the
#: network fails nothing; the triggers' tasks fail (and Airflow retries them) only when it lasts.
MAX_CONSECUTIVE_ERRORS = 5
GIVE_UP_SECONDS = 900.0
#: A watched job that SageMaker has not ended this long after its own limits (MaxWaitTimeInSeconds for spot,
#: MaxRuntimeInSeconds) counts as lost: SageMaker stops every job at those limits.
WATCH_MARGIN_SECONDS = 3600.0
#: DescribeTrainingJob calls in flight at once when many jobs end in one sweep.
DESCRIBE_CONCURRENCY = 8
#: Consecutive listings a watched job may be missing from before it is described directly.
MISSES_BEFORE_DESCRIBE = 2

#: The shortest sweep interval against AWS itself (an endpoint under ``amazonaws.com``): shorter ones spend the
#: account's ListTrainingJobs rate for nothing a job's minutes-long life would show. The simulator may go lower.
MIN_AWS_POLL_SECONDS = 5.0

#: "Still waiting" task-log lines the run's triggers may write, per second and at most at once. The triggerer
#: writes every trigger's log lines from its event loop through one pipe to its supervisor; in Airflow 3.3 that
#: pipe filling up while the supervisor sends a large batch of new triggers deadlocks the triggerer (seen with
#: 1,000 cities, whose wait lines all came due together). A city whose line finds no room tries again later.
WAIT_LINES_PER_SECOND = 1.0
WAIT_LINES_BURST = 10.0

#: Retries of the triggerer's shared client: jittered exponential back-off on throttles, no client-side rate limit.
TRIGGERER_RETRIES: dict[str, Any] = {"mode": "standard", "max_attempts": 10}
#: Secondary statuses worth a warning in the task log while a job runs.
NOTABLE = frozenset({"Interrupted", "Restarting", "MaxWaitTimeExceeded", "Stopping"})

PollerKey = tuple[Any, ...]


@dataclass
class _Watch:
    #: One queue per trigger that watches the job (two triggers of one job in one triggerer each get every update).
    queues: list[asyncio.Queue[Mapping[str, Any]]] = field(default_factory=list)
    misses: int = 0
    #: A lower bound of the job's CreationTime: the caller's, then SageMaker's own once the job is listed.
    created: dt.datetime | None = None

    def put(self, update: Mapping[str, Any]) -> None:
        for queue in self.queues:
            queue.put_nowait(update)


T = TypeVar("T")


def is_transient(exc: BaseException) -> bool:
    """An error that says the endpoint could not answer now (unreachable, connection dropped, timed out,
    throttled past botocore's retries, a 5xx), not that the request was wrong: the same request may be sent again.
    Every call a trigger makes is safe to repeat (reads, and a create whose name is its idempotency key)."""
    if isinstance(exc, ClientError):
        metadata: Mapping[str, Any] = exc.response.get("ResponseMetadata") or {}
        status = int(metadata.get("HTTPStatusCode") or 0)
        return error_code(exc) in THROTTLING_CODES or status >= 500
    return isinstance(exc, BotocoreConnectionError | HTTPClientError | OSError | TimeoutError)


@dataclass
class _Waiter:
    wait: Wait
    turn: asyncio.Future[None]


class FleetPoller:
    """Watches many training jobs with few API calls and dispatches the run's cities; shared by all triggers with
    the same key in one event loop."""

    _registry: dict[tuple[int, PollerKey], FleetPoller] = {}
    give_up_seconds: float = GIVE_UP_SECONDS

    def __init__(self, hook: SageMakerFleetHook, name_contains: str, interval: float) -> None:
        self.hook = hook
        self.name_contains = name_contains
        self.interval = interval
        self.watches: dict[str, _Watch] = {}
        self.waiters: dict[str, _Waiter] = {}
        self.tracker: RunTracker | None = None
        self._listed = asyncio.Event()
        self._tracker_lock = asyncio.Lock()
        self._task: asyncio.Task[None] | None = None
        self._key: tuple[int, PollerKey] | None = None
        self._loop: asyncio.AbstractEventLoop | None = None
        self._client: Any = None
        self._client_cm: Any = None
        self._client_users = 0
        self._console: asyncio.Future[tuple[str, str]] | None = None
        #: The earliest creation a job of the run can have (:func:`~sagemaker_fleet.fleetspec.names.run_key_floor`):
        #: a listing of the run's whole past starts there instead of at the account's beginning.
        self.floor: dt.datetime | None = None
        self._min_interval = 0.0
        self._wait_lines = WAIT_LINES_BURST
        self._wait_lines_at: float | None = None

    @classmethod
    def shared(
        cls, key: PollerKey, factory: Callable[[], SageMakerFleetHook], name_contains: str, interval: float
    ) -> FleetPoller:
        loop = asyncio.get_running_loop()
        loop_key = (id(loop), key)
        poller = cls._registry.get(loop_key)
        if poller is None or poller._loop is not loop:  # a closed loop's id can be reused by a new one
            poller = cls(factory(), name_contains, interval)
            poller._key = loop_key
            poller._loop = loop
            cls._registry[loop_key] = poller
        poller.interval = max(poller._min_interval, min(poller.interval, interval))
        return poller

    # ------------------------------------------------------------------------------------------ watching

    def watch(
        self, job_name: str, created_after: dt.datetime | None = None
    ) -> asyncio.Queue[Mapping[str, Any]]:
        """Register a job; each poll puts on the returned queue its ListTrainingJobs summary while it runs, its
        DescribeTrainingJob response once it has ended (so a terminal update is always a full description), or
        ``{"error": ...}``.
        ``created_after``: a time before the job's creation; without it the listing covers the name's whole past."""
        watch = self.watches.setdefault(job_name, _Watch())
        if created_after is not None and (watch.created is None or created_after < watch.created):
            watch.created = created_after
        queue: asyncio.Queue[Mapping[str, Any]] = asyncio.Queue()
        watch.queues.append(queue)
        self._ensure_running()
        return queue

    def unwatch(self, job_name: str, queue: asyncio.Queue[Mapping[str, Any]] | None = None) -> None:
        """Stop ``queue``'s watch of ``job_name`` (every watch of it without ``queue``)."""
        watch = self.watches.get(job_name)
        if watch is None:
            return
        if queue is not None:
            watch.queues = [q for q in watch.queues if q is not queue]
        if queue is None or not watch.queues:
            del self.watches[job_name]

    def window_start(self) -> dt.datetime | None:
        """CreationTimeAfter of the next listing: the oldest job that can still change, less the margin; None
        lists the name's whole past (a job without a known creation, or a tracker that has not seen the run)."""
        starts: list[dt.datetime] = []
        for watch in self.watches.values():
            if watch.created is None:
                return None
            starts.append(watch.created - CREATION_MARGIN)
        if self.tracker is not None:
            tracked = self.tracker.window_start()
            if tracked is None:
                return None
            starts.append(tracked)
        return min(starts) if starts else None

    # ------------------------------------------------------------------------------------------ dispatching

    async def track(self, load: Callable[[], Awaitable[RunTracker]]) -> RunTracker:
        """The run's tracker, loaded once per poller (the first caller loads it), after one whole listing."""
        async with self._tracker_lock:
            if self.tracker is None:
                self.tracker = await load()
        self._ensure_running()
        await self._listed.wait()
        return self.tracker

    async def wait_turn(self, wait: Wait) -> None:
        """Return once ``wait.city`` may create its job (:meth:`RunTracker.admit`); it counts as running from
        then on, until the listing shows its job or :meth:`release` gives its place back."""
        turn: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        waiter = _Waiter(wait, turn)
        self.waiters[wait.city] = waiter
        self._ensure_running()
        self._admit()
        try:
            await turn
        except asyncio.CancelledError:
            if turn.done() and self.tracker is not None:  # admitted, then cancelled before it could create
                self.tracker.release(wait.city)
            raise
        finally:
            if self.waiters.get(wait.city) is waiter:
                del self.waiters[wait.city]

    def release(self, city: str) -> None:
        """``city`` was admitted but created no job (the quota refused it, say): its place goes to the next."""
        if self.tracker is not None:
            self.tracker.release(city)
            self._admit()

    def waiting_reason(self, city: str) -> str:
        """Why ``city`` is still waiting, for its task log."""
        waiter = self.waiters.get(city)
        if self.tracker is None or waiter is None:
            return "waits for the run's first listing"
        return self.tracker.waiting_reason(waiter.wait, asyncio.get_running_loop().time())

    def take_wait_line(self) -> bool:
        """Whether a waiting city may write its line now (:data:`WAIT_LINES_PER_SECOND`, a token bucket)."""
        now = asyncio.get_running_loop().time()
        if self._wait_lines_at is not None:
            self._wait_lines = min(
                WAIT_LINES_BURST, self._wait_lines + (now - self._wait_lines_at) * WAIT_LINES_PER_SECOND
            )
        self._wait_lines_at = now
        if self._wait_lines < 1.0:
            return False
        self._wait_lines -= 1.0
        return True

    def _admit(self) -> None:
        tracker = self.tracker
        if tracker is None or not tracker.listed_whole or not self.waiters:
            return
        now = asyncio.get_running_loop().time()
        for city in tracker.admit([w.wait for w in self.waiters.values()], now):
            waiter = self.waiters.pop(city)
            if not waiter.turn.done():
                waiter.turn.set_result(None)

    # ------------------------------------------------------------------------------------------ the client

    async def console(self) -> tuple[str, str]:
        """(region, console domain) of the connection, for the extra links; the hook builds a boto3 client to
        learn them (hundreds of ms of CPU), so once per poller, off the event loop."""
        if self._console is None:
            from airflow.providers.amazon.aws.links.base_aws import BaseAwsLink

            def read() -> tuple[str, str]:
                return self.hook.conn_region_name, BaseAwsLink.get_aws_domain(self.hook.conn_partition) or ""

            self._console = asyncio.ensure_future(asyncio.to_thread(read))
        return await asyncio.shield(self._console)

    @contextlib.asynccontextmanager
    async def client(self) -> AsyncIterator[Any]:
        """The poller's aiobotocore client, opened once and shared by its sweeps and its triggers' calls (a
        client per call costs more CPU than the call)."""
        self._client_users += 1
        try:
            if self._client is None:
                self._client_cm = await self.hook.get_async_conn()
                self._client = await self._client_cm.__aenter__()
                self._clamp_interval(
                    str(getattr(getattr(self._client, "meta", None), "endpoint_url", "") or "")
                )
            yield self._client
        finally:
            self._client_users -= 1

    async def call(self, what: str, request: Callable[..., Awaitable[T]], *args: Any) -> T:
        """``request(client, *args)`` with the poller's client, sent again after a transient error (:func:`is_transient`)
        with the sweeps' back-off, for as long as the sweeps themselves would keep trying
        (:attr:`give_up_seconds`): a city whose turn comes while the endpoint is down waits for it instead of
        failing its task. Any other error, or one that outlasts that, is raised."""
        loop = asyncio.get_running_loop()
        started, backoff = loop.time(), 1
        while True:
            try:
                async with self.client() as client:
                    return await request(client, *args)
            except Exception as exc:
                if not is_transient(exc) or loop.time() - started >= self.give_up_seconds:
                    raise
                delay = max(self.interval, 1.0) * backoff
                log.warning(
                    "%s failed (%s: %s); sending it again in %.0f s", what, type(exc).__name__, exc, delay
                )
                await asyncio.sleep(delay)
                backoff = min(MAX_BACKOFF_FACTOR, backoff * 2)

    def _clamp_interval(self, endpoint_url: str) -> None:
        """Against AWS itself, sweep no more often than every :data:`MIN_AWS_POLL_SECONDS` (with a warning)."""
        host = endpoint_url.split("://", 1)[-1].split("/", 1)[0].split(":", 1)[0]
        if not (host.endswith(".amazonaws.com") or host.endswith(".amazonaws.com.cn")):
            return
        self._min_interval = MIN_AWS_POLL_SECONDS
        if self.interval < MIN_AWS_POLL_SECONDS:
            log.warning(
                "poll interval %.1f s is below %.0f s against %s: sweeping every %.0f s (a shorter interval "
                "spends the account's API rate and shows nothing sooner)",
                self.interval,
                MIN_AWS_POLL_SECONDS,
                host,
                MIN_AWS_POLL_SECONDS,
            )
            self.interval = MIN_AWS_POLL_SECONDS

    async def _close_client(self) -> None:
        if self._client_cm is not None and self._client_users == 0:
            cm, self._client_cm, self._client = self._client_cm, None, None
            await cm.__aexit__(None, None, None)

    # ------------------------------------------------------------------------------------------ the loop

    def _busy(self) -> bool:
        return bool(self.watches or self.waiters or self._client_users or not self._listed.is_set())

    def _ensure_running(self) -> None:
        if self._key is not None:
            FleetPoller._registry.setdefault(self._key, self)
        if self._task is None or self._task.done():
            self._task = asyncio.get_running_loop().create_task(self._run())

    async def _run(self) -> None:
        """Sweep until nobody watches or waits. No exception ends the loop but cancellation: a failed sweep (the
        endpoint unreachable, credentials gone, throttled past its retries, a bug) backs off and tries again, and
        only a failure that lasts is handed to the triggers (:meth:`_give_up`)."""
        loop = asyncio.get_running_loop()
        errors = 0
        failing_since = 0.0
        backoff = 1
        try:
            while self._busy():
                try:
                    await self._poll_once()
                    errors, backoff = 0, max(1, backoff // 2)
                except asyncio.CancelledError:
                    raise
                except Exception as exc:  # noqa: BLE001 - a dead poller would leave every trigger waiting forever
                    if errors == 0:
                        failing_since = loop.time()
                    errors += 1
                    backoff = min(MAX_BACKOFF_FACTOR, backoff * 2)
                    throttled = isinstance(exc, ClientError) and error_code(exc) in THROTTLING_CODES
                    log.warning(
                        "polling %s failed (%d in a row%s): %s: %s; next sweep in %.0f s",
                        self.name_contains,
                        errors,
                        ", throttled past its retries" if throttled else "",
                        type(exc).__name__,
                        exc,
                        self.interval * backoff,
                    )
                    if (
                        errors >= MAX_CONSECUTIVE_ERRORS
                        and loop.time() - failing_since >= self.give_up_seconds
                    ):
                        self._give_up(exc, loop.time() - failing_since)
                        errors = 0
                interval = min(self.interval, HANDOFF_INTERVAL) if self.waiters else self.interval
                await asyncio.sleep(interval * backoff)
        finally:
            with contextlib.suppress(Exception):
                await self._close_client()
            if not self._busy() and self._key is not None and FleetPoller._registry.get(self._key) is self:
                del FleetPoller._registry[self._key]

    def _give_up(self, exc: BaseException, seconds: float) -> None:
        """Every watcher gets an error update and every waiting city's turn raises :class:`JobWatchError`: their
        tasks fail with the reason, and Airflow's retry attaches to the jobs that kept running meanwhile."""
        reason = f"polling failed for {seconds:.0f} s ({type(exc).__name__}: {exc})"
        log.error("polling %s: giving up: %s", self.name_contains, reason)
        for watch in self.watches.values():
            watch.put({"error": reason})
        for waiter in list(self.waiters.values()):
            if not waiter.turn.done():
                waiter.turn.set_exception(JobWatchError(reason))

    async def _poll_once(self) -> None:
        async with self.client() as client:
            window = self.window_start()
            after = window if window is not None else self.floor  # the run's whole past either way
            listing = self.hook.alist_jobs(client, self.name_contains, creation_time_after=after)
            summaries = [summary async for summary in listing]
            if self.tracker is not None:
                self.tracker.observe(summaries, whole=window is None)
                self._listed.set()
                self._admit()  # the hand-off: successors start in the sweep that saw their predecessor end
            seen = {summary["TrainingJobName"]: summary for summary in summaries}
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
                    watch.put(summary)
            await self._describe_all(client, to_describe)
            await self._end_surplus_pools(client)
        if self.tracker is None:
            self._listed.set()

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
                watch.put({"error": f"training job {name} does not exist"})
                return
            watch.misses = 0
            _learn_creation(watch, described)  # a job the listing missed is in the next one
            if self.tracker is not None:
                self.tracker.observe([described])
            watch.put(described)

        # all finish before the sweep's client closes; then the first failure (a throttle, say) counts for the sweep
        results = await asyncio.gather(*(one(name) for name in names), return_exceptions=True)
        for result in results:
            if isinstance(result, BaseException):
                raise result

    async def _end_surplus_pools(self, client: Any) -> None:
        """Set keep-alive 0 on the running jobs of a group with no city left to start (they end without a pool, so
        not one idle second after the run's last job) and on idle pools no city of their group will take over:
        either would bill until expiry."""
        if self.tracker is None:
            return
        for name in self.tracker.tail_jobs():
            self.tracker.tail_released.add(name)
            try:
                await self.hook.aupdate_keep_alive(client, name, 0)
                log.info("%s: keep-alive set to 0 (no city of its group is left to take its pool over)", name)
            except ClientError as exc:  # it ended meanwhile: surplus_pools ends its pool, if it kept one
                log.info("%s: keep-alive not updated: %s", name, exc)
        for name in self.tracker.surplus_pools():
            self.tracker.released.add(name)
            try:
                await self.hook.aupdate_keep_alive(client, name, 0)
                log.info("%s: warm pool ended (no city of its group is left to take it over)", name)
            except ClientError as exc:  # it expired or was taken meanwhile: nothing to end
                log.info("%s: warm pool not ended: %s", name, exc)

    async def close(self) -> None:
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._task


def _learn_creation(watch: _Watch, job: Mapping[str, Any]) -> None:
    created = job.get("CreationTime")
    if isinstance(created, dt.datetime):
        watch.created = created


class JobWatchError(SageMakerFleetError, RuntimeError):
    """The poller gave up on a watched job (it vanished, or polling failed again and again)."""


def run_poller(
    hook: SageMakerFleetHook, conn: Mapping[str, Any], name_contains: str, interval: float
) -> FleetPoller:
    """The shared poller of one run (its jobs' names contain ``name_contains``) for one AWS connection in this
    event loop."""
    key = (json.dumps(dict(conn), sort_keys=True, default=str), name_contains)
    return FleetPoller.shared(key, lambda: hook, name_contains, interval)


def watch_deadline(job: Mapping[str, Any]) -> float | None:
    """Seconds to watch ``job`` (a description or a CreateTrainingJob request) before it counts as lost: its own
    limit (MaxWaitTimeInSeconds for spot, else MaxRuntimeInSeconds) plus :data:`WATCH_MARGIN_SECONDS`."""
    stopping = job.get("StoppingCondition") or {}
    limit = stopping.get("MaxWaitTimeInSeconds") or stopping.get("MaxRuntimeInSeconds")
    return float(limit) + WATCH_MARGIN_SECONDS if limit else None


async def watch_until_terminal(
    poller: FleetPoller,
    job_name: str,
    created_after: dt.datetime | None,
    log: Any,
    deadline_seconds: float | None = None,
) -> Mapping[str, Any]:
    """Wait for ``job_name`` through the poller; its DescribeTrainingJob response once it is terminal.
    ``deadline_seconds``: give up (:class:`JobWatchError`) when it has not ended by then (:func:`watch_deadline`)."""
    queue = poller.watch(job_name, created_after)
    loop = asyncio.get_running_loop()
    deadline = None if deadline_seconds is None else loop.time() + deadline_seconds
    last: str | None = None
    try:
        while True:
            try:
                update = await asyncio.wait_for(
                    queue.get(), None if deadline is None else deadline - loop.time()
                )
            except TimeoutError:
                raise JobWatchError(
                    f"{job_name} has not ended {deadline_seconds:.0f} s after it was first watched, past its own "
                    "limits (SageMaker stops a job at MaxRuntime/MaxWait): its status cannot be read"
                ) from None
            if "error" in update:
                raise JobWatchError(str(update["error"]))
            # few lines: the triggerer writes every trigger's log lines from its one event loop, and in Airflow 3.3
            # a burst of them while it receives large workloads can stall it (see docs/troubleshooting.md)
            secondary = update.get("SecondaryStatus")
            if secondary != last and secondary in NOTABLE:
                log.warning("%s: %s / %s", job_name, update.get("TrainingJobStatus"), secondary)
            last = secondary
            if update.get("TrainingJobStatus") in TERMINAL_STATUSES:
                log.info("%s: %s / %s", job_name, update.get("TrainingJobStatus"), secondary)
                return update
    finally:
        poller.unwatch(job_name, queue)
