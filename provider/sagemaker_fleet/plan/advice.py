"""Advice from AWS's warm-pool best practices, as notes (never errors) for ``validate`` and the plan's warnings.

Reusing pools is one lesson; three more are about what a warm start still costs
(https://docs.aws.amazon.com/sagemaker/latest/dg/train-warm-pools.html):

- **File mode copies the whole data set on every job, warm or not**: warm start-up stays far above FastFile's or
  FSx for Lustre's (the seed benchmark's P90s, :data:`~sagemaker_fleet.jobs.startup.STARTUP_P90`).
- **A changed image is pulled again, even on a warm pool**: where most cities of a warm-pool group have images of
  their own, no job order avoids the pulls.
- **Keep-alive beyond the hand-off is idle time on the bill**: an explicit ``keep_alive`` far above what the
  measured hand-off needs (``orchestration_latency_seconds`` plus the margin) keeps every pool idle that much
  longer after its lane's last job.

Only groups that may keep pools at all (on demand, within the warm-pool quota, a latency that leaves room for
reuse) are advised on; a fleet the planner cannot fit gets no advice here (the plan's error says why).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from sagemaker_fleet.fleetspec.render import some_names
from sagemaker_fleet.jobs.errors import UnknownPriceError
from sagemaker_fleet.jobs.prices import PriceBook
from sagemaker_fleet.jobs.startup import IMAGE_PULL_P90, STARTUP_P90
from sagemaker_fleet.plan.capacity import capacity_pools, keeps_pools
from sagemaker_fleet.plan.errors import PlanError
from sagemaker_fleet.plan.groups import CityGroup, group_cities
from sagemaker_fleet.plan.keepalive import auto_keep_alive, margin_seconds, warm_reuse_possible
from sagemaker_fleet.plan.render import key_summary

if TYPE_CHECKING:
    from sagemaker_fleet.fleetspec.model import FleetSpec

#: A group is advised to share images when more than this share of its cities have distinct images.
DISTINCT_IMAGE_SHARE = 0.5
#: Smallest group the image note is about (two cities with two images are no pattern).
IMAGE_NOTE_MIN_CITIES = 3
#: An explicit keep-alive is noted when it is more than this many times what the hand-off needs.
KEEP_ALIVE_FACTOR = 2


def pool_groups(spec: FleetSpec) -> list[CityGroup]:
    """The spec's groups (by matching key) whose lanes may keep warm pools."""
    if not warm_reuse_possible(spec.orchestration_latency_seconds):
        return []
    groups = group_cities(spec, [city.expected_seconds for city in spec.cities])
    try:
        pools, pool_of = capacity_pools(spec, groups)
    except PlanError:
        return []
    return [group for group in groups if keeps_pools(group, pools[pool_of[group.index]])]


def file_mode_note(spec: FleetSpec, groups: list[CityGroup]) -> list[str]:
    if spec.input_mode != "File" or not groups:
        return []
    file, fast, fsx = STARTUP_P90["File"], STARTUP_P90["FastFile"], STARTUP_P90["FSx"]
    return [
        f"input_mode File with warm pools: File mode copies the whole data set onto the instances on every job, "
        f"warm or not — in the seed benchmark (1.34 GB image, 2 GB data) a warm start takes {file.warm} s at P90 "
        f"in File mode against {fast.warm} s with FastFile and {fsx.warm} s with FSx for Lustre (cold: "
        f"{file.cold} / {fast.cold} / {fsx.cold} s); use `input_mode: FastFile` (or FSx for Lustre) so that a "
        "warm pool saves the data copy too"
    ]


def image_notes(spec: FleetSpec, groups: list[CityGroup]) -> list[str]:
    notes = []
    warm = STARTUP_P90.get(spec.input_mode, STARTUP_P90["FastFile"]).warm
    for group in groups:
        cities = len(group.tasks)
        images = len({task.image for task in group.tasks})
        if cities < IMAGE_NOTE_MIN_CITIES or images <= DISTINCT_IMAGE_SHARE * cities:
            continue
        notes.append(
            f"{group.label}, {key_summary(group.key)}: {images} distinct images among its {cities} "
            "cities — "
            "the image is no warm-pool matching criterion, so their jobs share pools, but a warm start whose "
            f"image differs from the pool's previous job's pulls it from ECR again (about {IMAGE_PULL_P90} s for "
            f"the seed's 1.34 GB image, on top of a {warm} s warm start) and no job order avoids most of those "
            "pulls; build one image for the group and pass what differs per city as hyperparameters or "
            "environment"
        )
    return notes


def _usd_per_hour(book: PriceBook, instance_type: str) -> float | None:
    try:
        return book.price(instance_type).usd_per_hour
    except UnknownPriceError:
        return None


def keep_alive_notes(spec: FleetSpec, groups: list[CityGroup]) -> list[str]:
    """One note per explicit keep-alive value (and instance shape) far above the hand-off's need."""
    latency = spec.orchestration_latency_seconds
    needed = auto_keep_alive(latency, latency)
    long_ones: dict[tuple[int, str, int], list[str]] = {}
    for group in groups:
        for task in group.tasks:
            if task.keep_alive is not None and task.keep_alive > KEEP_ALIVE_FACTOR * needed:
                long_ones.setdefault((task.keep_alive, group.instance_type, group.instance_count), []).append(
                    task.name
                )
    book = PriceBook.for_spec(spec)
    notes = []
    for (keep_alive, instance_type, count), names in sorted(long_ones.items()):
        extra = keep_alive - needed
        price = _usd_per_hour(book, instance_type)
        cost = f"{extra * count} instance-seconds per pool"
        if price is not None:
            cost = f"about ${extra * count * price / 3600:.2f} per pool ({count} × {instance_type} at ${price:.3f}/h)"
        notes.append(
            f"keep_alive {keep_alive} s of {some_names(sorted(names))} is far above what a hand-off needs "
            f"(orchestration_latency_seconds {latency} + {margin_seconds(latency)} s margin = {needed} s): each "
            f"of their pools may idle up to {extra} s more after its lane's last job, "
            f"{cost}; use "
            "`keep_alive: auto` — the planner sizes each keep-alive to its hand-off and ends a lane's last pool "
            "with its job"
        )
    return notes


def fleet_advice(spec: FleetSpec) -> list[str]:
    """Every note for ``spec``, in the order of the module docstring."""
    groups = pool_groups(spec)
    return file_mode_note(spec, groups) + image_notes(spec, groups) + keep_alive_notes(spec, groups)
