"""Split each capacity pool into *units*: lanes of one width (instances per job) over a number of slots.

A slot is the capacity of one lane (``instance_count`` instances) held for the whole run; lanes follow each other
on a slot. Warm slots also hold ``instance_count`` instances of warm-pool quota, so a lane on a warm slot may keep
a pool. Usually every group of a pool has the same instance count and the pool is one unit with
``instances // count`` slots. Groups of different counts get separate units that share the pool: the smallest
span for which the units' slots fit the instance quota decides their slots, spare instances go to the units by
work, and the warm-pool quota is shared by work too. When even one slot each does not fit, the units run one
after the other on the whole pool (``sequential``).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from sagemaker_fleet.plan.slots import GroupLoad, PoolUnit, layout_slots, slots_needed

if TYPE_CHECKING:
    from sagemaker_fleet.plan.capacity import CapacityPool
    from sagemaker_fleet.plan.durations import StartupSeconds
    from sagemaker_fleet.plan.groups import CityGroup


def group_load(group: CityGroup, eligible: bool) -> GroupLoad:
    return GroupLoad(
        group=group.index,
        jobs=len(group.tasks),
        training_total=group.training_total,
        training_max=group.training_max,
        eligible=eligible,
    )


def _largest_share(
    weights: Sequence[float], sizes: Sequence[int], budget: int, caps: Sequence[int]
) -> list[int]:
    """Hand out ``budget`` in slots (slot i costs ``sizes[i]``, at most ``caps[i]`` of them), one at a time to the
    unit with most weight per slot so far — the D'Hondt rule, so shares follow the weights."""
    given = [0] * len(sizes)
    left = budget
    while True:
        open_units = [
            i for i in range(len(sizes)) if sizes[i] <= left and given[i] < caps[i] and weights[i] > 0
        ]
        if not open_units:
            return given
        best = max(open_units, key=lambda i: (weights[i] / (given[i] + 1), -i))
        given[best] += 1
        left -= sizes[best]


class _Split:
    """Slots per width for a given span, by pouring each width's groups onto as many cold slots as needed."""

    def __init__(
        self, loads: dict[int, list[GroupLoad]], instances: int, startup: StartupSeconds, latency: int
    ) -> None:
        self.loads = loads
        self.instances = instances
        self.startup = startup
        self.latency = latency

    def needed(self, span: float) -> list[int] | None:
        counts = []
        for width, loads in self.loads.items():
            count = slots_needed(loads, width, self.startup, self.latency, span)
            if count is None:
                return None
            counts.append(count)
        fits = sum(width * count for width, count in zip(self.loads, counts, strict=True)) <= self.instances
        return counts if fits else None

    def smallest(self) -> list[int]:
        low = (
            max(self.startup.cold + load.training_max for loads in self.loads.values() for load in loads)
            - 1.0
        )
        high = 2.0 * low
        while (best := self.needed(high)) is None:
            high *= 2
        while high - low > 1.0:
            middle = (low + high) / 2
            attempt = self.needed(middle)
            if attempt is None:
                low = middle
            else:
                high, best = middle, attempt
        return best


def _work(load: GroupLoad, width: int, startup: StartupSeconds, latency: int) -> float:
    return float(width * (load.training_total + load.jobs * (startup.cold + latency)))


def _sequential(
    pool: CapacityPool, widths: Sequence[int], members: Sequence[tuple[int, ...]]
) -> list[PoolUnit]:
    warm = min(pool.warm_instances, pool.instances)
    return [
        PoolUnit(pool.index, w, pool.instances // w, warm // w, members[i], sequential=i > 0)
        for i, w in enumerate(widths)
    ]


def _span(
    units: Sequence[PoolUnit], loads: dict[int, list[GroupLoad]], startup: StartupSeconds, latency: int
) -> float:
    """Estimated span of a pool's units, each using all its slots: side by side, or one after the other."""
    spans = [layout_slots(unit, loads[unit.width], startup, latency, unit.slots).span for unit in units]
    if any(unit.sequential for unit in units):
        return sum(spans) + latency * (len(spans) - 1)
    return max(spans)


def pool_units(
    pool: CapacityPool,
    groups: Sequence[CityGroup],
    eligible: Sequence[bool],
    startup: StartupSeconds,
    latency: int,
) -> list[PoolUnit]:
    """The units of ``pool``; ``groups`` are the pool's groups, ``eligible`` indexed by group index."""
    loads: dict[int, list[GroupLoad]] = {}
    for group in sorted(groups, key=lambda g: (g.instance_count, g.index)):
        loads.setdefault(group.instance_count, []).append(group_load(group, eligible[group.index]))
    widths = list(loads)
    members = [tuple(load.group for load in loads[w]) for w in widths]
    if len(widths) == 1:
        only = widths[0]
        return [PoolUnit(pool.index, only, pool.instances // only, pool.warm_instances // only, members[0])]
    sequential = _sequential(pool, widths, members)
    if sum(widths) > pool.instances:
        return sequential
    slots = _Split(loads, pool.instances, startup, latency).smallest()
    work = [sum(_work(load, w, startup, latency) for load in loads[w]) for w in widths]
    spare = pool.instances - sum(w * n for w, n in zip(widths, slots, strict=True))
    caps = [sum(load.jobs for load in loads[w]) for w in widths]
    slots = [n + extra for n, extra in zip(slots, _largest_share(work, widths, spare, caps), strict=True)]
    wants_warm = [sum(_work(load, w, startup, latency) for load in loads[w] if load.eligible) for w in widths]
    warm = _largest_share(wants_warm, widths, pool.warm_instances, slots)
    beside = [
        PoolUnit(pool.index, w, slots[i], min(warm[i], slots[i]), members[i]) for i, w in enumerate(widths)
    ]
    # Side by side, a width with little work may keep a slot the others would need: then take turns.
    if _span(sequential, loads, startup, latency) < _span(beside, loads, startup, latency):
        return sequential
    return beside
