"""AccountView: the account's training capacity held by jobs that are not the run's (pure: the shells do the I/O).

SageMaker's quotas are the account's, not a fleet's: another fleet's run, the same fleet's manual run beside its
scheduled one, or another team's jobs draw on the same "<type> for training job usage" quota, and their idle warm
pools count toward it too. A run that counted only its own jobs admitted cities into capacity others held, and
met ``ResourceLimitExceeded`` (and backed off) instead of waiting for its turn.

So each sweep's listing (:class:`~sagemaker_fleet.dispatch.sweep.RunSweeps`) covers the account's jobs, not only the
run's, and every job that is not the run's comes here:

- **what it holds**: a running job holds its instances (of the spot quota for a spot job when the run's quotas
  have one), a job whose warm pool is Available holds the pool's instances of the on-demand quota. Listing
  summaries carry no instance type or count, so each such job is described once (:meth:`to_describe`, at most
  :data:`DESCRIBES_PER_SWEEP` a sweep) and its shape kept;
- **which pools match**: an Available pool of another run whose matching key equals one of the run's warm-pool
  groups is a warm start for the account: SageMaker puts the group's next job on it. The tracker counts it as an
  idle pool of that group (its instances are held already, so the city taking it needs none) — only as seen in
  this sweep (its listing, or a description since): another run's city may take it any moment, and a city
  admitted on a pool that is gone meets ``ResourceLimitExceeded``; and only once its own run let it go: its run
  says so on the account's board (:mod:`.board`: it has no city left of that key, or it yields its pools), or,
  for a run that posts nothing there, :data:`CLAIM_AFTER_LISTINGS` looks in a row over at least
  :attr:`~.cadence.Cadence.claim_after_seconds` showed it Available. A run on the board that does not give the key away takes the
  pool itself, however late its sweep comes: two quick looks of a run that sweeps every second once took the pool
  of a run whose sweeps were slowed by throttling, and that run's next city, admitted to take it, met
  ``ResourceLimitExceeded``. Until then no city of that key starts cold either;
- **jobs older than the listing**: the sweep lists from the oldest job of the run that can still change; another
  run's job created before that and still holding capacity is described again every :attr:`~.cadence.Cadence.recheck_seconds` —
  every sweep (at most every :attr:`~.cadence.Cadence.handoff_interval`) while the run has cities waiting for room of its
  instance type, so the capacity it frees goes to them at the next sweep, not up to a minute later (until then it
  counts as still holding, but not as a pool to take: a late answer can only delay an admission, never
  over-admit);
- **a refusal**: a create refused for the quota (:meth:`refused`) shows the view missed something — another run's
  city admitted in the same second, not listed yet; a pool taken since the listing. Until the next listing that
  quota counts as full, so the refused city's place does not go to the next city only to be refused as well;
- **the census**: before the first sweep, one listing of every running job and one of every Available pool of the
  account (:meth:`census_filters`), so jobs created before the run's listing floor count too.

Everything is keyed by job name and rebuilt from AWS by a restarted triggerer, like the run's own jobs.
"""

from __future__ import annotations

import datetime as dt
import math
from collections import Counter
from collections.abc import Callable, Container, Iterable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from sagemaker_fleet.dispatch.board import key_digest, quota_name
from sagemaker_fleet.dispatch.cadence import AWS_CADENCE, Cadence
from sagemaker_fleet.fleetspec.model import KEEP_ALIVE_API_MAX, MAX_RUNTIME_LIMIT
from sagemaker_fleet.jobs.keys import WarmPoolKey, warm_pool_key
from sagemaker_fleet.jobs.paging import JobFilters, as_datetime, creation_lookback
from sagemaker_fleet.jobs.statuses import ACTIVE_STATUSES as ACTIVE
from sagemaker_fleet.jobs.statuses import POOL_AVAILABLE, holds_capacity, pool_status

if TYPE_CHECKING:
    from sagemaker_fleet.dispatch.board import ShareBoard
    from sagemaker_fleet.dispatch.book import DispatchBook, QuotaKey

#: DescribeTrainingJob calls one sweep spends on other runs' jobs (the rest wait for the next sweep).
DESCRIBES_PER_SWEEP = 24
#: The census lists running jobs created up to this long before the run's listing floor: the longest a job can
#: run, and the longest keep-alive the API takes as margin — a job it misses would meet the run as a refused create.
CENSUS_LOOKBACK = creation_lookback(MAX_RUNTIME_LIMIT, KEEP_ALIVE_API_MAX)
#: Another run's Available pool is this run's to take only once this many of the run's looks in a row (listings, or
#: descriptions of a job older than the listing) showed it: its own run, whose next city takes it in the sweep that
#: sees it free (the hand-off), goes first. Until then the run starts no job of that key cold either: SageMaker
#: would put it on that pool, and the owner's city would then need a new instance the account may not have.
CLAIM_AFTER_LISTINGS = 2
#: ... and only once the first of those looks is :attr:`~.cadence.Cadence.claim_after_seconds` ago, however often the
#: looking run sweeps.


@dataclass(frozen=True)
class Shape:
    """What a job holds while it runs or keeps a pool: its matching key and whether it is on spot."""

    key: WarmPoolKey
    spot: bool


@dataclass
class ForeignJob:
    """Another run's job as last seen: its status, its warm-pool status, its creation, its shape once described,
    and when it was last seen (the shell's clock)."""

    status: str
    pool: str | None
    created: dt.datetime | None
    seen: float
    shape: Shape | None = None
    available_listings: int = 0  #: listings in a row that showed its pool Available
    available_since: float | None = None  #: the first look of those (the shell's clock)

    def looked(self, now: float, *, again: bool = True) -> None:
        """One more look at it (``again``: one that counts towards :data:`CLAIM_AFTER_LISTINGS`)."""
        if not self.idle:
            self.available_listings, self.available_since = 0, None
            return
        if self.available_since is None:
            self.available_since = now
        if again:
            self.available_listings += 1

    def second_look_due(self, now: float, claim_after: float) -> bool:
        """An Available pool whose looks do not make it claimable yet, though the time since its first look would."""
        since = self.available_since
        return (
            since is not None
            and now - since >= claim_after
            and self.available_listings < CLAIM_AFTER_LISTINGS
        )

    def claimable_at(self, now: float, claim_after: float) -> bool:
        """Shown Available in enough looks over enough time to be another run's to take (the module docstring)."""
        since = self.available_since
        return (
            self.available_listings >= CLAIM_AFTER_LISTINGS
            and since is not None
            and now - since >= claim_after
        )

    @property
    def idle(self) -> bool:
        return self.pool == POOL_AVAILABLE and self.status not in ACTIVE

    @property
    def holds(self) -> bool:
        """Holding instances of the account's quota (:func:`~sagemaker_fleet.jobs.statuses.holds_capacity`)."""
        return holds_capacity(self.status, self.pool)


class AccountView:
    """Other runs' jobs of the account (see the module docstring)."""

    def __init__(self, cadence: Cadence = AWS_CADENCE, board: ShareBoard | None = None) -> None:
        self.cadence = cadence  #: the run's intervals (looks at older jobs, claiming another run's pool)
        self.jobs: dict[str, ForeignJob] = {}
        self.census_done = False
        self.opaque: set[str] = set()  #: jobs the credentials may not describe
        self.listed_at = -math.inf  #: the shell's clock at the latest listing
        self.looked_at = -math.inf  #: the shell's clock at the latest listing or description
        self.full: set[QuotaKey] = set()  #: quotas a create was refused on since the latest listing
        self.board = board  #: the account's board, for a run of a fleet with ``sharing``

    # ------------------------------------------------------------------------------------------ observing

    def census_filters(self, floor: dt.datetime | None) -> list[JobFilters]:
        """The listings of the census (empty once it is done): the account's running jobs (SageMaker filters by
        status after cutting a page, so the creation bound is what keeps this listing short) and its Available
        pools."""
        if self.census_done:
            return []
        after = floor - CENSUS_LOOKBACK if floor is not None else None
        return [
            {"creation_time_after": after, "status_equals": "InProgress"},
            {"warm_pool_status_equals": POOL_AVAILABLE},
        ]

    def observe(
        self,
        summaries: Iterable[Mapping[str, Any]],
        now: float,
        *,
        own: Container[str],
        census: bool = False,
    ) -> None:
        """Take a listing's summaries of jobs that are not the run's (``own``: the run's names); ``census``: the
        census's listings are all in."""
        for summary in summaries:
            name = str(summary.get("TrainingJobName"))
            if name in own:
                continue
            pool = pool_status(summary)
            known = self.jobs.get(name)
            created = as_datetime(summary.get("CreationTime"))
            if known is None:
                known = self.jobs[name] = ForeignJob(
                    str(summary.get("TrainingJobStatus")), pool, created, now
                )
            else:
                known.status, known.pool, known.seen = str(summary.get("TrainingJobStatus")), pool, now
                known.created = created or known.created
            known.looked(now)
            self.looked_at = max(self.looked_at, now)
        if census:
            self.census_done = True
        else:
            self.listed_at = now
            self.full.clear()
        self._forget_settled()

    def described(
        self, name: str, description: Mapping[str, Any] | None, now: float, *, own: Container[str] = ()
    ) -> None:
        """Take a description of another run's job (None: it does not exist any more). A description comes after
        the sweep's listing: a pool it shows Reused went to a job that listing may not show (created since), which
        holds its instances from here until a listing does (``own``: the run's names, counted by its tracker)."""
        known = self.jobs.get(name)
        if known is None:
            return
        if description is None:
            del self.jobs[name]
            return
        pool = description.get("WarmPoolStatus") or {}
        successor = pool.get("ReusedByJob")
        if successor and known.shape is not None and successor not in own and successor not in self.jobs:
            self.jobs[str(successor)] = ForeignJob(
                "InProgress", None, None, now, Shape(known.shape.key, False)
            )
        known.status = str(description.get("TrainingJobStatus"))
        known.pool = pool.get("Status")
        known.created = as_datetime(description.get("CreationTime")) or known.created
        known.looked(now, again=known.seen < self.listed_at)  # one more look if not in this sweep's listing
        self.looked_at = max(self.looked_at, now)
        known.seen = now
        if known.shape is None and description.get("ResourceConfig") and description.get("RoleArn"):
            known.shape = Shape(
                warm_pool_key(description), bool(description.get("EnableManagedSpotTraining"))
            )
        self._forget_settled()

    def denied(self, name: str) -> None:
        """The credentials may not describe ``name`` (DescribeTrainingJob scoped to the fleet's own jobs): its shape
        stays unknown and it is not asked for again; it counts for nothing, as every other job did before the run
        counted the account (its capacity then shows as ResourceLimitExceeded, which the city backs off from)."""
        self.opaque.add(name)

    def refused(self, pool: QuotaKey) -> None:
        """A create of the run was refused for quota ``pool`` (ResourceLimitExceeded): until the next listing the
        quota counts as full (see the module docstring)."""
        self.full.add(pool)

    def _forget_settled(self) -> None:
        for name in [name for name, job in self.jobs.items() if not job.holds]:
            del self.jobs[name]
            self.opaque.discard(name)

    # ------------------------------------------------------------------------------------------ asking

    def to_describe(
        self,
        now: float,
        listed_after: dt.datetime | None,
        *,
        short_of: Container[str] = (),
        every: float | None = None,
    ) -> list[str]:
        """The jobs to describe in this sweep: those whose shape is unknown, then those created before the sweep's
        listing (``listed_after``) not seen for :attr:`~.cadence.Cadence.recheck_seconds` — ``every`` (the sweep's interval) for
        those of an instance type the run is ``short_of`` (cities wait for room of it) — or, for an Available pool
        not yet this run's to take, since its first look :attr:`~.cadence.Cadence.claim_after_seconds` ago (its second look: the
        listing does not show it); at most :data:`DESCRIBES_PER_SWEEP`."""
        unknown = [name for name, job in self.jobs.items() if job.shape is None and name not in self.opaque]
        stale = [
            name
            for name, job in self.jobs.items()
            if job.shape is not None
            and listed_after is not None
            and (job.created is None or job.created <= listed_after)
            and (
                now - job.seen >= self._recheck(job.shape, short_of, every)
                or job.second_look_due(now, self.cadence.claim_after_seconds)
            )
        ]
        return (unknown + stale)[:DESCRIBES_PER_SWEEP]

    def _recheck(self, shape: Shape, short_of: Container[str], every: float | None) -> float:
        """Seconds between looks at an older job of ``shape`` (see :meth:`to_describe`)."""
        recheck = self.cadence.recheck_seconds
        if every is None or shape.key.instance_type not in short_of:
            return recheck
        return min(every, recheck)

    def held(
        self, separate_spot: Container[str], of: Callable[[str], bool] | None = None
    ) -> Counter[QuotaKey]:
        """Instances held per quota by other runs' jobs of known shape (``of``: only the jobs it says yes to).
        ``separate_spot``: the instance types whose spot jobs have a quota of their own in the run's book
        (elsewhere spot jobs count as instances)."""
        held: Counter[QuotaKey] = Counter()
        for name, job in self.jobs.items():
            if job.shape is None or (of is not None and not of(name)):
                continue
            itype, count = job.shape.key.instance_type, job.shape.key.instance_count
            if job.status in ACTIVE and job.shape.spot and itype in separate_spot:
                held[(itype, "spot_instances")] += count
            else:
                held[(itype, "instances")] += count
        return held

    def idle_pools(self, *, claimable: bool = True) -> Counter[WarmPoolKey]:
        """Available pools of other runs by matching key, as seen in this sweep: a job of the run with that key
        starts on one. None of an instance type the quota refused since the listing. ``claimable``: those their run
        let go (the run's to take: see the module docstring); False: the others (their own run may be about to take
        them)."""
        refused = {itype for itype, _ in self.full}
        return Counter(
            job.shape.key
            for name, job in self.jobs.items()
            if job.shape is not None
            and job.idle
            and job.seen >= self.listed_at
            and job.shape.key.instance_type not in refused
            and self._let_go(name, job) == claimable
        )

    def _let_go(self, name: str, job: ForeignJob) -> bool:
        """Whether the run of ``name`` let its pool go: as its record on the account's board says (:mod:`.board`),
        or, for a run with no record there, as :meth:`ForeignJob.claimable_at` says."""
        assert job.shape is not None
        board = self.board
        if board is not None:
            said = board.gives(name, key_digest(job.shape.key))
            if said is not None:
                return said
        return job.claimable_at(self.looked_at, self.cadence.claim_after_seconds)

    def holdings(self, book: DispatchBook) -> tuple[Counter[QuotaKey], Counter[str], Counter[str]]:
        """For ``book``'s run: the instances other runs hold per quota, and per warm-pool group of the run their
        Available pools with its matching key that are the run's to take, and those that are not yet."""
        separate_spot = {itype for itype, kind in book.capacity if kind == "spot_instances"}
        groups = {key: group for group, key in book.keys.items()}
        idle: Counter[str] = Counter()
        reserved: Counter[str] = Counter()
        for counts, claimable in ((idle, True), (reserved, False)):
            for key, pools in self.idle_pools(claimable=claimable).items():
                if key in groups:
                    counts[groups[key]] += pools
        held = self.held(separate_spot) + self._unlisted(book, separate_spot)
        for pool in self.full:  # no room left, whatever the view says
            held[pool] += book.account_limit(pool) or 0
        return held, idle, reserved

    def _unlisted(self, book: DispatchBook, separate_spot: Container[str]) -> Counter[QuotaKey]:
        """Instances other runs' records on the board say they hold beyond what their jobs in the view hold: cities
        they admitted whose jobs no listing shows yet (a record read after its run's admissions is fresher than
        the listing; without this, two runs admitting in the same second both took the free room)."""
        if self.board is None:
            return Counter()
        pools = {quota_name(pool): pool for pool in book.capacity}
        unlisted: Counter[QuotaKey] = Counter()
        for record in self.board.others.values():
            listed = self.held(separate_spot, record.owns)
            for quota, count in record.held.items():
                pool = pools.get(quota)
                if pool is not None and count > listed[pool]:
                    unlisted[pool] += count - listed[pool]
        return unlisted
