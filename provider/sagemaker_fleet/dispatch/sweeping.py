"""sweep_once: one sweep of a run, its steps (:class:`~.sweep.RunSweeps`' private ones) in their order, over its
shell's I/O.

The triggerer's run session (``triggers/sweep_io.py``: ``RunSweepIO``; asyncio, aiobotocore, S3) and
``simulate``'s (``simulate/polling.py``: the engine, the coroutine stepped in virtual time as a city's run is)
implement :class:`SweepIO` only: the order of the steps, what a failed call means for the sweep and its back-off are
written here once, so the two cannot drift apart.
"""

from __future__ import annotations

import enum
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Literal, Protocol, TypeAlias, Unpack

if TYPE_CHECKING:
    from sagemaker_fleet.dispatch.state import Wait
    from sagemaker_fleet.dispatch.sweep import Listed, Listing, PoolEnd, RunSweeps
    from sagemaker_fleet.jobs.paging import JobFilters


class Refusal(enum.Enum):
    """A shell's answer for another run's job the credentials may not describe (AccessDenied)."""

    DENIED = "denied"


#: See :class:`Refusal`.
DENIED = Refusal.DENIED
#: A shell's answer to one DescribeTrainingJob: the description (None: no such job), the error its call raised, or
#: :data:`DENIED` (another run's job only).
Answer: TypeAlias = Mapping[str, Any] | None | BaseException | Literal[Refusal.DENIED]
#: The caller's metrics: each listing's summaries, and how many cities still wait after it.
Observe: TypeAlias = Callable[[Sequence[Mapping[str, Any]], int], None]


class SweepIO(Protocol):
    """What a sweep asks of its shell: two clocks, the waiting cities, the calls and the hand-outs. A call that raises
    fails the sweep (it backs off, see :meth:`RunSweeps._swept`); the board's calls never do."""

    def now(self) -> float:
        """The dispatch clock: waits, admissions, looks at other runs' jobs, the board's reads and heartbeat."""
        ...

    def wall(self) -> float:
        """The account's clock, seconds since the epoch: the board records' ``posted`` and S3's LastModified
        (``simulate``: its virtual time, in which its board lives)."""
        ...

    def waiting(self) -> Sequence[Wait]:
        """The cities waiting for their turn now."""
        ...

    async def list_jobs(self, *, account: bool, **filters: Unpack[JobFilters]) -> Sequence[Mapping[str, Any]]:
        """Every summary of one ListTrainingJobs listing, page after page: of the run's jobs (the shell's name
        filter), or with ``account`` of every job of the account."""
        ...

    async def describe(self, names: Sequence[str], *, foreign: bool) -> Sequence[Answer]:
        """One :data:`Answer` per name, in their order (the shell sends a few at a time). ``foreign``: other runs'
        jobs, where the credentials' refusal is :data:`DENIED` (the shell says so in its log)."""
        ...

    async def end_pool(self, end: PoolEnd) -> None:
        """UpdateTrainingJob to keep-alive 0 for ``end.job_name``. Returns when made or refused (KEEP_ALIVE_REFUSALS:
        nothing is left to end); raises when not made for a reason that passes (throttled, unreachable)."""
        ...

    async def read_board(self, bucket: str, prefix: str, modified_after: float) -> Sequence[object] | None:
        """The JSON records under ``prefix`` last modified at or after ``modified_after`` (wall seconds: older ones,
        ended runs', are not fetched); None when the board did not answer (the shell says so in its log)."""
        ...

    async def post_board(self, bucket: str, key: str, record: Mapping[str, Any]) -> bool:
        """Put the run's record; whether the board took it (the shell logs why not)."""
        ...

    def hand_out(self, listed: Listed) -> None:
        """Wake the cities the listing admitted (the hand-off) and give the watched jobs still running their
        summaries."""
        ...

    def deliver(self, name: str, description: Mapping[str, Any] | None) -> None:
        """A watched job's description (None: no such job) to its watchers."""
        ...


@dataclass(frozen=True)
class Swept:
    """How a sweep went: seconds to the next one (back-off included) and the error that failed it (None: none)."""

    delay: float
    error: Exception | None = None


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
