"""RunTracker: what a fleet run's jobs are doing, from ListTrainingJobs summaries, and who may start now (pure).

Fed every sweep's summaries (and any DescribeTrainingJob response) of the run, it keeps each city's latest
submission and each job's warm-pool status (:class:`~.state.RunState`); its rules are functions of that state
(:mod:`.holdings`, :mod:`.handoff`, :mod:`.admission`, :mod:`.pool_ends`). :meth:`RunTracker.admit` starts a
waiting city when
- its turn has come: fewer than its group's width of the group's jobs are running and at least
  ``rank − width + 1`` of the group's cities have ended (a city that already had its turn — a spot re-submission,
  a retry — skips this); a city waiting :attr:`~.cadence.Cadence.stall_seconds` while nothing of its group runs is
  let through, so a predecessor whose task never starts (marked failed by hand, say) cannot hold the group forever;
- and its instance quota has room, counting what SageMaker counts: running jobs and idle warm pools, the account's
  (other runs' too: :attr:`RunTracker.account`). A city taking an Available pool of its key needs no new instances;
- and, when it would start cold (no Available pool of its group to take), its warm-pool group has not used up the
  plan's cold starts (``DispatchBook.cold_starts``) — or no pool of the group can come any more (no job of it
  runs with a keep-alive, none is Available); and only as many of its cities wait as pools may come. Otherwise
  every job ending without a pool would start the next city cold and leave the warm pools nobody to take them. A
  group's cold starts so far are its started cities less its warm starts (its jobs whose pool shows ``Reused``,
  and admitted cities that take an Available pool); each pool of the group that idled and expired gives one cold
  start back, so the group re-creates the lane instead of running narrower. Off with ``carry_pools``.
With ``one_at_a_time`` (``airflow dags test``, which runs a run's task instances one after the other, in an order
of its own) neither rule holds a city back: no other city of the run can start while it waits, so it starts at
once, on the pool the city before it left when their keys match.
Admitted cities count as running until the listing shows their job, so one sweep never over-admits. Every answer
depends only on the summaries, so any number of triggerers, or a restarted one, decide alike for their cities.

The hand-off follows images (:meth:`RunTracker.handoffs`): a pool left Available by a job with image X goes to the
group's earliest unstarted city if that one has image X; otherwise to the city after it on the plan's lane if
that one has image X, else the group's earliest unstarted city with image X — among the 2 × width − 1 cities
after the earliest unstarted one, so no city is ever passed over by more than 2 × width − 1 later ones. The chosen
city may start before its turn by start order (the group still runs at most its width), and its place is held for
it wherever it waits; with no such city the pool goes by start order.

Pools are ended as early as the run allows (:meth:`RunTracker.tail_jobs`, :meth:`RunTracker.surplus_pools`): once
every city of a group has its job, nobody will take a pool of that group over, so its jobs still running get
keep-alive 0 (UpdateTrainingJob while InProgress; should AWS refuse it, the pool is ended once Available) and end
without a pool; idle ones are ended. ``carry_pools`` turns both off: the run's end (``release_pools``) then decides
which pools live on into the next run.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterable, Mapping, Sequence
from typing import TYPE_CHECKING, Any

from sagemaker_fleet.dispatch import admission, handoff, pool_ends
from sagemaker_fleet.dispatch.cadence import AWS_CADENCE
from sagemaker_fleet.dispatch.rules import DEFAULT_OPTIONS
from sagemaker_fleet.dispatch.state import CREATION_MARGIN, JobState, RunState, RunView, Wait
from sagemaker_fleet.jobs.paging import as_datetime

if TYPE_CHECKING:
    from sagemaker_fleet.dispatch.account import AccountView
    from sagemaker_fleet.dispatch.book import DispatchBook
    from sagemaker_fleet.dispatch.cadence import Cadence
    from sagemaker_fleet.dispatch.fair_share import FairShare
    from sagemaker_fleet.dispatch.rules import RunOptions


class RunTracker:
    """The run's jobs by name (``names``: every name the run may use → (city, attempt)) and the dispatch rule.

    :param cadence: the run's intervals (the stall, the board's settling).
    :param options: how the run runs (:class:`~.rules.RunOptions`: ``carry_pools``, ``one_at_a_time``, the
        measurement switches ``rules``).
    :param account: other runs' jobs of the account, for a run with a plan; ``shares``: its part in the account's
        board, for a fleet that shares. Both built with the tracker by :func:`~.build.build_run_dispatch`.
    """

    def __init__(
        self,
        book: DispatchBook,
        names: Mapping[str, tuple[str, int]],
        cadence: Cadence = AWS_CADENCE,
        *,
        options: RunOptions = DEFAULT_OPTIONS,
        account: AccountView | None = None,
        shares: FairShare | None = None,
    ):
        self.state = RunState()
        #: the read of the run every rule takes (its state is :attr:`state`, the same object)
        self.view = RunView(book, names, self.state, cadence, options, account, shares)

    # ------------------------------------------------------------------------------------------ what it holds

    @property
    def book(self) -> DispatchBook:
        return self.view.book

    @property
    def names(self) -> Mapping[str, tuple[str, int]]:
        return self.view.names

    @property
    def cadence(self) -> Cadence:
        return self.view.cadence

    @property
    def account(self) -> AccountView | None:
        """Other runs' jobs of the account (None: a run without a plan, or one that counts its own jobs only)."""
        return self.view.account

    @property
    def shares(self) -> FairShare | None:
        """The run's part in the account's board (None: a fleet that does not share, or no account view)."""
        return self.view.shares

    @property
    def jobs(self) -> dict[str, JobState]:
        return self.state.jobs

    @property
    def latest(self) -> dict[str, JobState]:
        """City → its highest attempt seen."""
        return self.state.latest

    @property
    def pending(self) -> dict[str, int]:
        """City → attempt admitted (or created) but not yet listed."""
        return self.state.pending

    @property
    def listed_whole(self) -> bool:
        return self.state.listed_whole

    @property
    def short_of(self) -> frozenset[str]:
        """Instance types the latest admission pass left cities waiting for room on."""
        return self.state.short_of

    # ------------------------------------------------------------------------------------------ observing

    def observe(self, jobs: Iterable[Mapping[str, Any]], *, whole: bool = False, listed: bool = True) -> None:
        """Take summaries or descriptions of the run's jobs; ``whole``: the listing covered the run's past.
        ``listed=False``: the caller's own CreateTrainingJob answer. An admitted city stays pending until a
        listing shows its job, because only a listing also shows the pool it took as no longer Available."""
        state = self.state
        for job in jobs:
            key = self.names.get(str(job.get("TrainingJobName")))
            if key is None:
                continue  # another fleet's or run's job that only shares the name filter
            city, attempt = key
            pool = job.get("WarmPoolStatus") or {}
            seen = JobState(
                city,
                attempt,
                str(job.get("TrainingJobStatus")),
                pool.get("Status"),
                as_datetime(job.get("CreationTime")),
                float(pool.get("ResourceRetainedBillableTimeInSeconds") or 0),
                pool.get("ReusedByJob") or None,
            )
            state.jobs[str(job["TrainingJobName"])] = seen
            latest = state.latest.get(city)
            if latest is None or attempt >= latest.attempt:
                state.latest[city] = seen
            if listed and city in state.pending and state.pending[city] <= attempt:
                del state.pending[city]
        if whole:
            state.listed_whole = True

    def window_start(self) -> dt.datetime | None:
        """CreationTimeAfter for the next listing: the oldest unsettled job's creation less a margin, or None
        (list the run's whole past) until a whole listing was seen or while a job's creation is unknown."""
        if not self.state.listed_whole:
            return None
        unsettled = [job.created for job in self.jobs.values() if not job.settled]
        if None in unsettled:
            return None
        if unsettled:
            return min(t for t in unsettled if t is not None) - CREATION_MARGIN
        # everything listed so far is settled: only jobs created from now on can change
        created = [job.created for job in self.jobs.values() if job.created is not None]
        return max(created) - CREATION_MARGIN if created else None

    # ------------------------------------------------------------------------------------------ deciding

    def admit(self, waiting: Sequence[Wait], now: float) -> list[str]:
        """The waiting cities that may start now (:func:`.admission.admit`); each counts as running from here until
        the listing shows its job (or :meth:`release`)."""
        return admission.admit(self.view, waiting, now)

    def waiting_reason(self, wait: Wait, now: float) -> str:
        """Why ``wait.city`` has not been admitted, for its task log."""
        return admission.waiting_reason(self.view, wait, now)

    def handoffs(self) -> dict[str, int]:
        """Who takes each idle pool (:func:`.handoff.handoffs`)."""
        return handoff.handoffs(self.view)

    def release(self, city: str) -> None:
        """An admitted city did not create its job after all (capacity refused, an error): free its place."""
        self.state.pending.pop(city, None)

    # ------------------------------------------------------------------------------------------ pool ends

    def surplus_pools(self) -> list[str]:
        """Idle pools nobody will take over (:func:`.pool_ends.surplus_pools`)."""
        return pool_ends.surplus_pools(self.view)

    def tail_jobs(self) -> list[str]:
        """Running jobs to give keep-alive 0 (:func:`.pool_ends.tail_jobs`)."""
        return pool_ends.tail_jobs(self.view)

    def keep_alive_at_create(self, city: str, planned: int) -> int:
        """The keep-alive ``city``'s job is created with (:func:`.pool_ends.keep_alive_at_create`)."""
        return pool_ends.keep_alive_at_create(self.view, city, planned)

    def group_of_job(self, name: str) -> str:
        """The plan's group of job ``name``'s city ("" for a job the tracker has not seen or a city off the plan)."""
        job = self.state.jobs.get(name)
        turn = self.book.turns.get(job.city) if job is not None else None
        return turn.group if turn is not None else ""

    def release_pool(self, name: str, made: bool = True) -> None:
        """``name``'s idle pool is being ended (one of :meth:`surplus_pools`): it holds nothing from now on.
        ``made=False``: the change was not made after all (throttled, the endpoint unreachable): hand it out again."""
        pools = self.state.released.pools
        (pools.add if made else pools.discard)(name)

    def release_tail(self, name: str, made: bool = True) -> None:
        """Running job ``name`` is being given keep-alive 0 (one of :meth:`tail_jobs`): it will keep no pool.
        ``made=False``: as for :meth:`release_pool`."""
        tails = self.state.released.tails
        (tails.add if made else tails.discard)(name)
