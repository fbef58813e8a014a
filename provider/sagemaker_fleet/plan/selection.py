"""How many cold slots each unit gives to groups that would rather keep warm pools ("extra cold lanes").

Warm slots are limited by the warm-pool quota; the rest of the instance quota can still run lanes, but their jobs
all start cold. They are used only where they pay: when they shorten the whole run by at least
:data:`MEANINGFUL_SHORTENING` (then as many as bring the run to its shortest), or else when the warm lanes alone
would miss ``deadline_seconds`` (then the fewest that meet it, or all if none do). Even then a unit gets only as
many as it needs to reach the run's target span: a unit that finishes early anyway gets none. Units of one pool
that run one after the other (see :mod:`.units`) are judged together, all or nothing.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

#: Extra cold lanes are worth their cold starts only if they shorten the run by at least this share.
MEANINGFUL_SHORTENING = 0.05
#: Slack on the target span, so that no cold slot is added to win less than this share of the run.
SETTLE_SHARE = 0.005


@dataclass(frozen=True)
class UnitChoice:
    """A unit's span as a function of its extra cold slots ``0..limit`` (non-increasing)."""

    span: Callable[[int], float]
    limit: int
    pool: int = 0
    sequential: bool = False  # runs after the previous unit of its pool


def _pool_spans(
    choices: Sequence[UnitChoice], extra: Callable[[UnitChoice], int], latency: int
) -> dict[int, float]:
    """The span of each pool: its units side by side (the longest), or one after the other (the sum)."""
    pools: dict[int, list[UnitChoice]] = {}
    for choice in choices:
        pools.setdefault(choice.pool, []).append(choice)
    spans = {}
    for pool, members in pools.items():
        each = [choice.span(extra(choice)) for choice in members]
        chained = any(choice.sequential for choice in members)
        spans[pool] = sum(each) + latency * (len(each) - 1) if chained else max(each)
    return spans


def _fewest(choice: UnitChoice, target: float) -> int:
    if choice.span(0) <= target:
        return 0
    low, high = 0, choice.limit  # span(low) > target; span(high) may still exceed it: then high it is
    while high - low > 1:
        middle = (low + high) // 2
        if choice.span(middle) <= target:
            high = middle
        else:
            low = middle
    return high


def _target(natural: float, best: float, deadline: int | None) -> float | None:
    if best <= (1.0 - MEANINGFUL_SHORTENING) * natural:
        return best * (1.0 + SETTLE_SHARE)
    if deadline is not None and natural > deadline:
        return max(float(deadline), best * (1.0 + SETTLE_SHARE))
    return None


def choose_extra_cold(choices: Sequence[UnitChoice], deadline: int | None, latency: int = 0) -> list[int]:
    """Extra cold slots per unit, following the rule in the module docstring."""
    natural_spans = _pool_spans(choices, lambda choice: 0, latency)
    natural = max(natural_spans.values())
    best = max(_pool_spans(choices, lambda choice: choice.limit, latency).values())
    target = _target(natural, best, deadline)
    if target is None:
        return [0] * len(choices)
    chained = {choice.pool for choice in choices if choice.sequential}

    def extra(choice: UnitChoice) -> int:
        if choice.pool in chained:
            return choice.limit if natural_spans[choice.pool] > target else 0
        return _fewest(choice, target)

    return [extra(choice) for choice in choices]
