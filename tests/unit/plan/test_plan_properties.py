"""Properties of plans over random fleets (hypothesis): 1–5,000 cities, 1–10 matching keys, random quotas.

Every plan is checked by the independent oracle in ``plan_fleets.check_plan``: every city exactly once, lanes
never mix keys, spot jobs keep no pool, keep-alive within limits, a warm start only on a live pool, planned
concurrency within the instance (and spot) quota and pools within the warm-pool quota at every instant, and a
summary that adds up. Sizes are skewed small so that the module runs in seconds.
"""

from __future__ import annotations

import dataclasses
import json

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from sagemaker_fleet.fleetspec.model import InstanceQuota
from sagemaker_fleet.plan import FleetPlan, PlanError, plan_fleet
from sagemaker_fleet.plan.keepalive import keep_alive_ceiling
from unit.plan.plan_fleets import RUN_KEY, TYPES, FleetShape, check_plan, random_fleet

SETTINGS = settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])

city_counts = st.one_of(st.integers(1, 30), st.integers(31, 400), st.integers(401, 5000))


@st.composite
def quotas(draw: st.DrawFn, types: int) -> dict[str, InstanceQuota]:
    result = {}
    for instance_type in TYPES[:types]:
        instances = draw(st.integers(2, 60))
        warm = draw(st.integers(0, instances + 4))
        spot_instances = draw(st.one_of(st.none(), st.integers(2, 30)))
        result[instance_type] = InstanceQuota(
            instances=instances, warm_pools=warm, spot_instances=spot_instances
        )
    return result


@st.composite
def shapes(draw: st.DrawFn, *, explicit_keep_alive: bool = True) -> FleetShape:
    types = draw(st.integers(1, 3))
    return FleetShape(
        cities=draw(city_counts),
        keys=draw(st.integers(1, 10)),
        types=types,
        seed=draw(st.integers(0, 2**32 - 1)),
        spot_share=draw(st.sampled_from([0.0, 0.0, 0.1, 0.5, 1.0])),
        explicit_keep_alive_share=draw(st.sampled_from([0.0, 0.2])) if explicit_keep_alive else 0.0,
        double_count_share=draw(st.sampled_from([0.0, 0.0, 0.5])),
        latency=draw(st.sampled_from([0, 30, 120, 600, 3600])),
        input_mode=draw(st.sampled_from(["FastFile", "File", "Pipe"])),
        deadline=draw(st.one_of(st.none(), st.integers(600, 200_000))),
        quotas=draw(quotas(types)),
    )


@SETTINGS
@given(shapes())
def test_every_plan_satisfies_the_oracle(shape: FleetShape) -> None:
    spec = random_fleet(shape)
    plan = plan_fleet(spec, RUN_KEY)
    check_plan(plan, spec)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(shapes())
def test_no_planned_keep_alive_exceeds_the_ceiling_the_iam_policy_allows(shape: FleetShape) -> None:
    """``sagemaker-fleet iam`` conditions CreateTrainingJob on :func:`keep_alive_ceiling`: a plan above it would
    be refused by AWS."""
    spec = random_fleet(shape)
    plan = plan_fleet(spec, RUN_KEY)
    for city in spec.cities:
        ceiling = keep_alive_ceiling(city.keep_alive, spot=city.spot is not None)
        assert plan.job(city.name).keep_alive_seconds <= ceiling, city


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(shapes(explicit_keep_alive=False))
def test_with_auto_keep_alive_cold_starts_are_one_per_warm_lane_plus_every_cold_lane_job(
    shape: FleetShape,
) -> None:
    plan = plan_fleet(random_fleet(shape), RUN_KEY)
    cold_lane_jobs = sum(len(lane.jobs) for lane in plan.lanes if lane.kind != "warm")
    warm_lanes = sum(1 for lane in plan.lanes if lane.kind == "warm")
    assert plan.summary.cold_starts == warm_lanes + cold_lane_jobs
    if warm_lanes == len(plan.lanes):  # only warm-pool lanes: exactly one cold start per lane
        assert plan.summary.cold_starts == plan.summary.lanes


@settings(max_examples=20, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(shapes())
def test_same_input_gives_identical_json(shape: FleetShape) -> None:
    first = plan_fleet(random_fleet(shape), RUN_KEY)
    second = plan_fleet(random_fleet(shape), RUN_KEY)
    assert json.dumps(first.to_json()) == json.dumps(second.to_json())
    assert FleetPlan.from_json(json.loads(json.dumps(first.to_json()))) == first


@settings(max_examples=25, deadline=None)
@given(shapes())
def test_a_quota_too_small_for_one_job_is_a_plan_error(shape: FleetShape) -> None:
    spec = random_fleet(dataclasses.replace(shape, double_count_share=1.0))  # every job needs 2 instances
    victim = spec.cities[0]
    quota = spec.quotas[victim.instance_type]
    if victim.spot is not None and quota.spot_instances is not None:
        small = dataclasses.replace(quota, spot_instances=1)
    else:
        small = dataclasses.replace(quota, instances=1)
    spec = dataclasses.replace(spec, quotas={**spec.quotas, victim.instance_type: small})
    with pytest.raises(PlanError, match=victim.instance_type):
        plan_fleet(spec, RUN_KEY)
