"""Pool ends: which of a run's warm pools end now, and with what keep-alive its jobs are created (pure functions of
a read of the run, :class:`~.state.RunView`; the tracker's :meth:`~.tracker.RunTracker.surplus_pools` and
:meth:`~.tracker.RunTracker.tail_jobs` hand them out).

Pools are ended as early as the run allows: once every city of a group has its job, nobody of the run will take a
pool of that group over, so its jobs still running get keep-alive 0 and its idle pools end — except as many of its
key as other runs' cities wait for (the account's board, :mod:`.fair_share`): those are kept for them. A group that
yields its pools to a run ranked before this one (:mod:`.fair_share`) has its idle pools ended too.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator
from typing import TYPE_CHECKING

from sagemaker_fleet.jobs.statuses import ACTIVE_STATUSES as ACTIVE
from sagemaker_fleet.jobs.statuses import POOL_AVAILABLE
from sagemaker_fleet.jobs.statuses import TERMINAL_STATUSES as TERMINAL

if TYPE_CHECKING:
    from sagemaker_fleet.dispatch.book import Turn
    from sagemaker_fleet.dispatch.state import JobState, RunView


def unstarted_groups(view: RunView) -> Counter[str]:
    """Cities per group still to come: not listed yet, or admitted and not yet seen creating their job."""
    return Counter(turn.group for city, turn in view.book.turns.items() if view.state.to_come(city))


def _without_successor(view: RunView) -> Iterator[tuple[str, JobState, Turn]]:
    """The planned cities' jobs whose group has no city still to come (every one has a listed job, none waits,
    none is admitted and about to create one): no successor will take their pool."""
    unstarted = unstarted_groups(view)
    for name, job in view.state.jobs.items():
        turn = view.book.turns.get(job.city)
        if turn is not None and unstarted[turn.group] == 0:
            yield name, job, turn


def surplus_pools(view: RunView) -> list[str]:
    """Idle pools nobody will take over: every city of their group has a listed job (none is waiting, none
    admitted and about to take one), so no successor is coming; and those of a group that yields them
    (:mod:`.board`). Ending them now stops paying for idle time — but as many of a key as other runs' cities
    wait for are kept for them (handed over)."""
    if view.options.carry_pools:
        return []
    book, state = view.book, view.state
    kept = view.kept()
    candidates = list(_without_successor(view)) + [
        (name, job, book.turns[job.city])
        for name, job in state.jobs.items()
        if job.city in book.turns and view.yields(book.turns[job.city].group)
    ]
    ended: list[str] = []
    for name, job, turn in candidates:
        if (
            job.pool != POOL_AVAILABLE
            or name in state.released.pools
            or job.status not in TERMINAL
            or name in ended
        ):
            continue
        if kept[turn.group] > 0:
            kept[turn.group] -= 1  # left Available: another run's city of its key takes it
            continue
        ended.append(name)
    return ended


def keep_alive_at_create(view: RunView, city: str, planned: int) -> int:
    """The keep-alive ``city``'s job is created with now that its turn has come: ``planned``, or 0 when no other
    city of its warm-pool group is still to come (each has a job; none waits, none is admitted) — nobody
    would take its pool, and a job that ends quickly, or a retry, must not leave one idle. With cities still to
    come, one at a time (``airflow dags test``), at least the run's ``inline_keep_alive`` (unless the city sets its
    own keep-alive): the next city takes the pool only after the shell's own gap, and a pool that outlives it costs
    nothing once taken."""
    turn, options = view.book.turns.get(city), view.options
    if options.carry_pools or not options.rules.tail_release or turn is None or not turn.warm_pool:
        return planned
    one_at_a_time = options.one_at_a_time and turn.automatic_keep_alive
    if planned <= 0 and not one_at_a_time:
        return planned  # a group the plan gives no pool: as wide as its cities (a scheduler starts them together)
    to_come = any(c != city and view.state.to_come(c) for c in view.book.members[turn.group])
    if not (to_come or view.kept()[turn.group] > 0):
        return 0
    # one at a time, every city of the group is another's successor, however wide the plan made the group
    return max(planned, options.inline_keep_alive) if one_at_a_time else planned


def tail_jobs(view: RunView) -> list[str]:
    """Running on-demand jobs of warm-pool groups whose every city has a listed job: no successor is coming,
    so each should end without a pool (keep-alive 0 while it runs: not one second idle after it ends). A
    retry of one that fails then starts cold, as it would after :func:`surplus_pools` ended its pool."""
    if view.options.carry_pools or not view.options.rules.tail_release:
        return []
    # a warm-pool group is never a spot one; keep-alive 0 at creation needs nothing
    kept = view.kept()  # other runs' cities of the key wait: their pools are kept for them
    for _, job, turn in _without_successor(view):
        if job.pool == POOL_AVAILABLE and job.status in TERMINAL:
            kept[turn.group] -= 1  # an idle pool is kept first
    tail: list[str] = []
    for name, job, turn in _without_successor(view):
        if not (
            turn.warm_pool
            and turn.keep_alive_seconds > 0
            and job.status in ACTIVE
            and name not in view.state.released.tails
        ):
            continue
        if kept[turn.group] > 0:
            kept[turn.group] -= 1
            continue
        tail.append(name)
    return tail
