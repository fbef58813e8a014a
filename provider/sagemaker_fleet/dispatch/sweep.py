"""One sweep of a run: :func:`sweep_once`, the order of its steps, and :class:`RunSweeps`, what a run's sweeps carry
from one to the next and the steps that feed its :class:`RunTracker` (pure: the shells do the I/O, through the
contract in :mod:`.shell`).

A shell uses its small public surface: :meth:`RunSweeps.watch` and :meth:`RunSweeps.unwatch` a job,
:meth:`RunSweeps.admit` (through :class:`~.waiters.Waiters`), :meth:`RunSweeps.ends_pending`,
:meth:`RunSweeps.restart`, and reads its ``tracker``, ``cadence``, ``watches`` and ``backoff``. Its steps are private
to this package: :func:`sweep_once` alone calls them, in their order, over the I/O
of one of two shells — the triggerer's run session (``triggers/session.py``: asyncio, AWS) and ``simulate``'s
(``simulate/polling.py``: virtual time, the simulator's engine). Each sweep of a run is

0. for a run with a plan, once: :meth:`RunSweeps._census` (the account's running jobs and idle pools, whoever's);
   for a fleet that shares (all but ``sharing: false``), every :attr:`~.cadence.Cadence.board_read_seconds`: the account's board
   (:meth:`RunSweeps._board_read`, :mod:`.board`), and after step 2 the run's own record when it changed
   (:meth:`RunSweeps._board_post`);
1. :meth:`RunSweeps._listing`: where the listing starts (of the account's jobs for a run with a plan: other runs'
   go to :meth:`RunSweeps._foreign`, described once, and count against the run's quotas — :mod:`.account`). ListTrainingJobs (:func:`~sagemaker_fleet.jobs.paging.
   job_listing`) from 5 minutes before the creation of the oldest job that can still change — a watched job, or
   an unsettled one of the tracker — so late in a run it holds the jobs of the last stretch, not every job the run
   made; from the run's ``floor`` while one of them has no known creation or the tracker has seen no whole listing;
2. :meth:`RunSweeps._listed`: the listing in, the decisions out — the cities admitted now (the hand-off happens in
   the sweep that saw a predecessor end), the watched jobs still running (their summaries) and the jobs to
   describe: terminal in the listing, or missing from :data:`MISSES_BEFORE_DESCRIBE` listings in a row;
3. :meth:`RunSweeps._described` for each description;
4. :meth:`RunSweeps._pool_ends`: keep-alive 0 for the running jobs of a group with no city left to start (they end
   without a pool) and for idle pools no city will take over (they end now) — decided from the listing, so also
   when a describe failed (the sweep fails after them); one the endpoint did not take
   (:meth:`RunSweeps._pool_end_failed`) is handed out again by the next sweep, and a shell keeps sweeping while
   one is left (:meth:`RunSweeps.ends_pending`);
5. :meth:`RunSweeps._swept`, then the next sweep after :meth:`RunSweeps._delay`.
State lives in AWS only, so a restarted triggerer rebuilds it with its first, whole listing.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from sagemaker_fleet.dispatch.cadence import AWS_CADENCE
from sagemaker_fleet.dispatch.shell import DENIED, Backoff, Listed, PoolEnd, Swept
from sagemaker_fleet.dispatch.state import CREATION_MARGIN
from sagemaker_fleet.jobs.paging import JobFilters, as_datetime
from sagemaker_fleet.jobs.statuses import TERMINAL_STATUSES

if TYPE_CHECKING:
    from sagemaker_fleet.dispatch.account import AccountView
    from sagemaker_fleet.dispatch.board import ShareBoard
    from sagemaker_fleet.dispatch.cadence import Cadence
    from sagemaker_fleet.dispatch.shell import Observe, SweepIO
    from sagemaker_fleet.dispatch.state import Wait
    from sagemaker_fleet.dispatch.tracker import RunTracker

#: Consecutive listings a watched job may be missing from before it is described directly.
MISSES_BEFORE_DESCRIBE = 2


@dataclass
class WatchedJob:
    """A job a shell waits on: a lower bound of its creation (the caller's, then SageMaker's own once listed;
    None: unknown) and how many listings in a row have missed it."""

    created: dt.datetime | None = None
    misses: int = 0

    def learn(self, job: Mapping[str, Any]) -> None:
        created = as_datetime(job.get("CreationTime"))
        if created is not None:
            self.created = created


@dataclass(frozen=True)
class Listing:
    """The next listing: ``after`` its CreationTimeAfter (None: no bound); ``whole``: it covers the run's past;
    ``account``: of every job of the account, not only the run's (no name filter)."""

    after: dt.datetime | None
    whole: bool
    account: bool = False


class _Own:
    """The run's job names: the tracker's and the watched ones."""

    def __init__(self, sweeps: RunSweeps) -> None:
        self.sweeps = sweeps

    def __contains__(self, name: object) -> bool:
        tracker = self.sweeps.tracker
        return name in self.sweeps.watches or (tracker is not None and name in tracker.names)


class RunSweeps:
    """What a run's sweeps carry from one to the next — the watched jobs, the back-off, the tracker — and the rule
    of one sweep (see the module docstring).

    :param tracker: the run's tracker, built with it by :func:`~.build.build_run_dispatch` (None: the sweeps only
        watch jobs).
    :param floor: CreationTimeAfter of a listing of the run's whole past (the triggerer's: the day before a dated
        run key, :func:`~sagemaker_fleet.fleetspec.names.run_key_floor`).
    :param cadence: the run's intervals (:class:`~.cadence.Cadence`) until a tracker brings the run's own.
    """

    def __init__(
        self,
        tracker: RunTracker | None = None,
        *,
        floor: dt.datetime | None = None,
        cadence: Cadence = AWS_CADENCE,
    ) -> None:
        self.floor = floor
        self.cadence = cadence
        self.watches: dict[str, WatchedJob] = {}
        self.backoff = Backoff()
        self._listed_now = False  # this sweep's listing came through
        #: the run's tracker (None: the sweeps only watch jobs)
        self.tracker: RunTracker | None = None
        #: other runs' jobs of the account, for a run with a plan (its tracker's)
        self.account: AccountView | None = None
        #: the account's board, for a run of a fleet that shares (all but ``sharing: false``; :mod:`.board`)
        self.board: ShareBoard | None = None
        if tracker is not None:
            self._attach(tracker)

    def _attach(self, tracker: RunTracker) -> None:
        """Feed ``tracker`` (built with its account view and board by :func:`~.build.build_run_dispatch`): with an
        account view the sweeps list the account's jobs, with a board they read and post it; the run's cadence is
        the tracker's."""
        self.tracker = tracker
        self.cadence = tracker.cadence
        self.account = tracker.account
        self.board = tracker.shares.board if tracker.shares is not None else None

    # ------------------------------------------------------------------------------------------ watching

    def restart(self) -> None:
        """A shell sweeps again after its sweeps stopped (nothing was left to do): the first comes at the interval,
        whatever the back-off was when they stopped."""
        self.backoff.factor = 1

    def watch(self, name: str, created_after: dt.datetime | None = None) -> None:
        """Watch ``name``; ``created_after``: a time before its creation (None: the listing covers its past)."""
        watch = self.watches.setdefault(name, WatchedJob())
        if created_after is not None and (watch.created is None or created_after < watch.created):
            watch.created = created_after

    def unwatch(self, name: str) -> None:
        self.watches.pop(name, None)

    def _window_start(self) -> dt.datetime | None:
        """The oldest job that can still change, less the margin; None lists the name's whole past (a job without
        a known creation, or a tracker that has not seen the run)."""
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

    # ------------------------------------------------------------------------------------------ one sweep

    def _listing(self) -> Listing:
        window = self._window_start()
        after = window if window is not None else self.floor
        return Listing(after, whole=window is None, account=self.account is not None)

    def _census(self) -> list[JobFilters]:
        """The listings (filters, no name) to make before this sweep's: the account's running jobs and idle pools,
        once (:meth:`AccountView.census_filters`); :meth:`_censused` takes their summaries."""
        return self.account.census_filters(self.floor) if self.account is not None else []

    def _censused(self, summaries: Sequence[Mapping[str, Any]], now: float) -> None:
        if self.account is not None:
            self.account.observe(summaries, now, own=_Own(self), census=True)

    def _foreign(
        self,
        listing: Listing,
        summaries: Sequence[Mapping[str, Any]],
        now: float,
        every: float | None = None,
    ) -> list[str]:
        """Take the listing's jobs that are not the run's (before :meth:`_listed`); the ones to describe now (their
        shape is unknown, or they are older than the listing: those of an instance type the run's cities wait for
        room of every ``every`` seconds, the shell's sweep interval, at most the cadence's ``handoff_interval``),
        each then given to :meth:`_foreign_described`."""
        if self.account is None:
            return []
        self.account.observe(summaries, now, own=_Own(self))
        short_of = self.tracker.short_of if self.tracker is not None else frozenset()
        handoff = self.cadence.handoff_interval
        every = handoff if every is None else min(every, handoff)
        return self.account.to_describe(now, listing.after, short_of=short_of, every=every)

    def _foreign_described(self, name: str, description: Mapping[str, Any] | None, now: float) -> None:
        if self.account is not None:
            self.account.described(name, description, now, own=_Own(self))

    def _foreign_denied(self, name: str) -> None:
        """The credentials may not describe another run's job ``name`` (:meth:`AccountView.denied`)."""
        if self.account is not None:
            self.account.denied(name)

    def _listed(
        self, listing: Listing, summaries: Sequence[Mapping[str, Any]], now: float, waiting: Sequence[Wait]
    ) -> Listed:
        """Take ``listing``'s summaries; ``now``: the shell's clock (the one ``waiting``'s ``since`` uses)."""
        self._listed_now = True
        admitted: list[str] = []
        if self.tracker is not None:
            self.tracker.observe(summaries, whole=listing.whole)
            admitted = self.admit(waiting, now)
        seen = {str(summary["TrainingJobName"]): summary for summary in summaries}
        running: dict[str, Mapping[str, Any]] = {}
        describe: list[str] = []
        for name, watch in self.watches.items():
            summary = seen.get(name)
            if summary is None:
                watch.misses += 1
                if watch.misses >= MISSES_BEFORE_DESCRIBE:
                    describe.append(name)
                continue
            watch.misses = 0
            watch.learn(summary)
            if summary.get("TrainingJobStatus") in TERMINAL_STATUSES:
                describe.append(name)
            else:
                running[name] = summary
        return Listed(tuple(admitted), running, tuple(describe))

    def _described(self, name: str, description: Mapping[str, Any] | None) -> bool:
        """Take the description of ``name`` (None: no such job); whether it is still watched (its watchers then get
        the description, or an error). A job the listing missed is in the next one."""
        watch = self.watches.get(name)
        if watch is None:
            return False
        if description is not None:
            watch.misses = 0
            watch.learn(description)
            if self.tracker is not None:
                self.tracker.observe([description])
        return True

    def _pool_ends(self) -> Iterator[PoolEnd]:
        """The keep-alive changes of this sweep, each recorded by the tracker as it is handed out (a sweep that stops
        half-way leaves the rest to the next sweep); the idle pools are decided after the running jobs' changes."""
        tracker = self.tracker
        if tracker is None:
            return
        for name in tracker.tail_jobs():
            tracker.release_tail(name)
            yield PoolEnd(name, running=True, group=tracker.group_of_job(name))
        for name in tracker.surplus_pools():
            tracker.release_pool(name)
            yield PoolEnd(name, running=False, group=tracker.group_of_job(name))

    def ends_pending(self) -> bool:
        """Whether a pool end is still to be handed out: a shell keeps sweeping for it after its last watch ended
        (the run's last jobs end while sweeps are throttled, say), or that pool would idle until it expires."""
        tracker = self.tracker
        return tracker is not None and bool(tracker.tail_jobs() or tracker.surplus_pools())

    def _pool_end_failed(self, end: PoolEnd) -> None:
        """``end``'s UpdateTrainingJob failed for a reason that passes (throttled past its retries, the endpoint
        unreachable): the next sweep hands it out again. A refusal (ValidationException: the job ended, or its
        pool was taken or expired meanwhile) is not a failure: nothing is left to end. Nor is a running job's
        refusal by an AWS that does not change keep-alive while a job runs: the job keeps its pool, and
        :meth:`_pool_ends` ends it with the idle ones once it is Available."""
        if self.tracker is not None:
            release = self.tracker.release_tail if end.running else self.tracker.release_pool
            release(end.job_name, made=False)

    # ------------------------------------------------------------------------------------------ the board

    def _board_read(self, now: float, every: float | None = None) -> tuple[str, str] | None:
        """(bucket, prefix) of the account's board when its records are to be read in this sweep (before its
        listing: every ``every`` seconds, the shell's sweep interval, at most :attr:`~.cadence.Cadence.board_read_seconds`),
        else None; :func:`sweep_once` gives them to :meth:`_board_records`. A failed read is not the sweep's
        failure: the run goes on with the records it had, which go stale (:attr:`~.cadence.Cadence.stale_seconds`)."""
        board = self.board
        if board is None or not board.read_due(now, every):
            return None
        board.read_at = now  # a failed read is tried again at the next interval, not every sweep
        return board.bucket, board.prefix

    def _board_records(self, records: Sequence[object], now: float, wall: float) -> None:
        if self.board is not None:
            self.board.read(records, now, wall)

    def _board_post(self, now: float, wall: float) -> tuple[str, str, dict[str, Any]] | None:
        """(bucket, key, record) to put after this sweep's admissions, or None (unchanged, within the heartbeat);
        :func:`sweep_once` calls :meth:`_board_posted` once S3 took it."""
        board, tracker = self.board, self.tracker
        if board is None or tracker is None or not tracker.listed_whole:
            return None
        record = board.to_post(now, wall)
        return None if record is None else (board.bucket, board.object_key, record)

    def _board_posted(self, record: Mapping[str, Any], now: float) -> None:
        if self.board is not None:
            self.board.posted(record, now)

    def _swept(self, ok: bool) -> None:
        """The sweep ended: back off after its listing failed, come back towards the interval after it was listed.
        A describe or a pool end refused for its rate after a listing that came through is sent again by the next
        sweep, at the interval: backing off for it as well left the sweeps at 8 × the interval under steady
        throttling, longer than a pool's keep-alive, so idle pools ended only when they expired."""
        if ok or self._listed_now:
            self.backoff.succeeded()
        else:
            self.backoff.failed()
        self._listed_now = False

    def _delay(self, interval: float, waiting: bool) -> float:
        """Seconds to the next sweep: ``interval`` (at most the cadence's ``handoff_interval`` while cities wait, so a
        successor starts soon after its predecessor ends) times the back-off."""
        handoff = self.cadence.handoff_interval
        return (min(interval, handoff) if waiting else interval) * self.backoff.factor

    # ------------------------------------------------------------------------------------------ between sweeps

    def admit(self, waiting: Sequence[Wait], now: float) -> list[str]:
        """The waiting cities that may create their job now (:meth:`RunTracker.admit`): none before the tracker has
        seen a whole listing of the run."""
        tracker = self.tracker
        if tracker is None or not tracker.listed_whole or (not waiting and tracker.shares is None):
            return []
        # with shares also when no city waits: the pass writes the run's record (held, keys given away)
        return tracker.admit(waiting, now)


async def sweep_once(
    run: RunSweeps, io: SweepIO, interval: float, *, observe: Observe | None = None
) -> Swept:
    """One sweep of ``run`` (the steps' order: :mod:`.sweep`); ``interval``: the shell's sweep interval. An error of
    any call fails the sweep, backs it off and is returned, not raised (cancellation is). ``observe``: the caller's
    metrics (``simulate`` has none: its figures come from the engine's counters)."""
    try:
        await _steps(run, io, interval, observe)
    except Exception as exc:  # noqa: BLE001 - the shell decides whether a failed sweep ends anything
        run._swept(ok=False)
        return Swept(run._delay(interval, bool(io.waiting())), exc)
    run._swept(ok=True)
    return Swept(run._delay(interval, bool(io.waiting())))


async def _steps(run: RunSweeps, io: SweepIO, interval: float, observe: Observe | None) -> None:
    for filters in run._census():
        run._censused(await io.list_jobs(account=True, **filters), io.now())
    if (where := run._board_read(io.now(), interval)) is not None:
        records = await io.read_board(*where, io.wall() - run.cadence.stale_seconds)
        if records is not None:  # a board that did not answer is not the sweep's failure
            run._board_records(records, io.now(), io.wall())
    listing = run._listing()
    summaries = await io.list_jobs(account=listing.account, creation_time_after=listing.after)
    await _describe_foreign(run, io, listing, summaries, interval)
    listed = run._listed(listing, summaries, io.now(), io.waiting())
    io.hand_out(listed)
    if (post := run._board_post(io.now(), io.wall())) is not None:
        bucket, key, record = post
        if await io.post_board(bucket, key, record):
            run._board_posted(record, io.now())
    if observe is not None:
        observe(summaries, len(io.waiting()))
    failed = await _describe_watched(run, io, listed.describe)
    for end in run._pool_ends():  # decided from the listing: not skipped for a describe that failed
        try:
            await io.end_pool(end)
        except BaseException:
            run._pool_end_failed(end)
            raise
    if failed is not None:
        raise failed


async def _describe_foreign(
    run: RunSweeps, io: SweepIO, listing: Listing, summaries: Sequence[Mapping[str, Any]], interval: float
) -> None:
    """Other runs' jobs to describe (:meth:`RunSweeps._foreign`): each answer taken, a refused one left uncounted;
    then the first other error fails the sweep, before its listing decides anything."""
    names = run._foreign(listing, summaries, io.now(), interval)
    if not names:
        return
    failed: BaseException | None = None
    for name, answer in zip(names, await io.describe(names, foreign=True), strict=True):
        if answer is DENIED:
            run._foreign_denied(name)
        elif isinstance(answer, BaseException):
            failed = failed or answer
        else:
            run._foreign_described(name, answer, io.now())
    if failed is not None:
        raise failed


async def _describe_watched(run: RunSweeps, io: SweepIO, names: Sequence[str]) -> BaseException | None:
    """Describe the watched jobs the listing named and deliver each description; the first error, which fails the
    sweep once its pool ends are handed out (a throttled describe is asked again by the next sweep)."""
    if not names:
        return None
    failed: BaseException | None = None
    for name, answer in zip(names, await io.describe(names, foreign=False), strict=True):
        if isinstance(answer, BaseException) or answer is DENIED:
            failed = failed or (answer if isinstance(answer, BaseException) else PermissionError(name))
        elif run._described(name, answer):
            io.deliver(name, answer)
    return failed
