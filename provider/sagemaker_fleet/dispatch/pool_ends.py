"""PoolEnds: which of a run's warm pools end now, and with what keep-alive its jobs are created (pure; a part of
:class:`~sagemaker_fleet.dispatch.tracker.RunTracker`, see its module docstring).

Pools are ended as early as the run allows: once every city of a group has its job, nobody of the run will take a
pool of that group over, so its jobs still running get keep-alive 0 and its idle pools end — except as many of its
key as other runs' cities wait for (the account's board, :mod:`.sharing`): those are kept for them. A group that
yields its pools to a run ranked before this one (:mod:`.sharing`) has its idle pools ended too.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator
from typing import TYPE_CHECKING

from sagemaker_fleet.jobs.statuses import ACTIVE_STATUSES as ACTIVE
from sagemaker_fleet.jobs.statuses import TERMINAL_STATUSES as TERMINAL

if TYPE_CHECKING:
    from sagemaker_fleet.dispatch.book import DispatchBook, Turn
    from sagemaker_fleet.dispatch.sharing import RunShares
    from sagemaker_fleet.dispatch.state import JobState


class PoolEnds:
    """The pool-ending half of the tracker (its state is the tracker's)."""

    book: DispatchBook
    jobs: dict[str, JobState]
    latest: dict[str, JobState]
    pending: dict[str, int]
    shares: RunShares | None
    carry_pools: bool
    tail_release: bool
    _released: set[str]
    _tail_released: set[str]

    def _yields(self, group: str) -> bool:
        """Whether ``group`` gives its pools up to a run ranked before this one (:mod:`.sharing`)."""
        return self.shares is not None and group in self.shares.yielding

    def _kept(self) -> Counter[str]:
        """Per group: pools other runs' cities of its key wait for (:meth:`RunShares.kept`)."""
        return self.shares.kept() if self.shares is not None else Counter()

    def release_pool(self, name: str, made: bool = True) -> None:
        """``name``'s idle pool is being ended (one of :meth:`surplus_pools`): it holds nothing from now on.
        ``made=False``: the change was not made after all (throttled, the endpoint unreachable): hand it out again."""
        (self._released.add if made else self._released.discard)(name)

    def release_tail(self, name: str, made: bool = True) -> None:
        """Running job ``name`` is being given keep-alive 0 (one of :meth:`tail_jobs`): it will keep no pool.
        ``made=False``: as for :meth:`release_pool`."""
        (self._tail_released.add if made else self._tail_released.discard)(name)

    def _unstarted_groups(self) -> Counter[str]:
        """Cities per group still to come: not listed yet, or admitted and not yet seen creating their job."""
        return Counter(
            turn.group
            for city, turn in self.book.turns.items()
            if city in self.pending or city not in self.latest
        )

    def _without_successor(self) -> Iterator[tuple[str, JobState, Turn]]:
        """The planned cities' jobs whose group has no city still to come (every one has a listed job, none waits,
        none is admitted and about to create one): no successor will take their pool."""
        unstarted = self._unstarted_groups()
        for name, state in self.jobs.items():
            turn = self.book.turns.get(state.city)
            if turn is not None and unstarted[turn.group] == 0:
                yield name, state, turn

    def surplus_pools(self) -> list[str]:
        """Idle pools nobody will take over: every city of their group has a listed job (none is waiting, none
        admitted and about to take one), so no successor is coming; and those of a group that yields them
        (:mod:`.shares`). Ending them now stops paying for idle time — but as many of a key as other runs' cities
        wait for are kept for them (handed over)."""
        if self.carry_pools:
            return []
        kept = self._kept()
        candidates = list(self._without_successor()) + [
            (name, state, self.book.turns[state.city])
            for name, state in self.jobs.items()
            if state.city in self.book.turns and self._yields(self.book.turns[state.city].group)
        ]
        ended: list[str] = []
        for name, state, turn in candidates:
            if (
                state.pool != "Available"
                or name in self._released
                or state.status not in TERMINAL
                or name in ended
            ):
                continue
            if kept[turn.group] > 0:
                kept[turn.group] -= 1  # left Available: another run's city of its key takes it
                continue
            ended.append(name)
        return ended

    def keep_alive_at_create(self, city: str, planned: int) -> int:
        """The keep-alive ``city``'s job is created with now that its turn has come: ``planned``, or 0 when no other
        city of its warm-pool group is still to come (each has a job; none waits, none is admitted) — nobody
        would take its pool, and a job that ends quickly, or a retry, must not leave one idle."""
        turn = self.book.turns.get(city)
        if planned <= 0 or turn is None or not turn.warm_pool or self.carry_pools or not self.tail_release:
            return planned
        to_come = any(
            c != city and (c in self.pending or c not in self.latest) for c in self.book.members[turn.group]
        )
        return planned if to_come or self._kept()[turn.group] > 0 else 0

    def tail_jobs(self) -> list[str]:
        """Running on-demand jobs of warm-pool groups whose every city has a listed job: no successor is coming,
        so each should end without a pool (keep-alive 0 while it runs: not one second idle after it ends). A
        retry of one that fails then starts cold, as it would after :meth:`surplus_pools` ended its pool."""
        if self.carry_pools or not self.tail_release:
            return []
        # a warm-pool group is never a spot one; keep-alive 0 at creation needs nothing
        kept = self._kept()  # other runs' cities of the key wait: their pools are kept for them
        for _, state, turn in self._without_successor():
            if state.pool == "Available" and state.status in TERMINAL:
                kept[turn.group] -= 1  # an idle pool is kept first
        tail: list[str] = []
        for name, state, turn in self._without_successor():
            if not (
                turn.warm_pool
                and turn.keep_alive_seconds > 0
                and state.status in ACTIVE
                and name not in self._tail_released
            ):
                continue
            if kept[turn.group] > 0:
                kept[turn.group] -= 1
                continue
            tail.append(name)
        return tail
