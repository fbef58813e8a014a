"""What a run holds and has left, computed from a read of it (:class:`~.state.RunView`; pure, nothing written).

- :func:`group_counts`: per warm-pool group, its cities running (or admitted) and ended;
- :func:`holdings`: instances held per quota (the run's jobs, its admitted cities, idle pools; other runs' too),
  idle pools per group, and what other runs hold (:class:`Holdings`);
- :func:`cold_budget`: per warm-pool group, cold starts left and pools that may still come (the rule: the
  module docstring of :mod:`.tracker`);
- :func:`claim`: what one city's submission takes of them.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING

from sagemaker_fleet.jobs.statuses import ACTIVE_STATUSES as ACTIVE
from sagemaker_fleet.jobs.statuses import POOL_AVAILABLE
from sagemaker_fleet.jobs.statuses import TERMINAL_STATUSES as TERMINAL

if TYPE_CHECKING:
    from sagemaker_fleet.dispatch.book import QuotaKey, Turn
    from sagemaker_fleet.dispatch.state import RunView


def group_counts(view: RunView) -> tuple[Counter[str], Counter[str]]:
    """Per group: its cities running (or admitted, their job not listed yet) and its cities ended."""
    running: Counter[str] = Counter()
    ended: Counter[str] = Counter()
    state = view.state
    for city, turn in view.book.turns.items():
        latest = state.latest.get(city)
        if city in state.pending or (latest is not None and latest.status in ACTIVE):
            running[turn.group] += 1
        elif latest is not None and latest.status in TERMINAL:
            ended[turn.group] += 1
    return running, ended


@dataclass(frozen=True)
class Holdings:
    """What the run and the others hold now (fresh counters: an admission pass books on them).

    ``used``: instances per quota, everyone's; ``idle``: idle pools per group (other runs' ones of its key that are
    the run's to take too); ``pending_warm``: per group, admitted cities that take one of those; ``reserved``: per
    group, other runs' pools of its key not yet the run's to take; ``others``: per quota, what other runs hold (the
    run's own are ``used`` less these)."""

    used: Counter[QuotaKey]
    idle: Counter[str]
    pending_warm: Counter[str]
    reserved: Counter[str]
    others: Counter[QuotaKey]


def holdings(view: RunView) -> Holdings:
    """The run's :class:`Holdings`. No idle pool of a quota a create was refused on since the listing
    (:meth:`AccountView.refused`): the view missed something, and one way is another run's city taking the pool the
    listing shows Available — a city handed it would need new instances, and the next city handed it after the
    refusal was refused in turn."""
    book, state, account = view.book, view.state, view.account
    used, idle, reserved = (
        account.holdings(book) if account is not None else (Counter(), Counter(), Counter())
    )
    others = Counter(used)
    pending_warm: Counter[str] = Counter()
    refused = account.full if account is not None else set()
    for name, job in state.jobs.items():
        turn = book.turns.get(job.city)
        if turn is None:
            continue
        if job.status in ACTIVE:
            if state.pending.get(job.city) == job.attempt:
                continue  # created, not listed yet: counted below with what it took
            used[turn.quota_for(job.attempt)] += turn.instance_count
        elif job.pool == POOL_AVAILABLE and name not in state.released.pools:
            used[(turn.instance_type, "instances")] += turn.instance_count
            if (turn.instance_type, "instances") not in refused:  # else another run may have taken it
                idle[turn.group] += 1
    for city, attempt in state.pending.items():
        turn = book.turns.get(city)
        if turn is not None:
            before = idle[turn.group]
            claim(view, turn, attempt, used, idle, others=None)
            pending_warm[turn.group] += before - idle[turn.group]
    return Holdings(used, idle, pending_warm, reserved, others)


def cold_budget(view: RunView, pending_warm: Counter[str]) -> tuple[Counter[str], Counter[str]]:
    """Per warm-pool group: cold starts left (the plan's and its expired pools', less its cold starts so far),
    and how many pools may still come to it (jobs running with a keep-alive, Available pools, admitted cities
    that will keep one). Empty with ``carry_pools``: nothing is held back."""
    left: Counter[str] = Counter()
    coming: Counter[str] = Counter()
    book, state = view.book, view.state
    if view.options.carry_pools or not book.cold_starts:
        return left, coming
    reused, lost = Counter[str](), Counter[str]()  # warm starts; pools that idled and expired
    for name, job in state.jobs.items():
        turn = book.turns.get(job.city)
        if turn is None or turn.group not in book.cold_starts:
            continue
        # a pool another run took is that run's warm start, not this group's: counted once
        reused[turn.group] += job.pool == "Reused" and (job.reused_by in view.names or not job.reused_by)
        lost[turn.group] += job.pool == "Terminated" and job.retained > 0  # it idled, then expired
        keeps = turn.keep_alive_seconds > 0 and name not in state.released.tails
        idle = job.pool == POOL_AVAILABLE and name not in state.released.pools
        if (job.status in ACTIVE and keeps) or idle:
            coming[turn.group] += 1
    started: Counter[str] = Counter()
    for city, turn in book.turns.items():
        if state.started(city):
            started[turn.group] += 1
        if city in state.pending and turn.keep_alive_seconds > 0:
            coming[turn.group] += 1
    for group, planned in book.cold_starts.items():
        left[group] = planned + lost[group] - max(0, started[group] - reused[group] - pending_warm[group])
    return left, coming


def claim(
    view: RunView,
    turn: Turn,
    attempt: int,
    used: Counter[QuotaKey],
    idle: Counter[str],
    *,
    others: Counter[QuotaKey] | None,
    reserve: Mapping[QuotaKey, int] | None = None,
) -> bool:
    """Book what ``turn``'s submission takes on ``used`` and ``idle``: an idle pool of its own group (its instances
    become the job's; not for a group that yields its pools), else new instances of its quota — refused (False)
    when they would exceed the account's quota less the room ``reserve``d for runs ranked before this one, or the
    fleet's own quota (its cap within the account, :attr:`DispatchBook.account`), the run's own being ``used``
    less ``others``. ``others=None``: booked unchecked (an admission already made)."""
    quota = turn.quota_for(attempt)
    if quota[1] == "instances" and turn.warm_pool and idle[turn.group] > 0 and not view.yields(turn.group):
        idle[turn.group] -= 1
        return True
    book = view.book
    limit = book.capacity.get(quota)
    room = (reserve or {}).get(quota, 0)
    if others is not None and limit is not None:
        everyone = used[quota] + turn.instance_count + room
        own = used[quota] - others[quota] + turn.instance_count
        if everyone > (book.account_limit(quota) or limit) or own > limit:
            return False  # the account's quota, or the fleet's cap within it
    used[quota] += turn.instance_count
    return True
