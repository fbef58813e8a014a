"""Quotas in a simulated run: the engine holds the spec's quotas, never exceeds them, and a rejected
CreateTrainingJob is retried after the operator's back-off; throttled calls are counted and retried."""

from __future__ import annotations

from typing import Any

import pytest

from sagemaker_fleet.dispatch.cadence import Cadence
from sagemaker_fleet.fleetspec import FleetSpec, parse_fleet_spec
from sagemaker_fleet.simulate import FleetSimulation, SimulateOptions

#: Two roles on one instance type, interleaved in spec order: the naive pattern's idle pools of one role hold
#: the instances the other role's next job needs.
TIGHT = """
fleet: tight
region: us-east-1
role_arn: arn:aws:iam::111122223333:role/FleetTraining
image_uri: 111122223333.dkr.ecr.us-east-1.amazonaws.com/demand:1.4
output_s3_uri: s3://acme-ml/fleets/tight
quotas:
  ml.m5.xlarge: {instances: 3, warm_pools: 2, spot_instances: 1}
defaults: {instance_type: ml.m5.xlarge, expected_seconds: 900}
cities:
"""
CITIES = [
    f'  - {{name: c{i}, train_s3_uri: "s3://acme-ml/data/c{i}/", expected_seconds: {600 + 100 * (i % 4)}'
    + (", role_arn: arn:aws:iam::111122223333:role/TeamB" if i % 2 else "")
    + (", spot: {max_wait_seconds: 10800}" if i % 5 == 4 else "")
    + "}"
    for i in range(10)
]


@pytest.fixture(scope="module")
def tight() -> FleetSpec:
    return parse_fleet_spec(TIGHT + "\n".join(CITIES))


def _within_quotas(sim: FleetSimulation) -> None:
    for itype, entry in sim.engine.snapshot()["quotas"].items():
        limit: dict[str, Any] = entry["limit"]
        usage: dict[str, int] = entry["usage"]
        spot_shared = usage["spot"] if limit["spot_instances"] is None else 0
        assert usage["on_demand"] + usage["pooled"] + spot_shared <= limit["instances"], itype
        assert usage["pooled"] <= limit["warm_pools"], itype
        if limit["spot_instances"] is not None:
            assert usage["spot"] <= limit["spot_instances"], itype


@pytest.mark.parametrize("strategy", ["planned", "naive"])
def test_quotas_are_the_specs_and_are_never_exceeded(tight: FleetSpec, strategy: str) -> None:
    sim = FleetSimulation(tight, SimulateOptions(strategy=strategy))  # type: ignore[arg-type]
    assert dict(sim.engine.config.quotas) == tight.quotas
    peak = 0
    while sim.step():
        _within_quotas(sim)
        quotas = sim.engine.snapshot()["quotas"]
        if "ml.m5.xlarge" not in quotas:  # nothing created yet
            continue
        usage = quotas["ml.m5.xlarge"]["usage"]
        peak = max(peak, usage["on_demand"] + usage["pooled"])
    doc = sim.result().to_json()

    assert doc["completed"] == doc["jobs"] == 10
    assert peak == 3  # the quota is used up, not merely respected


def test_naive_collides_with_its_own_pools_and_backs_off(tight: FleetSpec) -> None:
    sim = FleetSimulation(tight, SimulateOptions(strategy="naive"))
    doc = sim.run().to_json()
    errors = sim.engine.api_calls()["errors"]

    assert doc["quota_rejections"] == errors["CreateTrainingJob:ResourceLimitExceeded"] > 0
    assert doc["api_calls"]["CreateTrainingJob"] == doc["submissions"] + doc["quota_rejections"]
    assert sum(task.capacity_retries for task in sim.tasks.values()) == doc["quota_rejections"]
    assert doc["completed"] == 10


def test_a_city_gives_up_after_the_capacity_timeout(tight: FleetSpec) -> None:
    options = SimulateOptions(strategy="naive", cadence=Cadence(capacity_timeout_seconds=30.0))
    sim = FleetSimulation(tight, options)
    doc = sim.run().to_json()
    failed = [task for task in sim.tasks.values() if task.state == "failed"]

    assert doc["failed"] == len(failed) > 0
    assert all("ResourceLimitExceeded" in task.reason and not task.submissions for task in failed)


def test_throttled_calls_are_counted_retried_and_replayed_exactly(tight: FleetSpec) -> None:
    options = SimulateOptions(strategy="planned", throttle_share=0.3)
    first = FleetSimulation(tight, options).run().to_json()
    again = FleetSimulation(tight, options).run().to_json()

    assert first == again
    assert first["throttled"] > 0
    assert first["completed"] == 10
