"""Warnings a plan carries for its reader: where quotas or settings keep the plan from using warm pools."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from sagemaker_fleet.fleetspec.render import some_names
from sagemaker_fleet.plan.keepalive import AUTO_KEEP_ALIVE_MAX, MIN_MARGIN_SECONDS, warm_reuse_possible

if TYPE_CHECKING:
    from sagemaker_fleet.plan.capacity import CapacityPool
    from sagemaker_fleet.plan.groups import CityGroup
    from sagemaker_fleet.plan.schedule import ScheduledLane


def latency_note(latency: int) -> list[str]:
    if warm_reuse_possible(latency):
        return []
    return [
        f"orchestration_latency_seconds {latency} leaves no room for warm pools (a pool must outlive the gap "
        f"plus {MIN_MARGIN_SECONDS} s within {AUTO_KEEP_ALIVE_MAX} s): every job is planned to start cold"
    ]


def pool_notes(
    pools: Sequence[CapacityPool],
    groups: Sequence[CityGroup],
    pool_of: Sequence[int],
    lanes: Sequence[ScheduledLane],
    latency: int,
) -> list[str]:
    """On-demand groups left without a warm pool because the warm-pool quota is used up or too small."""
    if not warm_reuse_possible(latency):
        return []  # the latency note says why
    warm_groups = {lane.group for lane in lanes if lane.warm}
    notes = []
    for pool in pools:
        cold = [
            g.label
            for g in groups
            if pool_of[g.index] == pool.index and not g.spot and g.index not in warm_groups
        ]
        if not cold:
            continue
        if pool.warm_instances == 0:
            why = f"{pool.instance_type} has no warm-pool quota (the AWS default is 0)"
        else:
            why = f"the {pool.instance_type} warm-pool quota ({pool.warm_instances} instance(s)) is used by other groups or too small"
        notes.append(
            f"{why}: {'; '.join(cold)} run without warm pools and every job of theirs starts cold; "
            "raise `warm_pools` (Service Quotas) to keep pools for them"
        )
    return notes


def keep_alive_notes(lanes: Sequence[ScheduledLane]) -> list[str]:
    """Cities whose explicit keep-alive was not applied because their lane keeps no pool."""
    dropped = sorted(
        job.task.name for lane in lanes if not lane.warm for job in lane.jobs if job.task.keep_alive
    )
    if not dropped:
        return []
    return [
        f"keep_alive of {some_names(dropped)} planned 0: their lanes keep no warm pool (no warm-pool quota left "
        "or spot), and a pool there would exceed the warm-pool quota"
    ]
