"""``plan_fleet``: the pool-aware plan of one run — lanes within quotas, job order, keep-alive per job.

Steps: durations (spec or history) → groups by matching key → capacity pools per instance type → units and
their slots (:mod:`.units`) → how many extra cold slots to use (:mod:`.selection`) → slot layouts
(:mod:`.slots`) → jobs placed in virtual time (:mod:`.schedule`), warm lanes keeping their image where that costs
at most 1 % of makespan → the plan (:mod:`.assemble`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from sagemaker_fleet.fleetspec.names import validate_run_key
from sagemaker_fleet.plan.advice import fleet_advice
from sagemaker_fleet.plan.assemble import assemble_plan
from sagemaker_fleet.plan.capacity import capacity_pools, keeps_pools
from sagemaker_fleet.plan.durations import expected_training_seconds, startup_model
from sagemaker_fleet.plan.groups import group_cities
from sagemaker_fleet.plan.keepalive import warm_reuse_possible
from sagemaker_fleet.plan.lane_images import group_lane_images, image_changes
from sagemaker_fleet.plan.notes import keep_alive_notes, latency_note, pool_notes
from sagemaker_fleet.plan.schedule import latest_release, schedule_unit
from sagemaker_fleet.plan.selection import MEANINGFUL_SHORTENING, UnitChoice, choose_extra_cold
from sagemaker_fleet.plan.slots import ORDERS, GroupLoad, PoolUnit, SlotLayout, layout_slots
from sagemaker_fleet.plan.units import group_load, pool_units

if TYPE_CHECKING:
    from collections.abc import Sequence

    from sagemaker_fleet.fleetspec.model import FleetSpec
    from sagemaker_fleet.plan.fleet_plan import FleetPlan
    from sagemaker_fleet.plan.history import DurationHistory
    from sagemaker_fleet.plan.schedule import ScheduledLane

#: Units with at most this many jobs are judged by scheduling them, not by the slot layout's estimate.
EXACT_JOBS = 2000
#: Keeping a lane's image (see :mod:`.waiting`) may lengthen the planned makespan by at most this share against
#: the same fleet planned without it; beyond that the plan without it is taken.
IMAGE_ORDER_SLACK = 0.01


class _Fleet:
    """The fixed inputs of one planning (groups, pools, units, start-up model); lays out and schedules them."""

    def __init__(self, spec: FleetSpec, history: DurationHistory | None, *, image_order: bool = True) -> None:
        self.image_order = image_order
        training = [expected_training_seconds(city, history) for city in spec.cities]
        self.latency = spec.orchestration_latency_seconds
        self.startup = startup_model(spec, history)
        self.groups = group_cities(spec, training)
        self.pools, self.pool_of = capacity_pools(spec, self.groups)
        reuse = warm_reuse_possible(self.latency)
        self.eligible = [reuse and keeps_pools(g, self.pools[self.pool_of[g.index]]) for g in self.groups]
        self.units: list[PoolUnit] = []
        for pool in self.pools:
            members = [g for g in self.groups if self.pool_of[g.index] == pool.index]
            self.units += pool_units(pool, members, self.eligible, self.startup, self.latency)
        self._layouts: dict[tuple[int, int, str], SlotLayout] = {}
        self._chosen: dict[tuple[int, int], tuple[SlotLayout, float]] = {}

    def loads(self, unit: PoolUnit) -> list[GroupLoad]:
        return [group_load(self.groups[g], self.eligible[g] and unit.warm_slots > 0) for g in unit.groups]

    def _layout(self, index: int, extra_cold: int, order: str) -> SlotLayout:
        if (index, extra_cold, order) not in self._layouts:
            unit = self.units[index]
            layout = layout_slots(unit, self.loads(unit), self.startup, self.latency, extra_cold, order)
            self._layouts[index, extra_cold, order] = layout
        return self._layouts[index, extra_cold, order]

    def _exact(self, index: int) -> bool:
        return sum(len(self.groups[g].tasks) for g in self.units[index].groups) <= EXACT_JOBS

    def _run(self, index: int, layout: SlotLayout, start: int = 0) -> list[ScheduledLane]:
        unit = self.units[index]
        members = {g: (self.groups[g], self.eligible[g]) for g in unit.groups}
        return schedule_unit(
            unit, layout, members, self.startup, self.latency, start, image_order=self.image_order
        )

    def layout(self, index: int, extra_cold: int) -> SlotLayout:
        """The unit's layout; small units try every pouring order and keep the one that schedules shortest."""
        return self._best(index, extra_cold)[0]

    def span(self, index: int, extra_cold: int) -> float:
        """Expected span of a unit: scheduled exactly when it is small enough (whole jobs matter there), else
        the slot layout's estimate (accurate when lanes get many jobs each)."""
        return self._best(index, extra_cold)[1]

    def _best(self, index: int, extra_cold: int) -> tuple[SlotLayout, float]:
        if (index, extra_cold) not in self._chosen:
            if self._exact(index):
                layouts = [self._layout(index, extra_cold, order) for order in ORDERS]
                spans = [float(_makespan(self._run(index, layout))) for layout in layouts]
                best = min(range(len(layouts)), key=lambda i: (spans[i], i))
                self._chosen[index, extra_cold] = (layouts[best], spans[best])
            else:
                layout = self._layout(index, extra_cold, ORDERS[0])
                self._chosen[index, extra_cold] = (layout, layout.span)
        return self._chosen[index, extra_cold]

    def choices(self) -> list[UnitChoice]:
        def choice(index: int) -> UnitChoice:
            unit = self.units[index]
            wants_warm = unit.warm_slots > 0 and any(self.eligible[g] for g in unit.groups)
            limit = unit.slots - unit.warm_slots if wants_warm else 0
            return UnitChoice(
                span=lambda extra: self.span(index, extra),
                limit=limit,
                pool=unit.pool,
                sequential=unit.sequential,
            )

        return [choice(index) for index in range(len(self.units))]

    def schedule(self, extra_cold: Sequence[int]) -> list[ScheduledLane]:
        lanes: list[ScheduledLane] = []
        pool_end: dict[int, int] = {}
        for index, unit in enumerate(self.units):
            start = pool_end.get(unit.pool, 0) + self.latency if unit.sequential else 0
            placed = self._run(index, self.layout(index, extra_cold[index]), start)
            pool_end[unit.pool] = max(pool_end.get(unit.pool, 0), latest_release(placed))
            lanes += placed
        return lanes


def _makespan(lanes: Sequence[ScheduledLane]) -> int:
    return max(lane.end for lane in lanes)


def _image_changes(lanes: Sequence[ScheduledLane]) -> int:
    return sum(image_changes(lane.jobs) for lane in lanes)


def _choose(fleet: _Fleet, deadline: int | None) -> list[ScheduledLane]:
    """Schedule the warm lanes alone and, where the estimates call for them, with extra cold lanes; keep the
    extra lanes only when the scheduled run is meaningfully shorter, or when they are needed for (or bring the
    run closer to) a deadline the warm lanes miss."""
    choices = fleet.choices()
    natural = fleet.schedule([0] * len(choices))
    wanted = choose_extra_cold(choices, deadline, fleet.latency)
    if not any(wanted):
        return natural
    candidates = [fleet.schedule(wanted)]
    late = deadline is not None and _makespan(natural) > deadline
    everything = [choice.limit for choice in choices]
    if late and deadline is not None and _makespan(candidates[0]) > deadline and wanted != everything:
        candidates.append(fleet.schedule(everything))
    best = min(candidates, key=_makespan)
    if _makespan(best) <= (1.0 - MEANINGFUL_SHORTENING) * _makespan(natural):
        return best
    if late and _makespan(best) < _makespan(natural):
        return best
    return natural


def _mixes_images(fleet: _Fleet) -> bool:
    """Whether some group that may keep warm pools has cities with different images (else the order is moot)."""
    return any(fleet.eligible[g.index] and len({task.image for task in g.tasks}) > 1 for g in fleet.groups)


def _lanes(
    spec: FleetSpec, history: DurationHistory | None, *, prefer_image: bool, regroup: bool
) -> tuple[_Fleet, list[ScheduledLane]]:
    fleet = _Fleet(spec, history, image_order=prefer_image)
    lanes = _choose(fleet, spec.deadline_seconds)
    if regroup:
        group_lane_images(lanes, fleet.startup, fleet.latency)
    return fleet, lanes


def _schedule(
    spec: FleetSpec, history: DurationHistory | None, image_order: bool
) -> tuple[_Fleet, list[ScheduledLane]]:
    """The fleet's lanes. With ``image_order``, warm lanes prefer their image while scheduling and then run each
    image's jobs back to back (:mod:`.lane_images`); the preference is dropped (not the regrouping, which never
    lengthens a lane) when it costs more than :data:`IMAGE_ORDER_SLACK` of the makespan, or saves no pull."""
    fleet, lanes = _lanes(spec, history, prefer_image=image_order, regroup=image_order)
    if not image_order or not _mixes_images(fleet):
        return fleet, lanes
    plain, plain_lanes = _lanes(spec, history, prefer_image=False, regroup=True)
    slower = _makespan(lanes) > (1.0 + IMAGE_ORDER_SLACK) * _makespan(plain_lanes)
    if slower or _image_changes(lanes) > _image_changes(plain_lanes):
        return plain, plain_lanes
    return fleet, lanes


def plan_fleet(
    spec: FleetSpec, run_key: str, history: DurationHistory | None = None, *, image_order: bool = True
) -> FleetPlan:
    """Plan one run of ``spec``. Raises :class:`~sagemaker_fleet.plan.errors.PlanError` when a city cannot fit
    its quota at all, and :class:`~sagemaker_fleet.fleetspec.names.InvalidRunKeyError` for a bad run key.

    ``image_order=False`` plans without preferring a lane's image (what ``benchmarks/bench_image_order.py``
    compares against)."""
    validate_run_key(run_key)
    fleet, lanes = _schedule(spec, history, image_order)
    notes = latency_note(fleet.latency) + pool_notes(
        fleet.pools, fleet.groups, fleet.pool_of, lanes, fleet.latency
    )
    notes += keep_alive_notes(lanes) + fleet_advice(spec)
    pool_of_group = {g.group_id: fleet.pools[fleet.pool_of[g.index]].label for g in fleet.groups}
    return assemble_plan(spec, run_key, fleet.groups, lanes, pool_of_group, notes)
