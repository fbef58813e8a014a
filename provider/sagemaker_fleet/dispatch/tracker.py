"""RunTracker: what a fleet run's jobs are doing, from ListTrainingJobs summaries, and who may start now (pure).

Fed every sweep's summaries (and any DescribeTrainingJob response) of the run, it keeps each city's latest
submission and each job's warm-pool status. Its rule, :meth:`RunTracker.admit`, starts a waiting city when
- its turn has come: fewer than its group's width of the group's jobs are running and at least
  ``rank − width + 1`` of the group's cities have ended (a city that already had its turn — a spot re-submission,
  a retry — skips this); a city waiting :attr:`~.cadence.Cadence.stall_seconds` while nothing of its group runs is let through, so a
  predecessor whose task never starts (marked failed by hand, say) cannot hold the group forever;
- and its instance quota has room, counting what SageMaker counts: running jobs and idle warm pools, the account's
  (other runs' too: :attr:`RunTracker.account`). A city taking an Available pool of its key needs no new instances;
- and, when it would start cold (no Available pool of its group to take), its warm-pool group has not used up the
  plan's cold starts (``DispatchBook.cold_starts``) — or no pool of the group can come any more (no job of it
  runs with a keep-alive, none is Available); and only as many of its cities wait as pools may come. Without
  this, every job ending without a pool (a cold lane's, or one the warm-pool quota refused) started the next city
  cold, the warm pools' jobs then found nobody left to take their pools, and the run had fewer warm starts than
  planned. A group's cold starts so far are its started cities less its warm starts (its jobs whose pool shows
  ``Reused``, and admitted cities that take an Available pool); each pool of the group that idled and expired
  (a lane lost: its successor came late, or while no triggerer ran) gives one cold start back, so the group
  re-creates the lane instead of running narrower. Off with ``carry_pools`` (the previous run's pools).
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
it wherever it waits; with no such city the pool goes by start order, as it always did.

Pools are ended as early as the run allows (:meth:`RunTracker.tail_jobs`, :meth:`RunTracker.surplus_pools`): once
every city of a group has its job, nobody will take a pool of that group over, so its jobs still running get
keep-alive 0 (UpdateTrainingJob while InProgress; should AWS refuse it, the pool is ended once Available) and end
without a pool; idle ones are ended. ``carry_pools`` turns both off: the run's end (``release_pools``) then decides
which pools live on into the next run.
"""

from __future__ import annotations

import datetime as dt
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from typing import TYPE_CHECKING, Any

# CREATION_MARGIN and Wait are imported from here too (the shells, the Fleet view, users' code)
from sagemaker_fleet.dispatch.cadence import AWS_CADENCE, Cadence
from sagemaker_fleet.dispatch.state import CREATION_MARGIN, Counts, JobState, Wait
from sagemaker_fleet.jobs.paging import as_datetime
from sagemaker_fleet.jobs.statuses import ACTIVE_STATUSES as ACTIVE
from sagemaker_fleet.jobs.statuses import TERMINAL_STATUSES as TERMINAL

__all__ = ["CREATION_MARGIN", "JobState", "RunTracker", "Wait"]

from sagemaker_fleet.dispatch.pool_ends import PoolEnds
from sagemaker_fleet.dispatch.sharing import Demand

if TYPE_CHECKING:
    from sagemaker_fleet.dispatch.account import AccountView
    from sagemaker_fleet.dispatch.book import DispatchBook, QuotaPool, Turn
    from sagemaker_fleet.dispatch.sharing import RunShares


class RunTracker(PoolEnds):
    """The run's jobs by name (``names``: every name the run may use → (city, attempt)) and the dispatch rule."""

    def __init__(
        self,
        book: DispatchBook,
        names: Mapping[str, tuple[str, int]],
        cadence: Cadence = AWS_CADENCE,
        *,
        image_handoff: bool = True,
        tail_release: bool = True,
        carry_pools: bool = False,
        one_at_a_time: bool = False,
    ):
        self.book = book
        self.names = names
        self.cadence = cadence  #: the run's intervals (the stall, the board's settling)
        #: hand a freed pool to a city with its image (False: the group's start order only, to measure the gain)
        self.image_handoff = image_handoff
        #: end the pools of a group's last jobs as they end (False: only once idle, to measure the gain)
        self.tail_release = tail_release
        #: keep the run's pools for the next scheduled run: neither :meth:`tail_jobs` nor :meth:`surplus_pools`
        self.carry_pools = carry_pools
        #: the run's cities start one at a time, in an order the plan does not set (``airflow dags test``): no
        #: city waits for its turn or for a pool, as none of the cities it would wait for can start before it
        self.one_at_a_time = one_at_a_time
        self.jobs: dict[str, JobState] = {}
        self.latest: dict[str, JobState] = {}  # city → its highest attempt seen
        self.pending: dict[str, int] = {}  # city → attempt admitted (or created) but not yet listed
        #: jobs whose idle pool was ended on purpose, and running jobs given keep-alive 0 (their group has no city
        #: to come): written by :meth:`release_pool` and :meth:`release_tail` only
        self._released: set[str] = set()
        self._tail_released: set[str] = set()
        self.listed_whole = False
        self.account: AccountView | None = None  #: other runs' jobs of the account (set by the sweeps)
        self._reserved: Counter[str] = (
            Counter()
        )  # per group: other runs' pools of its key not yet its to take
        self._others: Counter[QuotaPool] = Counter()  #: per quota, what other runs hold (of the latest pass)
        #: instance types the latest pass left cities waiting for room on (their quotas were full)
        self.short_of: frozenset[str] = frozenset()
        #: the account's board, for a fleet with ``sharing`` (set by the sweeps; :mod:`.shares`)
        self.shares: RunShares | None = None

    # ------------------------------------------------------------------------------------------ observing

    def observe(self, jobs: Iterable[Mapping[str, Any]], *, whole: bool = False, listed: bool = True) -> None:
        """Take summaries or descriptions of the run's jobs; ``whole``: the listing covered the run's past.
        ``listed=False``: the caller's own CreateTrainingJob answer. An admitted city stays pending until a
        listing shows its job, because only a listing also shows the pool it took as no longer Available."""
        for job in jobs:
            key = self.names.get(str(job.get("TrainingJobName")))
            if key is None:
                continue  # another fleet's or run's job that only shares the name filter
            city, attempt = key
            pool = job.get("WarmPoolStatus") or {}
            state = JobState(
                city,
                attempt,
                str(job.get("TrainingJobStatus")),
                pool.get("Status"),
                as_datetime(job.get("CreationTime")),
                float(pool.get("ResourceRetainedBillableTimeInSeconds") or 0),
                pool.get("ReusedByJob") or None,
            )
            self.jobs[str(job["TrainingJobName"])] = state
            latest = self.latest.get(city)
            if latest is None or attempt >= latest.attempt:
                self.latest[city] = state
            if listed and city in self.pending and self.pending[city] <= attempt:
                del self.pending[city]
        if whole:
            self.listed_whole = True

    def window_start(self) -> dt.datetime | None:
        """CreationTimeAfter for the next listing: the oldest unsettled job's creation less a margin, or None
        (list the run's whole past) until a whole listing was seen or while a job's creation is unknown."""
        if not self.listed_whole:
            return None
        unsettled = [state.created for state in self.jobs.values() if not state.settled]
        if None in unsettled:
            return None
        if unsettled:
            return min(t for t in unsettled if t is not None) - CREATION_MARGIN
        # everything listed so far is settled: only jobs created from now on can change
        created = [state.created for state in self.jobs.values() if state.created is not None]
        return max(created) - CREATION_MARGIN if created else None

    # ------------------------------------------------------------------------------------------ deciding

    def group_counts(self) -> tuple[Counter[str], Counter[str]]:
        running: Counter[str] = Counter()
        ended: Counter[str] = Counter()
        for city, turn in self.book.turns.items():
            state = self.latest.get(city)
            if city in self.pending or (state is not None and state.status in ACTIVE):
                running[turn.group] += 1
            elif state is not None and state.status in TERMINAL:
                ended[turn.group] += 1
        return running, ended

    def _holdings(self) -> tuple[Counter[QuotaPool], Counter[str], Counter[str]]:
        """Instances held per quota (running jobs, admitted ones, idle pools; other runs' too), idle pools per group
        (other runs' matching ones too), and per group the admitted (not yet listed) cities that take one of them.
        No idle pool of a quota a create was refused on since the listing (:meth:`AccountView.refused`): the view
        missed something, and one way is another run's city taking the pool the listing shows Available — a city
        handed it would need new instances, and the next city handed it after the refusal was refused in turn."""
        used, idle, self._reserved = self.account.holdings(self.book) if self.account else (Counter(),) * 3
        self._others = Counter(used)  # other runs' holdings: the run's own are ``used`` less these
        pending_warm: Counter[str] = Counter()
        refused = self.account.full if self.account is not None else set()
        for name, state in self.jobs.items():
            turn = self.book.turns.get(state.city)
            if turn is None:
                continue
            if state.status in ACTIVE:
                if self.pending.get(state.city) == state.attempt:
                    continue  # created, not listed yet: counted below with what it took
                used[turn.quota_for(state.attempt)] += turn.instance_count
            elif state.pool == "Available" and name not in self._released:
                used[(turn.instance_type, "instances")] += turn.instance_count
                if (turn.instance_type, "instances") not in refused:  # else another run may have taken it
                    idle[turn.group] += 1
        for city, attempt in self.pending.items():
            turn = self.book.turns.get(city)
            if turn is not None:
                before = idle[turn.group]
                self._claim(turn, attempt, used, idle, check=False)
                pending_warm[turn.group] += before - idle[turn.group]
        return used, idle, pending_warm

    def _cold_budget(self, pending_warm: Counter[str]) -> tuple[Counter[str], Counter[str]]:
        """Per warm-pool group: cold starts left (the plan's and its expired pools', less its cold starts so far),
        and how many pools may still come to it (jobs running with a keep-alive, Available pools, admitted cities
        that will keep one). Empty with ``carry_pools``: nothing is held back."""
        left: Counter[str] = Counter()
        coming: Counter[str] = Counter()
        if self.carry_pools or not self.book.cold_starts:
            return left, coming
        reused, lost = Counter[str](), Counter[str]()  # warm starts; pools that idled and expired
        for name, state in self.jobs.items():
            turn = self.book.turns.get(state.city)
            if turn is None or turn.group not in self.book.cold_starts:
                continue
            # a pool another run took is that run's warm start, not this group's: counted once
            reused[turn.group] += state.pool == "Reused" and (
                state.reused_by in self.names or not state.reused_by
            )
            lost[turn.group] += state.pool == "Terminated" and state.retained > 0  # it idled, then expired
            keeps = turn.keep_alive_seconds > 0 and name not in self._tail_released
            idle = state.pool == "Available" and name not in self._released
            if (state.status in ACTIVE and keeps) or idle:
                coming[turn.group] += 1
        started: Counter[str] = Counter()
        for city, turn in self.book.turns.items():
            if city in self.latest or city in self.pending:
                started[turn.group] += 1
            if city in self.pending and turn.keep_alive_seconds > 0:
                coming[turn.group] += 1
        for group, planned in self.book.cold_starts.items():
            left[group] = planned + lost[group] - max(0, started[group] - reused[group] - pending_warm[group])
        return left, coming

    def _must_wait_for_pool(
        self, turn: Turn, wait: Wait, idle: Counts, left: Counts, coming: Counts, waiting: int = 0
    ) -> bool:
        """Whether ``wait``'s city would start cold beyond its group's planned cold starts while a pool may come to
        it: fewer of its group's cities already wait for one (``waiting``) than pools may come. The others start
        cold: with pools lost (their keep-alive ran out while the triggerer was down), holding every city back for
        the few pools still to come would shrink the group to its running jobs for the rest of the run."""
        if (
            not wait.first
            or turn.group not in self.book.cold_starts
            or self.carry_pools
            or self.one_at_a_time
        ):
            return False
        if idle[turn.group] > 0 or turn.quota_for(wait.attempt)[1] != "instances":
            return False  # it takes a pool (or is a spot submission, which never does)
        return left[turn.group] <= 0 and waiting < coming[turn.group]

    def _has_turn(
        self, turn: Turn, running: Counter[str], ended: Counter[str], waited: float, held: int = 0
    ) -> bool:
        """By start order: fewer than the width run (or are about to: ``held`` places of cities handed a pool)
        and enough of the group's cities have ended; or the group has stalled."""
        width = self.book.widths[turn.group]
        if self.one_at_a_time:
            return True
        if running[turn.group] == 0 and waited >= self.cadence.stall_seconds:
            # nothing of the group runs, so nothing will end: whoever holds the group never started
            return True
        return running[turn.group] + held < width and ended[turn.group] >= turn.rank - width + 1

    def waiting_reason(self, wait: Wait, now: float) -> str:
        """Why ``wait.city`` has not been admitted, for its task log."""
        turn = self.book.turns.get(wait.city)
        if turn is None:
            return "waits for the run's first listing"
        running, ended = self.group_counts()
        width = self.book.widths[turn.group]
        if wait.first and not self._has_turn(turn, running, ended, now - wait.since):
            needed = max(1, turn.rank - width + 1 - ended[turn.group])
            reason = (
                f"waits for {needed} more job(s) of group {turn.group} to end "
                f"(rank {turn.rank + 1} of {len(self.book.members[turn.group])}, width {width}, "
                f"{running[turn.group]} running)"
            )
            if running[turn.group] == 0:
                reason += (
                    f"; none of the group runs: the cities before it have not started (their task instances wait "
                    f"for the scheduler, a worker or a pool slot), so it starts anyway after {self.cadence.stall_seconds:.0f} s"
                )
            return reason
        used, idle, pending_warm = self._holdings()
        left, coming = self._cold_budget(pending_warm)
        if self._must_wait_for_pool(turn, wait, idle, left, coming):
            return (
                f"waits for a warm pool of group {turn.group} (its {self.book.cold_starts[turn.group]} planned "
                "cold starts are used)"
            )
        if self.shares is not None and not self.shares.board.settled:
            return (
                "waits for the account's board: the run takes no new instances until the runs that start with it "
                f"have read its first record ({self.cadence.start_settle_seconds:g} s; sharing)"
            )
        quota = turn.quota_for(wait.attempt)
        reason = f"waits for room in the {quota[0]} {quota[1]} quota (running jobs and idle pools)"
        reserve = self.shares.reserves().get(quota, 0) if self.shares is not None else 0
        if reserve:
            reason += f"; {reserve} instance(s) go first to runs ranked before this one (sharing)"
        return reason

    def _claim(
        self,
        turn: Turn,
        attempt: int,
        used: Counter[QuotaPool],
        idle: Counter[str],
        check: bool = True,
        reserve: Mapping[QuotaPool, int] | None = None,
    ) -> bool:
        """Book what ``turn``'s submission takes: an idle pool of its own group (its instances become the job's;
        not for a group that yields its pools), else new instances of its quota — refused (False) when ``check``
        and they would exceed the account's quota less the room ``reserve``d for runs ranked before this one, or
        the fleet's own quota (its cap within the account, :attr:`DispatchBook.account`)."""
        quota = turn.quota_for(attempt)
        if (
            quota[1] == "instances"
            and turn.warm_pool
            and idle[turn.group] > 0
            and not self._yields(turn.group)
        ):
            idle[turn.group] -= 1
            return True
        limit = self.book.capacity.get(quota)
        room = (reserve or {}).get(quota, 0)
        if check and limit is not None:
            everyone = used[quota] + turn.instance_count + room
            own = used[quota] - self._others[quota] + turn.instance_count
            if everyone > (self.book.account_limit(quota) or limit) or own > limit:
                return False  # the account's quota, or the fleet's cap within it
        used[quota] += turn.instance_count
        return True

    def admit(self, waiting: Sequence[Wait], now: float) -> list[str]:
        """The waiting cities that may start now: those a freed pool is handed to (:meth:`handoffs`) first, then
        the rest in the run's planned order; each counts as running from here until the listing shows its job
        (or :meth:`release`). A city handed a pool holds a place in its group's width wherever it waits, so a
        triggerer without it does not give that place to the next city in start order."""
        running, ended = self.group_counts()
        used, idle, pending_warm = self._holdings()
        left, coming = self._cold_budget(pending_warm)
        held_back: Counter[str] = Counter()  # cities of this pass that wait for a pool to come
        handoffs = self.handoffs() if self.image_handoff else {}
        held = Counter(self.book.turns[city].group for city in handoffs if city not in self.pending)
        known = [w for w in waiting if w.city in self.book.turns]
        admitted = [w.city for w in waiting if w.city not in self.book.turns]  # outside the plan: no order
        last = len(handoffs)
        reserve = self.shares.begin(used) if self.shares is not None else {}
        demand = Demand()
        for wait in sorted(known, key=lambda w: (handoffs.get(w.city, last), self.book.turns[w.city].order)):
            turn = self.book.turns[wait.city]
            group = turn.group
            handed = wait.city in handoffs and wait.city not in self.pending
            if wait.first and (
                running[group] >= self.book.widths[group]
                if handed
                else not self._has_turn(turn, running, ended, now - wait.since, held[group])
            ):
                continue
            if self._must_wait_for_pool(turn, wait, idle, left, coming, held_back[group]):
                held_back[group] += 1
                demand.wants[group] += 1
                continue
            pools = idle[group]
            if not pools and self._reserved[group] and turn.quota_for(wait.attempt)[1] == "instances":
                demand.blocked(turn, wait.attempt)  # waits, for that pool or for room
                continue  # it would take another run's pool that run's own city may take now (account.py)
            if not self._claim(turn, wait.attempt, used, idle, reserve=reserve):
                demand.blocked(turn, wait.attempt)
                continue
            if idle[group] < pools and self.shares is not None:
                self.shares.took_pool(turn, used, reserve)
            if wait.first and idle[group] == pools:
                left[group] -= 1  # started cold
            running[group] += 1
            if handed:
                held[group] -= 1
            self.pending[wait.city] = wait.attempt
            admitted.append(wait.city)
        self.short_of = frozenset(itype for itype, _ in demand.needed)
        if self.shares is not None:
            busy = {self.book.turns[city].group for city in self.pending if city in self.book.turns}
            self.shares.post(demand, used - self._others, self._unstarted_groups(), busy)
        return admitted

    def handoffs(self) -> dict[str, int]:
        """Who takes each idle pool (see the module docstring): city → its place in the order the pools are
        handed out (the pools' cities in planned order). From the listing and the book alone, so every
        triggerer of the run hands alike; a city already admitted here keeps the pool it was handed."""
        pools: dict[str, list[Turn]] = {}
        for name, state in self.jobs.items():
            turn = self.book.turns.get(state.city)
            if (
                turn is not None
                and turn.warm_pool
                and state.status in TERMINAL
                and state.pool == "Available"
                and name not in self._released
            ):
                pools.setdefault(turn.group, []).append(turn)
        # a job created here but not listed yet took one of the pools the listing still shows Available
        taken = Counter(self.book.turns[c].group for c in self.pending if c in self.latest)
        handed: dict[str, int] = {}
        for group, freed in sorted(pools.items()):
            unstarted = [c for c in self.book.members[group] if c not in self.latest]
            if not unstarted:
                continue
            limit = self.book.turns[unstarted[0]].rank + 2 * self.book.widths[group] - 1
            for turn in sorted(freed, key=lambda t: t.order)[taken[group] :]:
                chosen = self._successor(turn, unstarted, limit)
                if chosen is not None:
                    unstarted.remove(chosen)
                    handed[chosen] = len(handed)
                if not unstarted:
                    break
        return handed

    def _successor(self, freed: Turn, unstarted: list[str], limit: int) -> str | None:
        """The unstarted city that takes the pool ``freed``'s job left: the earliest if it has the pool's image,
        else the plan's lane successor with it, else the earliest with it, within ``limit`` (a rank); None: no
        city with the image is near its turn (the pool goes by start order)."""
        turns = self.book.turns
        if turns[unstarted[0]].image == freed.image:
            return unstarted[0]
        near = [c for c in unstarted if turns[c].rank <= limit and turns[c].image == freed.image]
        if freed.successor in near:
            return freed.successor
        return near[0] if near else None

    def release(self, city: str) -> None:
        """An admitted city did not create its job after all (capacity refused, an error): free its place."""
        self.pending.pop(city, None)
