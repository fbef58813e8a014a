"""What a run's tracker has seen, as values (pure): each job as last listed or described, each city's latest
submission, the admissions not listed yet and the pools ended on purpose; what a waiting city asks with; and the
read of the run the dispatch rules take (:class:`RunView`)."""

from __future__ import annotations

import datetime as dt
from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from sagemaker_fleet.jobs.paging import CREATION_MARGIN as CREATION_MARGIN  # imported from here too
from sagemaker_fleet.jobs.statuses import settled

if TYPE_CHECKING:
    from sagemaker_fleet.dispatch.account import AccountView
    from sagemaker_fleet.dispatch.book import DispatchBook
    from sagemaker_fleet.dispatch.cadence import Cadence
    from sagemaker_fleet.dispatch.fair_share import FairShare
    from sagemaker_fleet.dispatch.rules import RunOptions

Counts = Counter[str]


@dataclass
class JobState:
    """One job of the run as last listed or described."""

    city: str
    attempt: int
    status: str
    pool: str | None
    created: dt.datetime | None
    retained: float = 0.0  #: ResourceRetainedBillableTimeInSeconds: > 0 on a Terminated pool that idled
    reused_by: str | None = None  #: ReusedByJob: the job that took its pool (maybe another run's)

    @property
    def settled(self) -> bool:
        """Terminal and holding no pool (:func:`~sagemaker_fleet.jobs.statuses.settled`): later listings may leave it
        out without losing anything."""
        return settled(self.status, self.pool)


@dataclass(frozen=True)
class Wait:
    """A city asking to start its ``attempt``-th submission. ``first``: it has no job in this run yet, so it waits
    for its turn in the group (a spot re-submission or a retry already had its turn and waits for room only);
    ``since``: when it began waiting (seconds, the caller's clock)."""

    city: str
    attempt: int = 1
    first: bool = True
    since: float = 0.0


@dataclass
class Released:
    """The run's pools ended on purpose (:mod:`.pool_ends`): idle ones (``pools``) and running jobs given
    keep-alive 0 (``tails``), by job name. A change the endpoint did not take is taken out again."""

    pools: set[str] = field(default_factory=set)
    tails: set[str] = field(default_factory=set)


@dataclass
class RunState:
    """What the run's tracker has seen: written by :meth:`RunTracker.observe` (the listings), :meth:`RunTracker.admit`
    and :meth:`RunTracker.release` (the admissions) and the pool ends only; every rule reads it."""

    jobs: dict[str, JobState] = field(default_factory=dict)  #: job name → as last listed or described
    latest: dict[str, JobState] = field(default_factory=dict)  #: city → its highest attempt seen
    pending: dict[str, int] = field(default_factory=dict)  #: city → attempt admitted, its job not listed yet
    released: Released = field(default_factory=Released)
    listed_whole: bool = False  #: a listing covered the run's past
    #: instance types the latest admission pass left cities waiting for room on (their quotas were full)
    short_of: frozenset[str] = frozenset()

    def started(self, city: str) -> bool:
        """Listed, or admitted and about to create its job."""
        return city in self.latest or city in self.pending

    def to_come(self, city: str) -> bool:
        """Still to come: not listed yet, or admitted and not yet seen creating its job."""
        return city in self.pending or city not in self.latest


@dataclass(frozen=True)
class RunView:
    """The run as the dispatch rules read it: its book and job names, what its tracker has seen (``state``), the
    other runs of the account (``account``, ``shares``: None for a run without a plan, or a fleet that does not
    share) and how it runs (``options``: :class:`~.rules.RunOptions`, and the ``cadence``)."""

    book: DispatchBook
    names: Mapping[str, tuple[str, int]]
    state: RunState
    cadence: Cadence
    options: RunOptions
    account: AccountView | None = None
    shares: FairShare | None = None

    def yields(self, group: str) -> bool:
        """Whether ``group`` gives its pools up to a run ranked before this one (:mod:`.fair_share`)."""
        return self.shares is not None and group in self.shares.yielding

    def kept(self) -> Counts:
        """Per group: pools other runs' cities of its key wait for (:meth:`FairShare.kept`)."""
        return self.shares.kept() if self.shares is not None else Counter()
