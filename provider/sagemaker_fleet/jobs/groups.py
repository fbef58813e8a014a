"""The group of a city: its warm-pool matching key (:func:`~.keys.city_key`) and whether it runs on spot.

Only jobs of one group can hand a pool on to each other, and spot jobs never keep one, so a spot city and an
on-demand city with the same key are in different groups. Groups are numbered ``g0, g1, …`` in the order their
first city appears in the spec, so a fleet's numbering is stable across runs. The planner numbers its groups with
this function, and the cost report, the Fleet view and every log line name a city's group by the plan's number, so
``g0`` is one group everywhere.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from sagemaker_fleet.jobs.keys import KeyedByPool, WarmPoolKey, city_key

if TYPE_CHECKING:
    from sagemaker_fleet.fleetspec.model import FleetSpec


def group_id(index: int) -> str:
    """The name of the ``index``-th group: ``g0``, ``g1``, …"""
    return f"g{index}"


@dataclass(frozen=True)
class SpecGroup(KeyedByPool):
    """One group of a spec: its number, key, spot, and its cities as indexes into ``spec.cities``, in spec order."""

    index: int
    key: WarmPoolKey
    spot: bool
    cities: tuple[int, ...]

    @property
    def id(self) -> str:
        return group_id(self.index)


def group_label(key: WarmPoolKey | None, spot: bool, instance_type: str, instance_count: int) -> str:
    """``ml.m5.xlarge ×1 · FleetTraining · 30 GB · VPC · spot``: what a person tells a group by (the plan task's
    log, the cost report, the Fleet view)."""
    parts = [f"{instance_type} ×{instance_count}"]
    if key is not None:
        parts.append(key.role_arn.rsplit("/", 1)[-1])
        parts.append(f"{key.volume_size_gb} GB")
        if key.subnets:
            parts.append("VPC")
    if spot:
        parts.append("spot")
    return " · ".join(parts)


def spec_groups(spec: FleetSpec) -> tuple[SpecGroup, ...]:
    """``spec.cities`` grouped by (matching key, spot), numbered in the order each group's first city appears."""
    members: dict[tuple[WarmPoolKey, bool], list[int]] = {}
    for index, city in enumerate(spec.cities):
        members.setdefault((city_key(city), city.spot is not None), []).append(index)
    return tuple(
        SpecGroup(index=number, key=key, spot=spot, cities=tuple(cities))
        for number, ((key, spot), cities) in enumerate(members.items())
    )


def city_groups(spec: FleetSpec) -> dict[str, str]:
    """Each city's group id (city name → ``g0``…), by :func:`spec_groups`."""
    return {spec.cities[city].name: group.id for group in spec_groups(spec) for city in group.cities}
