"""The hand-off: which waiting city takes each idle pool of the run (pure; the rule: the module docstring of
:mod:`.tracker`). From the listing and the book alone, so every triggerer of the run hands alike."""

from __future__ import annotations

from collections import Counter
from typing import TYPE_CHECKING

from sagemaker_fleet.jobs.statuses import POOL_AVAILABLE
from sagemaker_fleet.jobs.statuses import TERMINAL_STATUSES as TERMINAL

if TYPE_CHECKING:
    from sagemaker_fleet.dispatch.book import DispatchBook, Turn
    from sagemaker_fleet.dispatch.state import RunView


def handoffs(view: RunView) -> dict[str, int]:
    """Who takes each idle pool: city → its place in the order the pools are handed out (the pools' cities in
    planned order); a city already admitted here keeps the pool it was handed."""
    book, state = view.book, view.state
    pools: dict[str, list[Turn]] = {}
    for name, job in state.jobs.items():
        turn = book.turns.get(job.city)
        if (
            turn is not None
            and turn.warm_pool
            and job.status in TERMINAL
            and job.pool == POOL_AVAILABLE
            and name not in state.released.pools
        ):
            pools.setdefault(turn.group, []).append(turn)
    # a job created here but not listed yet took one of the pools the listing still shows Available
    taken = Counter(book.turns[c].group for c in state.pending if c in state.latest)
    handed: dict[str, int] = {}
    for group, freed in sorted(pools.items()):
        unstarted = [c for c in book.members[group] if c not in state.latest]
        if not unstarted:
            continue
        limit = book.turns[unstarted[0]].rank + 2 * book.widths[group] - 1
        for turn in sorted(freed, key=lambda t: t.order)[taken[group] :]:
            chosen = successor(book, turn, unstarted, limit)
            if chosen is not None:
                unstarted.remove(chosen)
                handed[chosen] = len(handed)
            if not unstarted:
                break
    return handed


def successor(book: DispatchBook, freed: Turn, unstarted: list[str], limit: int) -> str | None:
    """The unstarted city that takes the pool ``freed``'s job left: the earliest if it has the pool's image,
    else the plan's lane successor with it, else the earliest with it, within ``limit`` (a rank); None: no
    city with the image is near its turn (the pool goes by start order)."""
    turns = book.turns
    if turns[unstarted[0]].image == freed.image:
        return unstarted[0]
    near = [c for c in unstarted if turns[c].rank <= limit and turns[c].image == freed.image]
    if freed.successor in near:
        return freed.successor
    return near[0] if near else None
