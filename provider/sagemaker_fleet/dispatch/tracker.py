"""RunTracker: what a fleet run's jobs are doing, from ListTrainingJobs summaries, and who may start now (pure).

Fed every sweep's summaries (and any DescribeTrainingJob response) of the run, it keeps each city's latest
submission and each job's warm-pool status. Its rule, :meth:`RunTracker.admit`, starts a waiting city when
- its turn has come: fewer than its group's width of the group's jobs are running and at least
  ``rank − width + 1`` of the group's cities have ended (a city that already had its turn — a spot re-submission,
  a retry — skips this); a city waiting ``stall_seconds`` while nothing of its group runs is let through, so a
  predecessor whose task never starts (marked failed by hand, say) cannot hold the group forever;
- and its instance quota has room, counting what SageMaker counts: running jobs and idle warm pools. A city that
  takes over an Available pool of its own group needs no new instances.
Admitted cities count as running until the listing shows their job, so one sweep never over-admits. Every answer
depends only on the summaries, so any number of triggerers, or a restarted one, decide alike for their cities.
"""

from __future__ import annotations

import datetime as dt
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from sagemaker_fleet.dispatch.book import DispatchBook, QuotaPool, Turn

ACTIVE = frozenset({"InProgress", "Stopping"})
TERMINAL = frozenset({"Completed", "Failed", "Stopped"})
#: Warm-pool statuses after which a job holds nothing any more.
POOL_SETTLED = frozenset({"Terminated", "Reused"})
#: The listing starts this long before the oldest unsettled job's creation (clock skew, listing lag).
CREATION_MARGIN = dt.timedelta(minutes=5)
#: While a city waits for its turn the run is swept at least this often (seconds): the sweep that sees a job end
#: is the one that starts its successor, so this bounds the hand-off (one ListTrainingJobs call per run a sweep).
HANDOFF_INTERVAL = 10.0


def _timestamp(value: object) -> dt.datetime | None:
    """A CreationTime as boto3 gives it (datetime) or as the simulator's engine does (epoch seconds)."""
    if isinstance(value, dt.datetime):
        return value
    if isinstance(value, int | float):
        return dt.datetime.fromtimestamp(float(value), dt.UTC)
    return None


@dataclass
class JobState:
    """One job of the run as last listed or described."""

    city: str
    attempt: int
    status: str
    pool: str | None
    created: dt.datetime | None

    @property
    def settled(self) -> bool:
        """Terminal and holding no pool: later listings may leave it out without losing anything."""
        return self.status in TERMINAL and (self.pool is None or self.pool in POOL_SETTLED)


@dataclass(frozen=True)
class Wait:
    """A city asking to start its ``attempt``-th submission. ``first``: it has no job in this run yet, so it waits
    for its turn in the group (a spot re-submission or a retry already had its turn and waits for room only);
    ``since``: when it began waiting (seconds, the caller's clock)."""

    city: str
    attempt: int = 1
    first: bool = True
    since: float = 0.0


class RunTracker:
    """The run's jobs by name (``names``: every name the run may use → (city, attempt)) and the dispatch rule."""

    def __init__(self, book: DispatchBook, names: Mapping[str, tuple[str, int]], stall_seconds: float = 600.0):
        self.book = book
        self.names = names
        self.stall_seconds = stall_seconds
        self.jobs: dict[str, JobState] = {}
        self.latest: dict[str, JobState] = {}  # city → its highest attempt seen
        self.pending: dict[str, int] = {}  # city → attempt admitted (or created) but not yet listed
        self.released: set[str] = set()  # jobs whose idle pool was ended on purpose
        self.listed_whole = False

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
                city, attempt, str(job.get("TrainingJobStatus")), pool.get("Status"), _timestamp(job.get("CreationTime"))
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

    def _usage(self) -> tuple[Counter[QuotaPool], Counter[str]]:
        """Instances held per quota (running jobs, admitted ones, idle pools) and idle pools per group."""
        used: Counter[QuotaPool] = Counter()
        idle: Counter[str] = Counter()
        for name, state in self.jobs.items():
            turn = self.book.turns.get(state.city)
            if turn is None:
                continue
            if state.status in ACTIVE:
                if self.pending.get(state.city) == state.attempt:
                    continue  # created, not listed yet: counted below with what it took
                used[turn.quota_for(state.attempt)] += turn.instance_count
            elif state.pool == "Available" and name not in self.released:
                used[(turn.instance_type, "instances")] += turn.instance_count
                idle[turn.group] += 1
        for city, attempt in self.pending.items():
            turn = self.book.turns.get(city)
            if turn is not None:
                self._claim(turn, attempt, used, idle, check=False)
        return used, idle

    def _has_turn(self, turn: Turn, running: Counter[str], ended: Counter[str], waited: float) -> bool:
        width = self.book.widths[turn.group]
        if running[turn.group] == 0 and waited >= self.stall_seconds:
            return True  # nothing of the group runs, so nothing will end: whoever holds the group never started
        return running[turn.group] < width and ended[turn.group] >= turn.rank - width + 1

    def waiting_reason(self, wait: Wait, now: float) -> str:
        """Why ``wait.city`` has not been admitted, for its task log."""
        turn = self.book.turns.get(wait.city)
        if turn is None:
            return "waits for the run's first listing"
        running, ended = self.group_counts()
        width = self.book.widths[turn.group]
        if wait.first and not self._has_turn(turn, running, ended, now - wait.since):
            needed = max(1, turn.rank - width + 1 - ended[turn.group])
            return (f"waits for {needed} more job(s) of group {turn.group} to end "
                    f"(rank {turn.rank + 1} of {len(self.book.members[turn.group])}, width {width}, "
                    f"{running[turn.group]} running)")
        quota = turn.quota_for(wait.attempt)
        return f"waits for room in the {quota[0]} {quota[1]} quota (running jobs and idle pools)"

    def _claim(
        self, turn: Turn, attempt: int, used: Counter[QuotaPool], idle: Counter[str], check: bool = True
    ) -> bool:
        """Book what ``turn``'s submission takes: an idle pool of its own group (its instances become the job's),
        else new instances of its quota — refused (False) when ``check`` and they would exceed the quota."""
        quota = turn.quota_for(attempt)
        if quota[1] == "instances" and turn.warm_pool and idle[turn.group] > 0:
            idle[turn.group] -= 1
            return True
        limit = self.book.capacity.get(quota)
        if check and limit is not None and used[quota] + turn.instance_count > limit:
            return False
        used[quota] += turn.instance_count
        return True

    def admit(self, waiting: Sequence[Wait], now: float) -> list[str]:
        """The waiting cities that may start now, in the run's planned order; each counts as running from here
        until the listing shows its job (or :meth:`release`)."""
        running, ended = self.group_counts()
        used, idle = self._usage()
        admitted: list[str] = []
        known = [w for w in waiting if w.city in self.book.turns]
        admitted += [w.city for w in waiting if w.city not in self.book.turns]  # outside the plan: no order to keep
        for wait in sorted(known, key=lambda w: self.book.turns[w.city].order):
            turn = self.book.turns[wait.city]
            if wait.first and not self._has_turn(turn, running, ended, now - wait.since):
                continue
            if not self._claim(turn, wait.attempt, used, idle):
                continue
            running[turn.group] += 1
            self.pending[wait.city] = wait.attempt
            admitted.append(wait.city)
        return admitted

    def release(self, city: str) -> None:
        """An admitted city did not create its job after all (capacity refused, an error): free its place."""
        self.pending.pop(city, None)

    def surplus_pools(self) -> list[str]:
        """Idle pools nobody will take over: every city of their group has a listed job (none is waiting, none
        admitted and about to take one), so no successor is coming. Ending them now stops paying for idle time."""
        unstarted = Counter(
            turn.group for city, turn in self.book.turns.items() if city in self.pending or city not in self.latest
        )
        surplus = []
        for name, state in self.jobs.items():
            turn = self.book.turns.get(state.city)
            if (turn is not None and state.pool == "Available" and name not in self.released
                    and state.status in TERMINAL and unstarted[turn.group] == 0):
                surplus.append(name)
        return surplus
