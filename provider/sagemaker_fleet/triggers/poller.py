"""FleetPoller: one batched poller and dispatcher per fleet run per triggerer process — the triggerer's shell
around the run's sweeps: the I/O (:class:`~sagemaker_fleet.dispatch.sweeping.SweepIO`) of
:func:`~sagemaker_fleet.dispatch.sweeping.sweep_once`, which ``simulate`` drives too.

Every deferred training task of a fleet run registers here instead of polling on its own. Once per interval the
poller lists the run's jobs with ListTrainingJobs (NameContains, paginated, ≤ 100 per call) and, as the sweep
decides, wakes the cities whose turn has come (in the sweep that saw their predecessor end: no task process, no
scheduler loop in between), hands each watcher its job's summary or, once it has ended, its description (described
with the poller's client, a few at a time), and ends the warm pools no city of their group will take over.

Its parts: :class:`~sagemaker_fleet.triggers.client.RunClient` (the shared client, requests sent again through an
outage), :class:`~sagemaker_fleet.triggers.watch.JobWatchers` (the watchers' queues),
:class:`~sagemaker_fleet.triggers.budget.WaitLineBudget` (the waiting cities' log lines), the sweeps' loop and their
I/O here.
"""

from __future__ import annotations

import asyncio
import contextlib
import datetime as dt
import json
import logging
import time
from collections.abc import Awaitable, Callable, Mapping, Sequence
from typing import TYPE_CHECKING, Any, ClassVar, TypeVar, Unpack

from botocore.exceptions import ClientError

from sagemaker_fleet.dispatch.sweep import RunSweeps
from sagemaker_fleet.dispatch.sweeping import DENIED, Answer, Swept, sweep_once
from sagemaker_fleet.dispatch.waiters import Waiters
from sagemaker_fleet.hooks.fleet import SageMakerFleetHook, error_code
from sagemaker_fleet.jobs.statuses import ACCESS_DENIED_CODES, KEEP_ALIVE_REFUSALS, THROTTLING_CODES
from sagemaker_fleet.triggers.board_client import BoardClient
from sagemaker_fleet.triggers.budget import WaitLineBudget
from sagemaker_fleet.triggers.client import RunClient, aws_host
from sagemaker_fleet.triggers.watch import JobWatchError, JobWatchers, Update

if TYPE_CHECKING:
    from sagemaker_fleet.dispatch.cadence import Cadence
    from sagemaker_fleet.dispatch.state import Wait
    from sagemaker_fleet.dispatch.sweep import Listed, PoolEnd
    from sagemaker_fleet.dispatch.tracker import RunTracker
    from sagemaker_fleet.jobs.paging import JobFilters
    from sagemaker_fleet.observability.stats import RunSignals

__all__ = ["MAX_CONSECUTIVE_ERRORS", "FleetPoller", "run_poller"]

log = logging.getLogger(__name__)

#: The poller gives up, and tells every trigger that watches or waits through it, once sweeps have failed this
#: many times in a row *and* for at least the cadence's ``give_up_seconds``: a minute-long outage of the endpoint or
#: the network fails nothing; the triggers' tasks fail (and Airflow retries them) only when it lasts.
MAX_CONSECUTIVE_ERRORS = 5
#: DescribeTrainingJob calls in flight at once when many jobs end in one sweep.
DESCRIBE_CONCURRENCY = 8

PollerKey = tuple[Any, ...]
T = TypeVar("T")


class FleetPoller:
    """Watches many training jobs with few API calls and dispatches the run's cities; shared by all triggers with
    the same key in one event loop."""

    _registry: ClassVar[dict[tuple[int, PollerKey], FleetPoller]] = {}

    def __init__(self, hook: SageMakerFleetHook, name_contains: str, interval: float) -> None:
        self.hook = hook
        self.name_contains = name_contains
        self.interval = interval
        self.aws = RunClient(hook, on_open=self._clamp_interval)
        self.board = BoardClient(hook, name_contains)
        self.sweeps = RunSweeps()
        self.watchers = JobWatchers()
        self.wait_lines = WaitLineBudget()
        self.waiters: Waiters[asyncio.Future[None]] = Waiters(self.sweeps)
        self._listed = asyncio.Event()
        self._tracker_lock = asyncio.Lock()
        self._task: asyncio.Task[None] | None = None
        self._key: tuple[int, PollerKey] | None = None
        self._loop: asyncio.AbstractEventLoop | None = None
        self._min_interval = 0.0
        self._denied_warned = False
        #: The run's metrics (set by its first city trigger): every sweep's listing and waiting cities go there.
        self.signals: RunSignals | None = None

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
        poller.ask_interval(interval)
        return poller

    def ask_interval(self, interval: float) -> None:
        """A trigger of the run asks for sweeps every ``interval`` seconds: the run sweeps as often as its most
        eager trigger asks, never more often than the AWS floor (:meth:`_clamp_interval`)."""
        self.interval = max(self._min_interval, min(self.interval, interval))

    async def endpoint_speed(self) -> float:
        """The endpoint's clock speed (1 against AWS; a simulator's own), read once per poller (:meth:`RunClient.speed`)."""
        return await self.aws.speed(self.cadence.give_up_seconds)

    @property
    def tracker(self) -> RunTracker | None:
        """The run's tracker, once its dispatch is built onto :attr:`sweeps` (:meth:`track`)."""
        return self.sweeps.tracker

    @property
    def cadence(self) -> Cadence:
        """The run's intervals (its dispatch's: :attr:`RunSweeps.cadence`): the give-up, the AWS floor, the watch margin."""
        return self.sweeps.cadence

    @property
    def watches(self) -> Mapping[str, Any]:
        """The jobs watched now, by name."""
        return self.sweeps.watches

    def now(self) -> float:
        """The poller's clock (the event loop's): admissions, waits and log budgets are counted on it."""
        return asyncio.get_running_loop().time()

    # ------------------------------------------------------------------------------------------ watching

    def watch(self, job_name: str, created_after: dt.datetime | None = None) -> asyncio.Queue[Update]:
        """Register a job; each poll puts on the returned queue its ListTrainingJobs summary while it runs, its
        DescribeTrainingJob response once it has ended, or ``{"error": ...}``.
        ``created_after``: a time before the job's creation; without it the listing covers the name's whole past."""
        self.sweeps.watch(job_name, created_after)
        queue = self.watchers.add(job_name)
        self._ensure_running()
        return queue

    def unwatch(self, job_name: str, queue: asyncio.Queue[Update] | None = None) -> None:
        """Stop ``queue``'s watch of ``job_name`` (every watch of it without ``queue``)."""
        if self.watchers.remove(job_name, queue):
            self.sweeps.unwatch(job_name)

    # ------------------------------------------------------------------------------------------ dispatching

    async def track(self, build: Callable[[RunSweeps], Awaitable[object]]) -> RunTracker:
        """The run's tracker, after one whole listing. Its dispatch is built once per poller, by the first caller's
        ``build(sweeps)`` (:func:`~sagemaker_fleet.dispatch.build.build_run_dispatch` onto this poller's sweeps)."""
        async with self._tracker_lock:
            if self.sweeps.tracker is None:
                await build(self.sweeps)
        self._ensure_running()
        await self._listed.wait()
        tracker = self.sweeps.tracker
        assert tracker is not None
        return tracker

    async def wait_turn(self, wait: Wait) -> None:
        """Return once ``wait.city`` may create its job (:meth:`RunTracker.admit`); it counts as running from
        then on, until the listing shows its job or :meth:`release` gives its place back."""
        turn: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self._ensure_running()
        self._admit(self.waiters.add(wait, turn, self.now()))
        admitted = False
        try:
            await turn
        except asyncio.CancelledError:
            admitted = turn.done()  # admitted, then cancelled before it could create
            raise
        finally:
            self.waiters.leave(wait.city, turn, admitted=admitted)

    def release(self, city: str) -> None:
        """``city`` was admitted but created no job (the quota refused it, say): its place goes to the next."""
        self._admit(self.waiters.release(city, self.now()))

    def waiting_reason(self, city: str) -> str:
        """Why ``city`` is still waiting, for its task log."""
        return self.waiters.reason(city, self.now())

    def take_wait_line(self) -> bool:
        """Whether a waiting city may write its line now (:class:`WaitLineBudget`)."""
        return self.wait_lines.take(self.now())

    def waiting(self) -> list[Wait]:
        """The cities waiting for their turn now."""
        return self.waiters.waiting()

    @staticmethod
    def _admit(turns: list[asyncio.Future[None]]) -> None:
        for turn in turns:
            if not turn.done():
                turn.set_result(None)

    # ------------------------------------------------------------------------------------------ the client

    async def console(self) -> tuple[str, str]:
        """(region, console domain) of the connection, for the extra links (:meth:`RunClient.console`)."""
        return await self.aws.console()

    def client(self) -> contextlib.AbstractAsyncContextManager[Any]:
        """The poller's aiobotocore client, shared by its sweeps and its triggers' calls."""
        return self.aws.client()

    async def call(self, what: str, request: Callable[..., Awaitable[T]], *args: Any) -> T:
        """``request(client, *args)`` with the poller's client, sent again through an outage with the sweeps'
        back-off for as long as the sweeps themselves would keep trying (the cadence's ``give_up_seconds``)."""
        return await self.aws.call(
            what, request, *args, interval=lambda: self.interval, patience=self.cadence.give_up_seconds
        )

    def _clamp_interval(self, endpoint_url: str) -> None:
        """Against AWS itself, sweep no more often than every ``min_aws_poll_seconds`` of the cadence (with a
        warning)."""
        host = aws_host(endpoint_url)
        if host is None:
            return
        floor = self._min_interval = self.cadence.min_aws_poll_seconds
        if self.interval < floor:
            log.warning(
                "poll interval %.1f s is below %.0f s against %s: sweeping every %.0f s (a shorter interval "
                "spends the account's API rate and shows nothing sooner)",
                self.interval,
                floor,
                host,
                floor,
            )
            self.interval = floor

    # ------------------------------------------------------------------------------------------ the loop

    def _busy(self) -> bool:
        # the shared client stays open while a trigger's own call uses it
        return self.waiters.pending() or bool(self.aws.users)

    def _ensure_running(self) -> None:
        if self._key is not None:
            FleetPoller._registry.setdefault(self._key, self)
        if self._task is None or self._task.done():
            self._task = asyncio.get_running_loop().create_task(self._run())

    async def _run(self) -> None:
        """Sweep until nobody watches or waits. No exception ends the loop but cancellation: a failed sweep (the
        endpoint unreachable, credentials gone, throttled past its retries, a bug) backs off and tries again, and
        only a failure that lasts is handed to the triggers (:meth:`_give_up`)."""
        errors, failing_since = 0, 0.0
        self.sweeps.backoff.factor = 1
        try:
            while self._busy():
                swept = await self._poll_once()
                if swept.error is None:
                    errors = 0
                else:
                    if errors == 0:
                        failing_since = self.now()
                    errors += 1
                    self._failed(swept.error, errors)
                    if (
                        errors >= MAX_CONSECUTIVE_ERRORS
                        and self.now() - failing_since >= self.cadence.give_up_seconds
                    ):
                        self._give_up(swept.error, self.now() - failing_since)
                        errors = 0
                await asyncio.sleep(swept.delay)
        finally:
            with contextlib.suppress(Exception):
                await self.aws.close()
            with contextlib.suppress(Exception):
                await self.board.close()
            if not self._busy() and self._key is not None and FleetPoller._registry.get(self._key) is self:
                del FleetPoller._registry[self._key]

    def _failed(self, exc: Exception, errors: int) -> None:
        throttled = isinstance(exc, ClientError) and error_code(exc) in THROTTLING_CODES
        log.warning(
            "polling %s failed (%d in a row%s): %s: %s; next sweep in %.0f s",
            self.name_contains,
            errors,
            ", throttled past its retries" if throttled else "",
            type(exc).__name__,
            exc,
            self.interval * self.sweeps.backoff.factor,
        )

    def _give_up(self, exc: BaseException, seconds: float) -> None:
        """Every watcher gets an error update and every waiting city's turn raises :class:`JobWatchError`: their
        tasks fail with the reason, and Airflow's retry attaches to the jobs that kept running meanwhile."""
        reason = f"polling failed for {seconds:.0f} s ({type(exc).__name__}: {exc})"
        log.error("polling %s: giving up: %s", self.name_contains, reason)
        self.watchers.fail_all(reason)
        for turn in self.waiters.turns():
            if not turn.done():
                turn.set_exception(JobWatchError(reason))

    async def _poll_once(self) -> Swept:
        """One sweep of the run (:func:`sweep_once`), this poller its I/O and its metrics fed each listing."""
        swept = await sweep_once(self.sweeps, self, self.interval, observe=self._observe)
        if swept.error is None and self.sweeps.tracker is None:
            self._listed.set()
        return swept

    def _observe(self, summaries: Sequence[Mapping[str, Any]], waiting: int) -> None:
        if self.signals is not None:
            self.signals.swept(summaries, waiting)

    # ------------------------------------------------------------------------------------------ the sweep's I/O

    def wall(self) -> float:
        """The board's clock (:meth:`SweepIO.wall`): wall-clock seconds."""
        return time.time()

    async def list_jobs(self, *, account: bool, **filters: Unpack[JobFilters]) -> list[Mapping[str, Any]]:
        async with self.client() as client:
            name_contains = "" if account else self.name_contains
            return [summary async for summary in self.hook.alist_jobs(client, name_contains, **filters)]

    async def describe(self, names: Sequence[str], *, foreign: bool) -> list[Answer]:
        """Describe with the poller's client, a few at a time (a burst of jobs ending together must not open a
        client per job nor stall the loop). Another run's job the credentials may not describe (a policy scoped to
        the fleet's jobs) is :data:`DENIED`, with one warning."""
        limit = asyncio.Semaphore(DESCRIBE_CONCURRENCY)

        async def one(name: str) -> Answer:
            async with limit, self.client() as client:
                try:
                    return await self.hook.adescribe(client, name)
                except ClientError as exc:
                    if not foreign or error_code(exc) not in ACCESS_DENIED_CODES:
                        raise
                    self._warn_denied(exc)
                    return DENIED

        return list(await asyncio.gather(*(one(name) for name in names), return_exceptions=True))

    def _warn_denied(self, exc: ClientError) -> None:
        if not self._denied_warned:
            self._denied_warned = True
            log.warning(
                "%s: may not describe other runs' training jobs (%s): their capacity counts only as their runs "
                "post it on the account's board (fleets with sharing), and a city may meet ResourceLimitExceeded "
                "and retry; to count a trusted fleet's jobs, allow sagemaker:DescribeTrainingJob on its jobs "
                "(sagemaker-fleet iam --describe-fleet NAME; docs/security.md), never on training-job/*, which "
                "reads every team's environment",
                self.name_contains,
                exc,
            )

    async def end_pool(self, end: PoolEnd) -> None:
        """Keep-alive 0 on a running job (it ends without a pool, so not one idle second after the run's last job)
        or on an idle pool no city of its group will take over: either would bill until expiry."""
        name, running = end.job_name, end.running
        try:
            async with self.client() as client:
                await self.hook.aupdate_keep_alive(client, name, 0)
        except ClientError as exc:
            if error_code(exc) not in KEEP_ALIVE_REFUSALS:
                raise
            # a running job that ended meanwhile, or whose keep-alive AWS does not change while it runs: it keeps
            # its pool, which surplus_pools ends once Available; an idle pool that expired or was taken meanwhile:
            # nothing to end
            log.info("%s: %s: %s", name, "keep-alive not updated" if running else "warm pool not ended", exc)
            return
        group = f"group {end.group}" if end.group else "its group"
        if running:
            log.info("%s: keep-alive set to 0 (no city of %s is left to take its pool over)", name, group)
        else:
            log.info("%s: warm pool ended (no city of %s is left to take it over)", name, group)

    async def read_board(self, bucket: str, prefix: str, modified_after: float) -> list[object] | None:
        return await self.board.records(bucket, prefix, modified_after)

    async def post_board(self, bucket: str, key: str, record: Mapping[str, Any]) -> bool:
        return await self.board.put(bucket, key, record)

    def hand_out(self, listed: Listed) -> None:
        """The admitted cities' turns (the hand-off), and the running jobs' summaries to their watchers."""
        if self.sweeps.tracker is not None:
            self._listed.set()
        self._admit(self.waiters.admitted(listed.admitted))
        for name, summary in listed.running.items():
            self.watchers.put(name, summary)

    def deliver(self, name: str, description: Mapping[str, Any] | None) -> None:
        self.watchers.put(name, description or {"error": f"training job {name} does not exist"})

    async def finish(self) -> None:
        """Wait until the sweeps end by themselves, as they do once nothing is watched, nobody waits and no pool end
        is left to hand out (``sagemaker-fleet pilot``: its run is over when its poller has nothing left to do)."""
        if self._task is not None:
            await self._task

    async def close(self) -> None:
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._task


def run_poller(
    hook: SageMakerFleetHook, conn: Mapping[str, Any], name_contains: str, interval: float, fleet: str = ""
) -> FleetPoller:
    """The shared poller of one run (its jobs' names contain ``name_contains``) for one AWS connection in this
    event loop. ``fleet``: the run's fleet, for a poller that dispatches (it holds the run's plan): two fleets'
    runs with the same run key (two daily DAGs) share a name filter but never a plan."""
    key = (json.dumps(dict(conn), sort_keys=True, default=str), name_contains, fleet)
    return FleetPoller.shared(key, lambda: hook, name_contains, interval)
