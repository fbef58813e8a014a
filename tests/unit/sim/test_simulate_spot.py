"""Spot in a simulated run: MaxWaitTimeExceeded re-submissions follow the operator's rule (``next_step``)."""

from __future__ import annotations

from typing import Any

import pytest

from sagemaker_fleet.fleetspec import FleetSpec, parse_fleet_spec
from sagemaker_fleet.sim import SpotMarketConfig
from sagemaker_fleet.simulate import FleetSimulation, SimulateOptions

SPEC = """
fleet: spotty
region: us-east-1
role_arn: arn:aws:iam::111122223333:role/FleetTraining
image_uri: 111122223333.dkr.ecr.us-east-1.amazonaws.com/demand:1.4
output_s3_uri: s3://acme-ml/fleets/spotty
quotas:
  ml.m5.xlarge: {instances: 4, warm_pools: 2, spot_instances: 2}
  ml.c5.xlarge: {instances: 2, warm_pools: 0}
defaults: {instance_type: ml.m5.xlarge, expected_seconds: 600, max_runtime_seconds: 3600}
cities:
  - name: falls-back
    train_s3_uri: s3://acme-ml/data/falls-back/
    instance_type: ml.c5.xlarge
    spot: {max_wait_seconds: 3600, max_attempts: 2, fallback: on_demand}
  - name: gives-up
    train_s3_uri: s3://acme-ml/data/gives-up/
    instance_type: ml.c5.xlarge
    spot: {max_wait_seconds: 3600, max_attempts: 1, fallback: fail}
  - {name: lucky, train_s3_uri: "s3://acme-ml/data/lucky/", spot: {max_wait_seconds: 7200}}
  - {name: plain, train_s3_uri: "s3://acme-ml/data/plain/"}
"""
#: No spot capacity for ml.c5.xlarge at all: its spot jobs wait in Starting until MaxWait stops them.
NO_C5_SPOT = SpotMarketConfig(no_capacity_types=frozenset({"ml.c5.xlarge"}))


@pytest.fixture(scope="module")
def spec() -> FleetSpec:
    return parse_fleet_spec(SPEC)


def _by_name(sim: FleetSimulation) -> dict[str, dict[str, Any]]:
    return {str(d["TrainingJobName"]): d for d in sim.describes()}


@pytest.mark.parametrize("strategy", ["planned", "naive"])
def test_max_wait_resubmits_from_the_same_checkpoint_then_falls_back_or_fails(
    spec: FleetSpec, strategy: str
) -> None:
    sim = FleetSimulation(spec, SimulateOptions(strategy=strategy, spot=NO_C5_SPOT))  # type: ignore[arg-type]
    doc = sim.run().to_json()
    jobs = _by_name(sim)

    falls = [jobs[n] for n in sim.tasks["falls-back"].submissions]
    assert [d["TrainingJobName"] for d in falls] == [
        "spotty-falls-back-20261129",
        "spotty-falls-back-20261129-r2",
        "spotty-falls-back-20261129-r3",
    ]
    assert [d["EnableManagedSpotTraining"] for d in falls] == [True, True, False]
    assert [d["SecondaryStatus"] for d in falls] == [
        "MaxWaitTimeExceeded",
        "MaxWaitTimeExceeded",
        "Completed",
    ]
    assert len({d["CheckpointConfig"]["S3Uri"] for d in falls}) == 1
    assert sim.tasks["falls-back"].state == "done"

    gives_up = [jobs[n] for n in sim.tasks["gives-up"].submissions]
    assert [d["SecondaryStatus"] for d in gives_up] == ["MaxWaitTimeExceeded"]
    assert sim.tasks["gives-up"].state == "failed"
    assert "fallback is `fail`" in sim.tasks["gives-up"].reason

    assert (doc["jobs"], doc["completed"], doc["failed"], doc["resubmitted"]) == (4, 3, 1, 2)
    assert doc["submissions"] == 6 == doc["api_calls"]["CreateTrainingJob"]


def test_a_resubmission_follows_within_one_sweep(spec: FleetSpec) -> None:
    """The trigger re-submits as soon as the sweep that saw the spot job give up delivers its description."""
    sim = FleetSimulation(spec, SimulateOptions(spot=NO_C5_SPOT))
    sim.run()
    jobs = _by_name(sim)
    first, second = sim.tasks["falls-back"].submissions[:2]

    gap = jobs[second]["CreationTime"] - sim.ended_at[first]
    sweep = sim.options.cadence.poll_interval
    assert sim.options.handoff_seconds - 0.01 <= gap <= sweep + sim.options.handoff_seconds + 0.01


def test_spot_jobs_that_complete_save_money(spec: FleetSpec) -> None:
    doc = FleetSimulation(spec).run().to_json()

    assert doc["resubmitted"] == 0
    assert doc["completed"] == 4
    assert 50.0 < doc["spot_savings_pct"] < 80.0  # the engine's seeded discount, 70 % ± 5 %
