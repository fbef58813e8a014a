"""Capacity pools: the per-instance-type quotas that lanes of different groups share.

On-demand lanes of an instance type share its ``instances`` quota; those that keep warm pools also share its
``warm_pools`` quota. Warm-pool quota is counted in instances, as AWS counts it ("the number of instances that
you can retain"), and warm-pool instances count toward the instance quota too. Spot lanes use
``spot_instances`` when it is given, else they share ``instances`` with the on-demand lanes.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from sagemaker_fleet.plan.errors import PlanError

if TYPE_CHECKING:
    from sagemaker_fleet.fleetspec.model import FleetSpec, InstanceQuota
    from sagemaker_fleet.plan.groups import CityGroup


@dataclass(frozen=True)
class CapacityPool:
    """Instances that lanes draw from at the same time; ``warm_instances`` of them may be kept as pools."""

    index: int
    instance_type: str
    spot_only: bool
    instances: int
    warm_instances: int

    @property
    def label(self) -> str:
        return f"{self.instance_type} (spot quota)" if self.spot_only else self.instance_type


def _quota(spec: FleetSpec, instance_type: str) -> InstanceQuota:
    quota = spec.quotas.get(instance_type)
    if quota is None:
        raise PlanError(
            f"quotas: no entry for {instance_type}; add `quotas: {{{instance_type}: {{instances: N, "
            "warm_pools: N}}` with your account's Service Quotas"
        )
    return quota


def _check_fits(group: CityGroup, pool: CapacityPool) -> None:
    field = "spot_instances" if pool.spot_only else "instances"
    kind = "spot " if group.spot else ""
    if pool.instances == 0:
        raise PlanError(
            f"quotas.{pool.instance_type}.{field} is 0 but {len(group.tasks)} {kind}cities "
            f"(e.g. {group.tasks[0].name}) use {pool.instance_type}; raise the quota or move those cities"
        )
    if group.instance_count > pool.instances:
        raise PlanError(
            f"city {group.tasks[0].name} needs {group.instance_count} × {pool.instance_type} per job but "
            f"quotas.{pool.instance_type}.{field} is {pool.instances}; lower instance_count or raise the quota"
        )


def keeps_pools(group: CityGroup, pool: CapacityPool) -> bool:
    """Whether the group's lanes may keep warm pools at all: on demand, and one job's instances fit the
    warm-pool quota of its capacity pool."""
    return not group.spot and group.instance_count <= pool.warm_instances


def _pool_key(spec: FleetSpec, group: CityGroup) -> tuple[str, bool]:
    """(instance type, draws on the spot quota)."""
    quota = _quota(spec, group.instance_type)
    return group.instance_type, group.spot and quota.spot_instances is not None


def capacity_pools(
    spec: FleetSpec, groups: Sequence[CityGroup]
) -> tuple[tuple[CapacityPool, ...], tuple[int, ...]]:
    """The pools and, for each group, the index of the pool its lanes draw from."""
    pools: dict[tuple[str, bool], CapacityPool] = {}
    assignment: list[int] = []
    keys = [_pool_key(spec, group) for group in groups]
    # no more instances than the pool's jobs could use at once: a quota of 100,000 would otherwise be laid out
    # as 100,000 slots, most of them empty
    demand: dict[tuple[str, bool], int] = {}
    for group, key in zip(groups, keys, strict=True):
        demand[key] = demand.get(key, 0) + group.instance_count * len(group.tasks)
    for group, slot in zip(groups, keys, strict=True):
        quota = _quota(spec, group.instance_type)
        spot_only = slot[1]
        if slot not in pools:
            limit = (
                quota.spot_instances if spot_only and quota.spot_instances is not None else quota.instances
            )
            instances = min(limit, demand[slot])
            pools[slot] = CapacityPool(
                index=len(pools),
                instance_type=group.instance_type,
                spot_only=spot_only,
                instances=instances,
                warm_instances=0 if spot_only else min(quota.warm_pools, instances),
            )
        _check_fits(group, pools[slot])
        assignment.append(pools[slot].index)
    return tuple(pools.values()), tuple(assignment)
