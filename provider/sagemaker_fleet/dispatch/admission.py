"""Admission: which waiting cities of a run start now, and why the others wait (the rule: the module docstring of
:mod:`.tracker`).

:func:`has_turn` and :func:`must_wait_for_pool` are pure questions of a :class:`Ledger`, one read of the run's
counts; :func:`waiting_reason` only reads. :func:`admit` is the one write: the cities it lets through count as
pending in the run's state (running, until the listing shows their job), and it tells the account's board what
the pass left waiting (:class:`~.fair_share.FairShare`).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from sagemaker_fleet.dispatch.fair_share import Demand
from sagemaker_fleet.dispatch.handoff import handoffs
from sagemaker_fleet.dispatch.holdings import claim, cold_budget, group_counts, holdings
from sagemaker_fleet.dispatch.pool_ends import unstarted_groups

if TYPE_CHECKING:
    from sagemaker_fleet.dispatch.book import QuotaKey, Turn
    from sagemaker_fleet.dispatch.state import RunView, Wait


@dataclass
class Ledger:
    """One admission pass's counts, read from the run (:func:`read`) and booked on as cities are let through: per
    group its running and ended cities, idle pools (``idle``), other runs' pools not yet its to take
    (``reserved``), cold starts left and pools to come; instances used per quota, and other runs' (``others``)."""

    running: Counter[str]
    ended: Counter[str]
    used: Counter[QuotaKey]
    idle: Counter[str]
    reserved: Counter[str]
    others: Counter[QuotaKey]
    left: Counter[str]
    coming: Counter[str]
    #: per group, cities of this pass that wait for a pool to come
    held_back: Counter[str] = field(default_factory=Counter)

    @classmethod
    def read(cls, view: RunView) -> Ledger:
        running, ended = group_counts(view)
        held = holdings(view)
        left, coming = cold_budget(view, held.pending_warm)
        return cls(running, ended, held.used, held.idle, held.reserved, held.others, left, coming)


def has_turn(
    view: RunView, turn: Turn, running: Counter[str], ended: Counter[str], waited: float, held: int = 0
) -> bool:
    """By start order: fewer than the width run (or are about to: ``held`` places of cities handed a pool) and
    enough of the group's cities have ended; or the group has stalled (``waited`` the cadence's stall while
    nothing of it runs: whoever holds the group never started)."""
    width = view.book.widths[turn.group]
    if view.options.one_at_a_time:
        return True
    if running[turn.group] == 0 and waited >= view.cadence.stall_seconds:
        return True
    return running[turn.group] + held < width and ended[turn.group] >= turn.rank - width + 1


def must_wait_for_pool(view: RunView, ledger: Ledger, turn: Turn, wait: Wait, waiting: int = 0) -> bool:
    """Whether ``wait``'s city would start cold beyond its group's planned cold starts while a pool may come to
    it: fewer of its group's cities already wait for one (``waiting``) than pools may come. The others start
    cold: with pools lost (their keep-alive ran out while the triggerer was down), holding every city back for
    the few pools still to come would shrink the group to its running jobs for the rest of the run."""
    group, options = turn.group, view.options
    if not wait.first or group not in view.book.cold_starts or options.carry_pools or options.one_at_a_time:
        return False
    if ledger.idle[group] > 0 or turn.quota_for(wait.attempt)[1] != "instances":
        return False  # it takes a pool (or is a spot submission, which never does)
    return ledger.left[group] <= 0 and waiting < ledger.coming[group]


def admit(view: RunView, waiting: Sequence[Wait], now: float) -> list[str]:
    """The waiting cities that may start now: those a freed pool is handed to (:func:`~.handoff.handoffs`) first,
    then the rest in the run's planned order; each counts as pending from here until the listing shows its job (or
    :meth:`RunTracker.release`). A city handed a pool holds a place in its group's width wherever it waits, so a
    triggerer without it does not give that place to the next city in start order."""
    book, state, shares = view.book, view.state, view.shares
    ledger = Ledger.read(view)
    handed_out = handoffs(view) if view.options.rules.image_handoff else {}
    held = Counter(book.turns[city].group for city in handed_out if city not in state.pending)
    known = [w for w in waiting if w.city in book.turns]
    admitted = [w.city for w in waiting if w.city not in book.turns]  # outside the plan: no order
    last = len(handed_out)
    reserve = shares.begin(ledger.used) if shares is not None else {}
    demand = Demand()
    for wait in sorted(known, key=lambda w: (handed_out.get(w.city, last), book.turns[w.city].order)):
        turn = book.turns[wait.city]
        group = turn.group
        handed = wait.city in handed_out and wait.city not in state.pending
        if wait.first and (
            ledger.running[group] >= book.widths[group]
            if handed
            else not has_turn(view, turn, ledger.running, ledger.ended, now - wait.since, held[group])
        ):
            continue
        if must_wait_for_pool(view, ledger, turn, wait, ledger.held_back[group]):
            ledger.held_back[group] += 1
            demand.wants[group] += 1
            continue
        pools = ledger.idle[group]
        if not pools and ledger.reserved[group] and turn.quota_for(wait.attempt)[1] == "instances":
            demand.blocked(turn, wait.attempt)  # waits, for that pool or for room
            continue  # it would take another run's pool that run's own city may take now (account.py)
        if not claim(
            view, turn, wait.attempt, ledger.used, ledger.idle, others=ledger.others, reserve=reserve
        ):
            demand.blocked(turn, wait.attempt)
            continue
        if ledger.idle[group] < pools and shares is not None:
            shares.took_pool(turn, ledger.used, reserve)
        if wait.first and ledger.idle[group] == pools:
            ledger.left[group] -= 1  # started cold
        ledger.running[group] += 1
        if handed:
            held[group] -= 1
        state.pending[wait.city] = wait.attempt
        admitted.append(wait.city)
    state.short_of = frozenset(itype for itype, _ in demand.needed)
    if shares is not None:
        busy = {book.turns[city].group for city in state.pending if city in book.turns}
        shares.post(demand, ledger.used - ledger.others, unstarted_groups(view), busy)
    return admitted


def waiting_reason(view: RunView, wait: Wait, now: float) -> str:
    """Why ``wait.city`` has not been admitted, for its task log (reads only)."""
    book = view.book
    turn = book.turns.get(wait.city)
    if turn is None:
        return "waits for the run's first listing"
    running, ended = group_counts(view)
    width = book.widths[turn.group]
    if wait.first and not has_turn(view, turn, running, ended, now - wait.since):
        needed = max(1, turn.rank - width + 1 - ended[turn.group])
        reason = (
            f"waits for {needed} more job(s) of group {turn.group} to end "
            f"(rank {turn.rank + 1} of {len(book.members[turn.group])}, width {width}, "
            f"{running[turn.group]} running)"
        )
        if running[turn.group] == 0:
            reason += (
                f"; none of the group runs: the cities before it have not started (their task instances wait "
                f"for the scheduler, a worker or a pool slot), so it starts anyway after "
                f"{view.cadence.stall_seconds:.0f} s"
            )
        return reason
    if must_wait_for_pool(view, Ledger.read(view), turn, wait):
        return (
            f"waits for a warm pool of group {turn.group} (its {book.cold_starts[turn.group]} planned "
            "cold starts are used)"
        )
    shares = view.shares
    if shares is not None and not shares.board.ready:
        return (
            "waits for the account's board: the run takes no new instances until the runs that start with it "
            f"have read its first record ({view.cadence.start_settle_seconds:g} s; sharing)"
        )
    quota = turn.quota_for(wait.attempt)
    reason = f"waits for room in the {quota[0]} {quota[1]} quota (running jobs and idle pools)"
    reserve = shares.reserves().get(quota, 0) if shares is not None else 0
    if reserve:
        reason += f"; {reserve} instance(s) go first to runs ranked before this one (sharing)"
    return reason
