"""Which warm-pool group each job of a run is in: its city's group, named as the plan names it.

The plan numbers groups with :func:`sagemaker_fleet.jobs.groups.spec_groups` over the spec as the run trained it
(its params applied); with the run's plan at hand its numbering is read from it, without one the spec's is computed
the same way, so ``g0`` in the report is ``g0`` in the plan, the Fleet view and the task logs. A job whose city is in
neither (a city removed from the file since the run, say) joins the group whose matching key and spot are its own,
else a group of its own numbered after the planned ones, in (instance type, count, role, spot) order.

The plan reaches this layer as values that fit :class:`RunPlan` (a ``FleetPlan`` does): the cost model does not
import the planner.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Protocol

from sagemaker_fleet.jobs.groups import city_groups, group_id, group_label, spec_groups

if TYPE_CHECKING:
    from sagemaker_fleet.fleetspec.model import FleetSpec
    from sagemaker_fleet.jobs.keys import WarmPoolKey
    from sagemaker_fleet.jobs.record import TrainingJobRecord


class PlannedGroup(Protocol):
    """A group of the plan (``PoolGroup``): its id, matching key and spot."""

    @property
    def group(self) -> str: ...
    @property
    def key(self) -> WarmPoolKey: ...
    @property
    def spot(self) -> bool: ...


class PlannedJobStart(Protocol):
    """A city's job as planned (``PlannedJob``): what the report compares with what ran."""

    @property
    def city(self) -> str: ...
    @property
    def job_name(self) -> str: ...
    @property
    def group(self) -> str: ...
    @property
    def start(self) -> str: ...
    @property
    def keep_alive_seconds(self) -> int: ...


class RunPlan(Protocol):
    """The run's plan as the report reads it (a ``FleetPlan`` fits)."""

    @property
    def fleet(self) -> str: ...
    @property
    def run_key(self) -> str: ...
    @property
    def groups(self) -> Sequence[PlannedGroup]: ...
    @property
    def jobs(self) -> Sequence[PlannedJobStart]: ...
    def predecessor(self, city: str) -> PlannedJobStart | None: ...


@dataclass(frozen=True)
class GroupInfo:
    """A warm-pool group as the report shows it. ``planned``: a group of the plan (or of the spec, without a
    plan); False for jobs whose city is in neither, grouped by their own key."""

    id: str
    label: str
    instance_type: str
    instance_count: int
    spot: bool
    key: WarmPoolKey | None
    planned: bool = True

    @classmethod
    def of(
        cls, group: str, key: WarmPoolKey | None, spot: bool, instance_type: str, instance_count: int
    ) -> GroupInfo:
        return cls(
            id=group,
            label=group_label(key, spot, instance_type, instance_count),
            instance_type=instance_type,
            instance_count=instance_count,
            spot=spot,
            key=key,
        )


def planned_groups(spec: FleetSpec, plan: RunPlan | None) -> tuple[list[GroupInfo], dict[str, str]]:
    """The run's groups and each planned city's group: the plan's, else the spec's (the same numbering)."""
    if plan is not None:
        groups = [
            GroupInfo.of(g.group, g.key, g.spot, g.key.instance_type, g.key.instance_count)
            for g in plan.groups
        ]
        return groups, {job.city: job.group for job in plan.jobs}
    groups = [GroupInfo.of(g.id, g.key, g.spot, g.instance_type, g.instance_count) for g in spec_groups(spec)]
    return groups, city_groups(spec)


def _sort_key(record: TrainingJobRecord) -> tuple[str, ...]:
    key = record.pool_key
    role = key.role_arn if key else ""
    return (record.instance_type, f"{record.instance_count:04d}", role, str(record.spot), repr(key))


def assign_groups(
    jobs: Sequence[tuple[str, TrainingJobRecord]], spec: FleetSpec, plan: RunPlan | None
) -> tuple[tuple[GroupInfo, ...], dict[str, str]]:
    """The groups the report shows and each job's group (job name → id), for ``jobs`` as (city, record).

    Shown: every group of the plan; without a plan, the spec's groups that have a job; then the groups of jobs
    whose city is in neither."""
    known, of_city = planned_groups(spec, plan)
    by_key = {(g.key, g.spot): g.id for g in reversed(known)}  # the first group of a key and spot wins
    group_of: dict[str, str] = {}
    strays: list[TrainingJobRecord] = []
    for city, record in jobs:
        found = of_city.get(city) or by_key.get((record.pool_key, record.spot))
        if found is None:
            strays.append(record)
        else:
            group_of[record.name] = found
    extra: dict[tuple[str, ...], GroupInfo] = {}
    for record in sorted(strays, key=_sort_key):
        info = extra.get(_sort_key(record))
        if info is None:
            info = dataclasses.replace(
                GroupInfo.of(
                    group_id(len(known) + len(extra)),
                    record.pool_key,
                    record.spot,
                    record.instance_type,
                    record.instance_count,
                ),
                planned=False,
            )
            extra[_sort_key(record)] = info
        group_of[record.name] = info.id
    used = set(group_of.values())
    shown = [g for g in known if plan is not None or g.id in used]
    return (*shown, *extra.values()), group_of
