"""The property oracle itself must catch broken plans — otherwise the property tests prove nothing."""

from __future__ import annotations

import dataclasses
import json

import pytest

from sagemaker_fleet.fleetspec.model import FleetSpec, InstanceQuota
from sagemaker_fleet.plan import FleetPlan, plan_fleet
from unit.plan.plan_fleets import RUN_KEY, check_plan, city, fleet, role, spot

M5 = "ml.m5.xlarge"


@pytest.fixture
def spec() -> FleetSpec:
    cities = [city(f"c{i}", 1000 + 10 * i) for i in range(12)] + [city("s0", 900, spot=spot())]
    return fleet(cities, {M5: InstanceQuota(instances=4, warm_pools=3, spot_instances=1)})


def edited(plan: FleetPlan, edit) -> FleetPlan:  # type: ignore[no-untyped-def]
    data = json.loads(plan.dumps())
    edit(data)
    return FleetPlan.from_json(data)


def test_a_good_plan_passes(spec: FleetSpec) -> None:
    check_plan(plan_fleet(spec, RUN_KEY), spec)


def test_more_instances_than_the_quota_are_caught(spec: FleetSpec) -> None:
    plan = plan_fleet(spec, RUN_KEY)
    smaller = dataclasses.replace(
        spec, quotas={M5: InstanceQuota(instances=3, warm_pools=3, spot_instances=1)}
    )
    with pytest.raises(AssertionError, match="instances at once"):
        check_plan(plan, smaller)


def test_more_pools_than_the_warm_pool_quota_are_caught(spec: FleetSpec) -> None:
    plan = plan_fleet(spec, RUN_KEY)
    smaller = dataclasses.replace(
        spec, quotas={M5: InstanceQuota(instances=4, warm_pools=2, spot_instances=1)}
    )
    with pytest.raises(AssertionError, match="pool instances at once"):
        check_plan(plan, smaller)


def test_a_spot_job_with_keep_alive_is_caught(spec: FleetSpec) -> None:
    plan = plan_fleet(spec, RUN_KEY)
    index = next(i for i, job in enumerate(plan.jobs) if job.spot)
    broken = edited(plan, lambda d: d["jobs"][index].update(keep_alive_seconds=300))
    with pytest.raises(AssertionError, match="a job without a warm pool has no keep-alive"):
        check_plan(broken, spec)


def test_a_lane_mixing_keys_is_caught(spec: FleetSpec) -> None:
    plan = plan_fleet(spec, RUN_KEY)
    lane = next(lane for lane in plan.lanes if len(lane.jobs) > 1)
    moved = lane.jobs[1].city
    other = dataclasses.replace(
        spec,
        cities=tuple(dataclasses.replace(c, role_arn=role(9)) if c.name == moved else c for c in spec.cities),
    )
    with pytest.raises(AssertionError, match="mixes keys"):
        check_plan(plan, other)


def test_a_warm_start_without_a_live_pool_is_caught(spec: FleetSpec) -> None:
    plan = plan_fleet(spec, RUN_KEY)
    lane = next(lane for lane in plan.lanes if len(lane.jobs) > 1 and lane.kind == "warm")
    index = plan.jobs.index(lane.jobs[0])
    broken = edited(plan, lambda d: d["jobs"][index].update(keep_alive_seconds=0))
    with pytest.raises(AssertionError, match="warm start needs"):
        check_plan(broken, spec)


def test_a_missing_city_is_caught(spec: FleetSpec) -> None:
    plan = plan_fleet(spec, RUN_KEY)
    bigger = dataclasses.replace(spec, cities=(*spec.cities, city("extra")))
    with pytest.raises(AssertionError, match="every city exactly once"):
        check_plan(plan, bigger)
