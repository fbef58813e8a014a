"""RunSession: one fleet run in this triggerer — its sweeps, its waiting cities and watched jobs, and the loop that
sweeps for them (:func:`~sagemaker_fleet.dispatch.sweep.sweep_once` over
:class:`~sagemaker_fleet.triggers.sweep_io.RunSweepIO`), shared by every trigger of the run in one event loop.

Every deferred training task of a run registers here instead of polling on its own. Once per interval the session
lists the run's jobs with ListTrainingJobs (NameContains, paginated, ≤ 100 per call) and, as the sweep decides,
wakes the cities whose turn has come (in the sweep that saw their predecessor end: no task process, no scheduler
loop in between), hands each watcher its job's summary or, once it has ended, its description, and ends the warm
pools no city of their group will take over.

A session that dispatches is opened on purpose, complete (:meth:`RunSession.open`): the first city trigger of a
run in this triggerer builds its :class:`SessionSetup` — the run's dispatch from its plan with the listing floor and
the cadence, and its metrics — before any city registers; the others join it. A session that only watches jobs
(:class:`~sagemaker_fleet.triggers.fleet.FleetJobTrigger`) is shared as it is (:meth:`RunSession.shared`). Its
parts: :class:`~sagemaker_fleet.triggers.connection.RunConnection` (the clients and the interval), the waiting
cities (:class:`~sagemaker_fleet.dispatch.waiters.Waiters`) and their log lines (:class:`WaitLineBudget`), and the
watchers' queues (:class:`~sagemaker_fleet.triggers.watch.JobWatchers`).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, ClassVar, TypeVar

from sagemaker_fleet.dispatch.sweep import RunSweeps, sweep_once
from sagemaker_fleet.dispatch.waiters import Waiters
from sagemaker_fleet.triggers.budget import WaitLineBudget
from sagemaker_fleet.triggers.outage import Outage
from sagemaker_fleet.triggers.sweep_io import RunSweepIO, admit
from sagemaker_fleet.triggers.watch import JobWatchError, JobWatchers, Update

if TYPE_CHECKING:
    import datetime as dt
    from collections.abc import Sequence

    from sagemaker_fleet.dispatch.cadence import Cadence
    from sagemaker_fleet.dispatch.shell import Swept
    from sagemaker_fleet.dispatch.state import Wait
    from sagemaker_fleet.dispatch.tracker import RunTracker
    from sagemaker_fleet.hooks.fleet import SageMakerFleetHook
    from sagemaker_fleet.observability.stats import RunSignals
    from sagemaker_fleet.triggers.connection import RunConnection

__all__ = ["RunSession", "SessionSetup"]

log = logging.getLogger(__name__)

SessionKey = tuple[Any, ...]
T = TypeVar("T")


@dataclass(frozen=True)
class SessionSetup:
    """What a run's session is opened with: the run's dispatch (:func:`~sagemaker_fleet.dispatch.dispatch_from_plan`,
    its sweeps with their listing floor and cadence) and the run's metrics (None: none)."""

    sweeps: RunSweeps
    signals: RunSignals | None = None


class RunSession:
    """One run's session in this triggerer (see the module docstring)."""

    _registry: ClassVar[dict[tuple[int, SessionKey], RunSession]] = {}
    _opening: ClassVar[dict[tuple[int, SessionKey], tuple[asyncio.AbstractEventLoop, asyncio.Lock]]] = {}

    def __init__(self, connection: RunConnection, setup: SessionSetup) -> None:
        self.connection = connection
        self.sweeps = setup.sweeps
        #: The run's metrics: every sweep's listing and waiting cities go there.
        self.signals = setup.signals
        self.waiters: Waiters[asyncio.Future[None]] = Waiters(self.sweeps)
        self.watchers = JobWatchers()
        self.wait_lines = WaitLineBudget()
        self.io = RunSweepIO(connection, self.waiters, self.watchers, self._listed_once)
        self._listed = asyncio.Event()
        self._task: asyncio.Task[None] | None = None
        self._key: tuple[int, SessionKey] | None = None
        self._loop: asyncio.AbstractEventLoop | None = None

    # ------------------------------------------------------------------------------------------ sharing

    @classmethod
    def shared(cls, key: SessionKey, connect: Callable[[], RunConnection]) -> RunSession:
        """The session with ``key`` in this event loop, or a new one that only watches jobs (no dispatch)."""
        session = cls._live(key)
        if session is None:
            session = cls._register(key, cls(connect(), SessionSetup(RunSweeps())))
        return session

    @classmethod
    async def open(
        cls,
        key: SessionKey,
        connect: Callable[[], RunConnection],
        setup: Callable[[RunConnection], Awaitable[SessionSetup]],
    ) -> RunSession:
        """The session with ``key`` in this event loop; the first caller opens it: ``setup(connection)`` builds the
        run's dispatch and metrics before any city registers, and the others wait for it and join."""
        session = cls._live(key)
        if session is not None:
            return session
        loop = asyncio.get_running_loop()
        loop_key = (id(loop), key)
        opening = cls._opening.get(loop_key)
        if opening is None or opening[0] is not loop:  # a closed loop's id can be reused by a new one
            opening = cls._opening[loop_key] = (loop, asyncio.Lock())
        try:
            async with opening[1]:
                session = cls._live(key)
                if session is None:
                    connection = connect()
                    session = cls._register(key, cls(connection, await setup(connection)))
        finally:
            if cls._opening.get(loop_key) is opening and not opening[1].locked():
                del cls._opening[loop_key]
        return session

    @classmethod
    def _live(cls, key: SessionKey) -> RunSession | None:
        loop = asyncio.get_running_loop()
        session = cls._registry.get((id(loop), key))
        # a closed loop's id can be reused by a new one
        return session if session is not None and session._loop is loop else None

    @classmethod
    def _register(cls, key: SessionKey, session: RunSession) -> RunSession:
        loop = asyncio.get_running_loop()
        session._key, session._loop = (id(loop), key), loop
        cls._registry[session._key] = session
        return session

    # ------------------------------------------------------------------------------------------ the run

    @property
    def hook(self) -> SageMakerFleetHook:
        return self.connection.hook

    @property
    def interval(self) -> float:
        """Seconds between sweeps (:meth:`RunConnection.ask_interval`)."""
        return self.connection.interval

    @property
    def tracker(self) -> RunTracker | None:
        """The run's tracker (None: the session only watches jobs)."""
        return self.sweeps.tracker

    @property
    def cadence(self) -> Cadence:
        """The run's intervals: the give-up, the AWS floor, the watch margin."""
        return self.sweeps.cadence

    @property
    def watches(self) -> Mapping[str, Any]:
        """The jobs watched now, by name."""
        return self.sweeps.watches

    def now(self) -> float:
        """The session's clock (the event loop's): admissions, waits and log budgets are counted on it."""
        return self.io.now()

    async def first_listing(self) -> RunTracker:
        """The run's tracker, once the sweeps (started now) have listed the run."""
        tracker = self.sweeps.tracker
        assert tracker is not None, "a session that only watches jobs has no tracker"
        self._ensure_running()
        await self._listed.wait()
        return tracker

    def _listed_once(self) -> None:
        if self.sweeps.tracker is not None:
            self._listed.set()

    # ------------------------------------------------------------------------------------------ the triggers

    def watch(self, job_name: str, created_after: dt.datetime | None = None) -> asyncio.Queue[Update]:
        """Register a job; each sweep puts on the returned queue its ListTrainingJobs summary while it runs, its
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

    async def wait_turn(self, wait: Wait) -> None:
        """Return once ``wait.city`` may create its job (:meth:`RunTracker.admit`); it counts as running from
        then on, until the listing shows its job or :meth:`release` gives its place back."""
        turn: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self._ensure_running()
        admit(self.waiters.add(wait, turn, self.now()))
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
        admit(self.waiters.release(city, self.now()))

    def waiting_reason(self, city: str) -> str:
        """Why ``city`` is still waiting, for its task log."""
        return self.waiters.reason(city, self.now())

    def take_wait_line(self) -> bool:
        """Whether a waiting city may write its line now (:class:`WaitLineBudget`)."""
        return self.wait_lines.take(self.now())

    async def call(self, what: str, request: Callable[..., Awaitable[T]], *args: Any) -> T:
        """``request(client, *args)`` with the run's client, sent again through an outage for as long as the sweeps
        themselves would keep trying (the cadence's ``give_up_seconds``)."""
        return await self.connection.call(what, request, *args, patience=self.cadence.give_up_seconds)

    async def endpoint_speed(self) -> float:
        """The endpoint's clock speed (1 against AWS; a simulator's own), read once per run."""
        return await self.connection.endpoint_speed(self.cadence.give_up_seconds)

    async def console(self) -> tuple[str, str]:
        """(region, console domain) of the connection, for the extra links."""
        return await self.connection.console()

    # ------------------------------------------------------------------------------------------ the loop

    def _busy(self) -> bool:
        # the shared client stays open while a trigger's own call uses it
        return self.waiters.pending() or bool(self.connection.aws.users)

    def _ensure_running(self) -> None:
        if self._key is not None:
            RunSession._registry.setdefault(self._key, self)
        if self._task is None or self._task.done():
            self._task = asyncio.get_running_loop().create_task(self._run())

    async def _run(self) -> None:
        """Sweep until nobody watches or waits. No exception ends the loop but cancellation: a failed sweep (the
        endpoint unreachable, credentials gone, throttled past its retries, a bug) backs off and tries again, and
        only a failure that lasts (:class:`Outage`) is handed to the triggers (:meth:`_give_up`)."""
        outage = Outage(self.connection.name_contains)
        self.sweeps.restart()
        try:
            while self._busy():
                swept = await self._poll_once()
                if swept.error is None:
                    outage.succeeded()
                else:
                    next_sweep = self.interval * self.sweeps.backoff.factor
                    lasted = outage.failed(swept.error, self.now(), self.cadence.give_up_seconds, next_sweep)
                    if lasted is not None:
                        self._give_up(swept.error, lasted)
                await asyncio.sleep(swept.delay)
        finally:
            with contextlib.suppress(Exception):
                await self.connection.aws.close()
            with contextlib.suppress(Exception):
                await self.connection.board.close()
            if not self._busy() and self._key is not None and RunSession._registry.get(self._key) is self:
                del RunSession._registry[self._key]

    def _give_up(self, exc: BaseException, seconds: float) -> None:
        """Every watcher gets an error update and every waiting city's turn raises :class:`JobWatchError`: their
        tasks fail with the reason, and Airflow's retry attaches to the jobs that kept running meanwhile."""
        reason = f"polling failed for {seconds:.0f} s ({type(exc).__name__}: {exc})"
        log.error("polling %s: giving up: %s", self.connection.name_contains, reason)
        self.watchers.fail_all(reason)
        for turn in self.waiters.turns():
            if not turn.done():
                turn.set_exception(JobWatchError(reason))

    async def _poll_once(self) -> Swept:
        """One sweep of the run (:func:`sweep_once`) over the session's I/O, its metrics fed each listing."""
        return await sweep_once(self.sweeps, self.io, self.interval, observe=self._observe)

    def _observe(self, summaries: Sequence[Mapping[str, Any]], waiting: int) -> None:
        if self.signals is not None:
            self.signals.swept(summaries, waiting)

    async def finish(self) -> None:
        """Wait until the sweeps end by themselves, as they do once nothing is watched, nobody waits and no pool end
        is left to hand out (``sagemaker-fleet pilot``: its run is over when its session has nothing left to do)."""
        if self._task is not None:
            await self._task

    async def close(self) -> None:
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._task
