"""What a run's sweep asks of its shell and hands back: the contract between the pure core and the two shells that
drive :func:`~sagemaker_fleet.dispatch.sweep.sweep_once` — the triggerer's run session (``triggers/sweep_io.py``:
``RunSweepIO``; asyncio, aiobotocore, S3) and ``simulate``'s poller (``simulate/polling.py``: the engine, in virtual
time). A shell implements :class:`SweepIO`; a sweep hands it :class:`Listed` and :class:`PoolEnd` and returns
:class:`Swept`; :class:`Backoff` is the back-off the sweeps and a shell's own requests share.
"""

from __future__ import annotations

import enum
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Literal, Protocol, TypeAlias, Unpack

if TYPE_CHECKING:
    from sagemaker_fleet.dispatch.state import Wait
    from sagemaker_fleet.jobs.paging import JobFilters

#: A failing sweep (throttled, the endpoint unreachable, any error) waits up to this many intervals before the next;
#: a request sent again through an outage backs off the same way.
MAX_BACKOFF_FACTOR = 8


@dataclass
class Backoff:
    """A factor on an interval: doubled after a failure, up to :data:`MAX_BACKOFF_FACTOR`; halved after a success."""

    factor: int = 1

    def failed(self) -> None:
        self.factor = min(MAX_BACKOFF_FACTOR, self.factor * 2)

    def succeeded(self) -> None:
        self.factor = max(1, self.factor // 2)


@dataclass(frozen=True)
class Listed:
    """What one listing decided: the cities admitted now (in the tracker's order), the watched jobs still running
    with their summaries (in watch order), and the jobs to describe."""

    admitted: tuple[str, ...] = ()
    running: Mapping[str, Mapping[str, Any]] = field(default_factory=dict)
    describe: tuple[str, ...] = ()


@dataclass(frozen=True)
class PoolEnd:
    """Keep-alive 0 for ``job_name``: ``running``, a job of a group with no city left to start (it ends without a
    pool); else an idle pool no city of its group will take over (it ends now)."""

    job_name: str
    running: bool
    group: str = ""  #: the job's group in the plan, for the line that says it


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
    fails the sweep (it backs off, see :meth:`~.sweep.RunSweeps._swept`); the board's calls never do."""

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
