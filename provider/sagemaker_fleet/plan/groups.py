"""The spec's groups (:func:`sagemaker_fleet.jobs.groups.spec_groups`: one matching key, spot apart, numbered in
spec order) with what the planner needs of each city: expected training, keep-alive and image.

Inside a group the cities are sorted longest-expected-first (ties by name): the order lanes take them in.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from sagemaker_fleet.fleetspec.render import some_names
from sagemaker_fleet.jobs.groups import group_id, spec_groups
from sagemaker_fleet.jobs.keys import KeyedByPool, WarmPoolKey

if TYPE_CHECKING:
    from sagemaker_fleet.fleetspec.model import FleetSpec


@dataclass(frozen=True)
class JobTask:
    """A city waiting for a lane: its index in ``spec.cities``, expected training, explicit keep-alive and image
    (no matching criterion, but a warm start with another image than the pool's previous job pulls it again)."""

    city: int
    name: str
    training: int
    keep_alive: int | None  # None is ``auto``
    image: str = ""


@dataclass(frozen=True)
class CityGroup(KeyedByPool):
    index: int
    key: WarmPoolKey
    spot: bool
    tasks: tuple[JobTask, ...]  # longest expected training first
    training_total: int  # expected training seconds of all its jobs

    @property
    def group_id(self) -> str:
        return group_id(self.index)

    @property
    def label(self) -> str:
        """``g3 (store-004, store-011 and 12 more)``: the group with its stores in spec order, for warnings — a
        reader knows their stores, not the planner's group numbers."""
        names = [task.name for task in sorted(self.tasks, key=lambda task: task.city)]
        return f"{self.group_id} ({some_names(names)})"

    @property
    def training_max(self) -> int:
        return self.tasks[0].training


def group_cities(spec: FleetSpec, training: Sequence[int]) -> tuple[CityGroup, ...]:
    """Group ``spec.cities`` (``training[i]`` is city i's expected training seconds)."""
    groups = []
    for group in spec_groups(spec):
        tasks = [
            JobTask(
                city=index,
                name=spec.cities[index].name,
                training=training[index],
                keep_alive=spec.cities[index].keep_alive,
                image=spec.cities[index].image_uri,
            )
            for index in group.cities
        ]
        groups.append(
            CityGroup(
                index=group.index,
                key=group.key,
                spot=group.spot,
                tasks=tuple(sorted(tasks, key=lambda task: (-task.training, task.name))),
                training_total=sum(task.training for task in tasks),
            )
        )
    return tuple(groups)
