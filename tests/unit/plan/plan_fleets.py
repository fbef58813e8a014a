"""Fleets for planner tests, and an oracle for plans written independently of the planner's own bookkeeping.

The oracle rebuilds occupancy from the jobs alone (running intervals, retained pools from keep-alive and the
successor's start) and checks it against the spec's quotas, so it does not trust the scheduler's slots.
"""

from __future__ import annotations

import random
from collections import defaultdict
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from sagemaker_fleet.fleetspec.model import CitySpec, FleetSpec, InstanceQuota, SpotSettings, VpcSettings
from sagemaker_fleet.jobs.keys import city_key
from sagemaker_fleet.jobs.startup import startup_p90

if TYPE_CHECKING:
    from sagemaker_fleet.plan import FleetPlan, PlannedJob

RUN_KEY = "20261129"
IMAGE = "111122223333.dkr.ecr.us-east-1.amazonaws.com/demand:1.4"
KEEP_ALIVE_AUTO_MAX = 3600
KEEP_ALIVE_API_MAX = 21600


def role(n: int) -> str:
    return f"arn:aws:iam::111122223333:role/Team{n}"


def city(name: str, seconds: int = 1200, **overrides: object) -> CitySpec:
    values: dict[str, object] = {
        "name": name,
        "train_s3_uri": f"s3://acme-ml/data/{name}/",
        "role_arn": role(0),
        "image_uri": IMAGE,
        "instance_type": "ml.m5.xlarge",
        "expected_seconds": seconds,
    }
    values.update(overrides)
    return CitySpec(**values)  # type: ignore[arg-type]


def spot(max_wait: int = 14400) -> SpotSettings:
    return SpotSettings(max_wait_seconds=max_wait)


def fleet(
    cities: list[CitySpec], quotas: dict[str, InstanceQuota] | None = None, **overrides: object
) -> FleetSpec:
    values: dict[str, object] = {
        "fleet": "demo",
        "region": "us-east-1",
        "role_arn": role(0),
        "image_uri": IMAGE,
        "output_s3_uri": "s3://acme-ml/fleets/demo",
        "cities": tuple(cities),
        "quotas": quotas or {"ml.m5.xlarge": InstanceQuota(instances=20, warm_pools=8)},
    }
    values.update(overrides)
    return FleetSpec(**values)  # type: ignore[arg-type]


# ------------------------------------------------------------------------------------------ random fleets


@dataclass(frozen=True)
class FleetShape:
    """What a property test draws; :func:`random_fleet` turns it into a spec deterministically."""

    cities: int
    keys: int
    types: int
    seed: int
    spot_share: float = 0.0
    explicit_keep_alive_share: float = 0.0
    double_count_share: float = 0.0  # keys whose jobs use 2 instances
    latency: int = 120
    input_mode: str = "FastFile"
    deadline: int | None = None
    quotas: dict[str, InstanceQuota] = field(default_factory=dict)
    images: int = 1  # training images, drawn per city (no matching criterion)


TYPES = ("ml.m5.xlarge", "ml.c5.xlarge", "ml.m5.2xlarge")


def random_fleet(shape: FleetShape) -> FleetSpec:
    rng = random.Random(shape.seed)
    counts = [2 if rng.random() < shape.double_count_share else 1 for _ in range(shape.keys)]
    vpcs = [VpcSettings(("subnet-a",), ("sg-a",)) if rng.random() < 0.2 else None for _ in range(shape.keys)]
    cities = []
    for index in range(shape.cities):
        key = rng.randrange(shape.keys)
        is_spot = rng.random() < shape.spot_share
        keep_alive = None
        if not is_spot and rng.random() < shape.explicit_keep_alive_share:
            keep_alive = rng.choice([0, 30, 60, 300, 900, 3600, 7200, 21600])
        image = IMAGE if shape.images == 1 else f"{IMAGE}-{rng.randrange(shape.images)}"
        cities.append(
            city(
                f"c{index}",
                int(min(20000, max(60, rng.lognormvariate(7.0, 0.7)))),
                role_arn=role(key),
                instance_type=TYPES[key % shape.types],
                instance_count=counts[key],
                vpc=vpcs[key],
                spot=spot() if is_spot else None,
                keep_alive=keep_alive,
                image_uri=image,
            )
        )
    return fleet(
        cities,
        quotas=shape.quotas,
        orchestration_latency_seconds=shape.latency,
        input_mode=shape.input_mode,
        deadline_seconds=shape.deadline,
    )


# ------------------------------------------------------------------------------------------------ oracle


def pool_name(job_spot: bool, instance_type: str, quota: InstanceQuota) -> str:
    return f"{instance_type}/spot" if job_spot and quota.spot_instances is not None else instance_type


def retained_seconds(job: PlannedJob, successor: PlannedJob | None) -> int:
    """Idle seconds the job's pool is kept: until the successor takes it over, else the whole keep-alive."""
    if job.keep_alive_seconds <= 0:
        return 0
    if successor is not None and successor.start == "warm":
        return successor.planned_start_seconds - job.planned_end_seconds
    return job.keep_alive_seconds


def _peak(intervals: list[tuple[int, int, int]]) -> int:
    """Largest sum of weights over half-open intervals [start, end) at one instant."""
    edges = sorted([(s, w) for s, e, w in intervals if e > s] + [(e, -w) for s, e, w in intervals if e > s])
    level = peak = 0
    for _, change in sorted(edges, key=lambda edge: (edge[0], edge[1])):
        level += change
        peak = max(peak, level)
    return peak


def occupancy(plan: FleetPlan, spec: FleetSpec) -> tuple[dict[str, int], dict[str, int]]:
    """Peak instances (running + retained) per capacity pool, and peak warm-pool instances per instance type.

    Pools are counted while retained idle and, conservatively, also while a job runs on one (a warm start).
    """
    instances: dict[str, list[tuple[int, int, int]]] = defaultdict(list)
    pools: dict[str, list[tuple[int, int, int]]] = defaultdict(list)
    for lane in plan.lanes:
        key = plan.group(lane.group).key
        quota = spec.quotas[key.instance_type]
        for position, job in enumerate(lane.jobs):
            successor = lane.jobs[position + 1] if position + 1 < len(lane.jobs) else None
            width = key.instance_count
            name = pool_name(job.spot, key.instance_type, quota)
            kept = retained_seconds(job, successor)
            instances[name].append((job.planned_start_seconds, job.planned_end_seconds, width))
            instances[name].append((job.planned_end_seconds, job.planned_end_seconds + kept, width))
            pools[key.instance_type].append((job.planned_end_seconds, job.planned_end_seconds + kept, width))
            if job.start == "warm":
                pools[key.instance_type].append((job.planned_start_seconds, job.planned_end_seconds, width))
    return {k: _peak(v) for k, v in instances.items()}, {k: _peak(v) for k, v in pools.items()}


def check_plan(plan: FleetPlan, spec: FleetSpec) -> None:
    """Every property the planner promises, checked from the plan JSON's own fields."""
    by_name = {c.name: c for c in spec.cities}
    assert sorted(job.city for job in plan.jobs) == sorted(by_name), "every city exactly once"
    latency = spec.orchestration_latency_seconds
    cold = startup_p90(spec.input_mode, warm=False)
    warm = startup_p90(spec.input_mode, warm=True)
    pulled = min(startup_p90(spec.input_mode, warm=True, image_pulled=True), cold)
    for lane in plan.lanes:
        assert len({(city_key(by_name[job.city]), job.spot) for job in lane.jobs}) == 1, "a lane mixes keys"
        assert len({job.warm_pool for job in lane.jobs}) == 1
        for position, job in enumerate(lane.jobs):
            spec_city = by_name[job.city]
            assert job.spot == (spec_city.spot is not None)
            assert job.position == position
            assert job.expected_seconds == spec_city.expected_seconds
            startup = (pulled if job.image_change else warm) if job.start == "warm" else cold
            assert job.planned_end_seconds - job.planned_start_seconds == job.expected_seconds + startup
            assert 0 <= job.keep_alive_seconds <= KEEP_ALIVE_API_MAX
            if job.spot:
                assert not job.warm_pool, "spot jobs never keep a warm pool"
            if not job.warm_pool:
                assert job.keep_alive_seconds == 0, f"{job.city}: a job without a warm pool has no keep-alive"
                assert job.start == "cold", f"{job.city}: a job without a warm pool starts cold"
            if spec_city.keep_alive is None:
                assert job.keep_alive_seconds <= KEEP_ALIVE_AUTO_MAX
            elif job.warm_pool:
                assert job.keep_alive_seconds == spec_city.keep_alive, "explicit keep-alive overrides auto"
            if position == 0:
                assert job.start == "cold"
                assert not job.image_change, "a cold start pulls its image anyway: no change to count"
                continue
            previous = lane.jobs[position - 1]
            other_image = spec_city.image_uri != by_name[previous.city].image_uri
            assert job.image_change == (job.start == "warm" and other_image), f"{job.city}: image change"
            gap = job.planned_start_seconds - previous.planned_end_seconds
            assert gap >= latency, "successor created one orchestration latency after its predecessor ends"
            if job.start == "warm":
                assert previous.keep_alive_seconds > gap, "a warm start needs the predecessor's pool alive"
            elif job.warm_pool and previous.keep_alive_seconds > gap:
                raise AssertionError(f"{job.city} starts cold although its predecessor's pool is still there")
        if lane.jobs[-1].keep_alive_seconds:
            assert by_name[lane.jobs[-1].city].keep_alive, (
                "a lane's last job keeps no pool unless the spec says so"
            )
    instances, pools = occupancy(plan, spec)
    for name, peak in instances.items():
        instance_type, _, spot_pool = name.partition("/")
        quota = spec.quotas[instance_type]
        limit = quota.spot_instances if spot_pool else quota.instances
        assert peak <= (limit or 0), f"{name}: {peak} instances at once, quota {limit}"
    for instance_type, peak in pools.items():
        assert peak <= spec.quotas[instance_type].warm_pools, (
            f"{instance_type}: {peak} pool instances at once"
        )
    check_summary(plan)


def check_summary(plan: FleetPlan) -> None:
    summary = plan.summary
    assert summary.jobs == len(plan.jobs)
    assert summary.lanes == len(plan.lanes) == sum(group.lanes for group in plan.groups)
    assert all(group.lanes >= 1 for group in plan.groups), "every group gets at least one lane"
    assert all(group.jobs == sum(1 for job in plan.jobs if job.group == group.group) for group in plan.groups)
    assert summary.cold_starts == sum(1 for job in plan.jobs if job.start == "cold")
    assert summary.image_changes == sum(1 for job in plan.jobs if job.image_change)
    assert summary.warm_starts == summary.jobs - summary.cold_starts
    assert summary.planned_makespan_seconds == max(job.planned_end_seconds for job in plan.jobs)
    assert 0 < summary.makespan_lower_bound_seconds <= summary.planned_makespan_seconds
    longest = max(job.planned_end_seconds - job.planned_start_seconds for job in plan.jobs)
    assert summary.makespan_lower_bound_seconds >= longest
    retained = 0
    for lane in plan.lanes:
        for position, job in enumerate(lane.jobs):
            successor = lane.jobs[position + 1] if position + 1 < len(lane.jobs) else None
            retained += retained_seconds(job, successor)
    assert summary.planned_retained_seconds == retained
    # every lane starts cold; a warm-pool lane of auto keep-alive jobs has no other cold start
    kinds = [lane.kind for lane in plan.lanes]
    assert summary.warm_lanes == kinds.count("warm")
    assert summary.cold_lanes + summary.spot_lanes + summary.warm_lanes == summary.lanes
