"""Turn scheduled lanes into the plan's value objects: numbered lanes, planned jobs, groups, summary."""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING

from sagemaker_fleet.fleetspec.names import job_name
from sagemaker_fleet.plan.fleet_plan import FleetPlan
from sagemaker_fleet.plan.model import Lane, PlannedJob, PoolGroup
from sagemaker_fleet.plan.summary import summarize

if TYPE_CHECKING:
    from sagemaker_fleet.fleetspec.model import FleetSpec
    from sagemaker_fleet.plan.groups import CityGroup
    from sagemaker_fleet.plan.schedule import ScheduledLane


def _planned_lane(
    spec: FleetSpec, run_key: str, group: CityGroup, number: int, scheduled: ScheduledLane
) -> Lane:
    jobs = tuple(
        PlannedJob(
            city=job.task.name,
            job_name=job_name(spec.fleet, job.task.name, run_key),
            group=group.group_id,
            lane=number,
            position=position,
            spot=group.spot,
            warm_pool=scheduled.warm,
            start="warm" if job.warm_start else "cold",
            keep_alive_seconds=job.keep_alive,
            expected_seconds=job.task.training,
            planned_start_seconds=job.start,
            planned_end_seconds=job.end,
            image_change=job.image_change,
        )
        for position, job in enumerate(scheduled.jobs)
    )
    return Lane(lane=number, group=group.group_id, jobs=jobs)


def assemble_plan(
    spec: FleetSpec,
    run_key: str,
    groups: Sequence[CityGroup],
    scheduled: Sequence[ScheduledLane],
    pool_of_group: Mapping[str, str],
    warnings: Sequence[str] = (),
) -> FleetPlan:
    """Number lanes by group, then by the time their first job starts; jobs are listed lane by lane."""
    ordered = sorted(scheduled, key=lambda lane: (lane.group, lane.start, lane.slot))
    lanes = [
        _planned_lane(spec, run_key, groups[lane.group], number, lane) for number, lane in enumerate(ordered)
    ]
    lane_counts = Counter(lane.group for lane in ordered)
    warm_groups = {lane.group for lane in ordered if lane.warm}
    pool_groups = tuple(
        PoolGroup(
            group=group.group_id,
            key=group.key,
            spot=group.spot,
            warm_pool=group.index in warm_groups,
            lanes=lane_counts[group.index],
            jobs=len(group.tasks),
        )
        for group in groups
    )
    return FleetPlan(
        fleet=spec.fleet,
        run_key=run_key,
        groups=pool_groups,
        jobs=tuple(job for lane in lanes for job in lane.jobs),
        summary=summarize(lanes, pool_groups, pool_of_group),
        warnings=tuple(warnings),
        quotas={itype: spec.quotas[itype] for itype in spec.instance_types if itype in spec.quotas},
    )
