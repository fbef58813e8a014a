"""Cities grouped by warm-pool matching key (the one :func:`city_key`), spot cities in groups of their own.

Only jobs of one group can hand a pool on to each other. Spot cities never keep a pool (docs/sagemaker-behaviour.md, warm pools),
so a spot city and an on-demand city with the same key land in different groups. Groups are numbered
``g0, g1, …`` in the order their first city appears in the spec, so the numbering is stable across runs.
Inside a group the cities are sorted longest-expected-first (ties by name): the order lanes take them in.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from sagemaker_fleet.fleetspec.render import some_names
from sagemaker_fleet.jobs.keys import KeyedByPool, WarmPoolKey, city_key

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
        return f"g{self.index}"

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
    members: dict[tuple[WarmPoolKey, bool], list[JobTask]] = {}
    for index, city in enumerate(spec.cities):
        task = JobTask(
            city=index,
            name=city.name,
            training=training[index],
            keep_alive=city.keep_alive,
            image=city.image_uri,
        )
        members.setdefault((city_key(city), city.spot is not None), []).append(task)
    return tuple(
        CityGroup(
            index=number,
            key=key,
            spot=spot,
            tasks=tuple(sorted(tasks, key=lambda task: (-task.training, task.name))),
            training_total=sum(task.training for task in tasks),
        )
        for number, ((key, spot), tasks) in enumerate(members.items())
    )
