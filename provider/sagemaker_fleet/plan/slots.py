"""Lay each unit's groups onto its slots so that all slots end together: McNaughton's wrap-around rule.

Groups are poured, largest first, into slots one after the other up to a common span ``T``; a group that does
not fit in what is left of a slot continues on the next one, so a slot may run a lane of one group and then a
lane of the next. The smallest ``T`` for which everything fits is found by bisection. Jobs are counted as
fractions of their group's average job here (a lane's first job pays a cold start, later ones a warm or cold
start plus one orchestration latency); the scheduler then places the actual jobs, longest first. Slots the pour
leaves empty are used all the same: a lane waiting behind another moves there, or the group with the most work
per lane gets one more lane — whole jobs of different lengths balance better over more lanes.

Warm slots come first. Groups that may keep pools (*eligible*) are poured first and use warm slots, and — only up
to ``extra_cold`` of them — cold slots; the other groups (spot, or without warm-pool quota) follow on any slot.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from sagemaker_fleet.plan.durations import StartupSeconds

_TINY = 1e-6


@dataclass(frozen=True)
class PoolUnit:
    """Lanes of one width (instances per job) on ``slots`` slots of a pool, the first ``warm_slots`` warm."""

    pool: int
    width: int
    slots: int
    warm_slots: int
    groups: tuple[int, ...]  # group indices
    sequential: bool = False  # runs after the pool's previous unit instead of beside it


@dataclass(frozen=True)
class GroupLoad:
    """A group as the slot layout sees it: how many jobs, how long on average and at most, may it keep pools."""

    group: int
    jobs: int
    training_total: int
    training_max: int
    eligible: bool

    @property
    def training_mean(self) -> float:
        return self.training_total / self.jobs


@dataclass(frozen=True)
class Piece:
    """A lane planned on a slot. ``budget``: seconds the lane may run before handing its slot to the next lane
    planned there (None when it is the slot's last lane: it simply runs until its group has no jobs left)."""

    group: int
    budget: float | None


@dataclass(frozen=True)
class SlotLayout:
    span: float
    warm: tuple[bool, ...]
    pieces: tuple[tuple[Piece, ...], ...]


class _Lane:
    """Job arithmetic of one lane of one group, every job taken as the group's average one."""

    def __init__(self, load: GroupLoad, startup: StartupSeconds, latency: int, *, warm: bool) -> None:
        self.first = startup.cold + load.training_mean
        self.next = latency + startup.of(warm=warm) + load.training_mean

    def jobs_in(self, seconds: float) -> float:
        if seconds <= self.first:
            return seconds / self.first
        return 1.0 + (seconds - self.first) / self.next

    def seconds_for(self, jobs: float) -> float:
        if jobs <= 1.0:
            return jobs * self.first
        return self.first + (jobs - 1.0) * self.next


class _Pour:
    def __init__(
        self, unit: PoolUnit, startup: StartupSeconds, latency: int, extra_cold: int, span: float
    ) -> None:
        self.unit = unit
        self.startup = startup
        self.latency = latency
        self.eligible_limit = unit.warm_slots + extra_cold if unit.warm_slots > 0 else unit.slots
        self.span = span
        self.slot = 0
        self.used = 0.0
        self.pieces: list[list[tuple[int, float]]] = []

    def pour(self, load: GroupLoad) -> bool:
        remaining = float(load.jobs)
        limit = self.eligible_limit if load.eligible else self.unit.slots
        while remaining > _TINY:
            if self.slot >= limit:
                return False
            start = self.used + (self.latency if self.used > 0 else 0)
            lane = _Lane(
                load, self.startup, self.latency, warm=load.eligible and self.slot < self.unit.warm_slots
            )
            if self.span - start < lane.first:
                if self.used == 0:
                    return False  # not even one job fits a whole slot: the span is too short
                self._next_slot()
                continue
            take = min(lane.jobs_in(self.span - start), remaining)
            while len(self.pieces) <= self.slot:
                self.pieces.append([])
            self.pieces[self.slot].append((load.group, lane.seconds_for(take)))
            remaining -= take
            self.used = start + lane.seconds_for(take)
            if remaining > _TINY:
                self._next_slot()
        return True

    def _next_slot(self) -> None:
        self.slot += 1
        self.used = 0.0

    @property
    def slots_used(self) -> int:
        return len(self.pieces)

    def spread(self, loads: Sequence[GroupLoad]) -> None:
        """Use the slots the pour left empty (see the module docstring)."""
        self.pieces += [[] for _ in range(self.unit.slots - len(self.pieces))]
        by_group = {load.group: load for load in loads}
        for empty in [index for index, pieces in enumerate(self.pieces) if not pieces]:
            if not self._move_waiting(empty, by_group):
                self._add_lane(empty, by_group)

    def _allowed(self, load: GroupLoad, slot: int) -> bool:
        return not load.eligible or slot < self.eligible_limit

    def _move_waiting(self, empty: int, by_group: dict[int, GroupLoad]) -> bool:
        donors = [
            index
            for index, pieces in enumerate(self.pieces)
            if len(pieces) > 1 and self._allowed(by_group[pieces[-1][0]], empty)
        ]
        if not donors:
            return False
        donor = max(donors, key=lambda index: (self.pieces[index][-1][1], -index))
        self.pieces[empty].append(self.pieces[donor].pop())
        return True

    def _add_lane(self, empty: int, by_group: dict[int, GroupLoad]) -> None:
        seconds: dict[int, float] = {}
        lanes: dict[int, int] = {}
        for pieces in self.pieces:
            for group, length in pieces:
                seconds[group] = seconds.get(group, 0.0) + length
                lanes[group] = lanes.get(group, 0) + 1
        wanting = [g for g in seconds if lanes[g] < by_group[g].jobs and self._allowed(by_group[g], empty)]
        if wanting:
            group = max(wanting, key=lambda g: (seconds[g] / lanes[g], -g))
            self.pieces[empty].append((group, seconds[group] / (lanes[group] + 1)))


#: Orders in which groups can be poured: most work first (the big groups get the warm slots), or longest job
#: first (no long job waits behind another group's lane — what matters when groups have few jobs each).
ORDERS = ("work", "longest")


def _order(
    loads: Sequence[GroupLoad], startup: StartupSeconds, latency: int, by: str = "work"
) -> list[GroupLoad]:
    """Eligible groups first (they take the warm slots), each part in the order ``by``."""

    def work(load: GroupLoad) -> float:
        return load.jobs * (load.training_mean + startup.warm + latency)

    if by == "longest":
        return sorted(
            loads, key=lambda load: (not load.eligible, -load.training_max, -work(load), load.group)
        )
    return sorted(loads, key=lambda load: (not load.eligible, -work(load), load.group))


def _pour_all(
    unit: PoolUnit,
    loads: Sequence[GroupLoad],
    startup: StartupSeconds,
    latency: int,
    extra_cold: int,
    span: float,
) -> _Pour | None:
    state = _Pour(unit, startup, latency, extra_cold, span)
    return state if all(state.pour(load) for load in loads) else None


def layout_slots(
    unit: PoolUnit,
    loads: Sequence[GroupLoad],
    startup: StartupSeconds,
    latency: int,
    extra_cold: int,
    order: str = "work",
) -> SlotLayout:
    """The shortest layout of ``loads`` on ``unit`` that uses at most ``extra_cold`` cold slots for eligible
    groups (beyond the warm slots), pouring the groups in ``order`` (one of :data:`ORDERS`)."""
    ordered = _order(loads, startup, latency, order)
    low = max(startup.cold + load.training_max for load in loads) - 1.0
    high = sum(_Lane(load, startup, latency, warm=False).seconds_for(load.jobs) + latency for load in loads)
    best = _pour_all(unit, ordered, startup, latency, extra_cold, high)
    while best is None:  # cannot happen with ≥ 1 usable slot; doubles defensively instead of looping forever
        high *= 2
        best = _pour_all(unit, ordered, startup, latency, extra_cold, high)
    while high - low > 1.0:
        middle = (low + high) / 2
        attempt = _pour_all(unit, ordered, startup, latency, extra_cold, middle)
        if attempt is None:
            low = middle
        else:
            high, best = middle, attempt
    best.spread(loads)
    return _freeze(unit, best)


def slots_needed(
    loads: Sequence[GroupLoad], width: int, startup: StartupSeconds, latency: int, span: float
) -> int | None:
    """How many cold slots ``loads`` need to end by ``span`` (None: not even with one job per slot)."""
    unit = PoolUnit(pool=-1, width=width, slots=sum(load.jobs for load in loads), warm_slots=0, groups=())
    poured = _pour_all(unit, _order(loads, startup, latency), startup, latency, 0, span)
    return None if poured is None else poured.slots_used


def _freeze(unit: PoolUnit, poured: _Pour) -> SlotLayout:
    pieces = []
    span = 0.0
    poured.pieces += [[] for _ in range(unit.slots - len(poured.pieces))]
    for slot in poured.pieces:
        planned = [
            Piece(group=group, budget=seconds if index + 1 < len(slot) else None)
            for index, (group, seconds) in enumerate(slot)
        ]
        pieces.append(tuple(planned))
        span = max(span, sum(seconds for _, seconds in slot) + poured.latency * max(0, len(slot) - 1))
    warm = tuple(index < unit.warm_slots for index in range(unit.slots))
    return SlotLayout(span=span, warm=warm, pieces=tuple(pieces))
