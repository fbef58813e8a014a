"""``simulate`` tells a warm start that re-pulled its image apart from other warm starts, and the planner's image
order shows in the simulated run of a fleet with two images interleaved in spec order."""

from __future__ import annotations

from pathlib import Path

import pytest

from sagemaker_fleet.sim.driver import FleetSimulation, SimulateOptions, simulate_fleet
from sagemaker_fleet.spec import FleetSpec, load_fleet_spec

TWO_IMAGES = Path(__file__).resolve().parents[3] / "benchmarks" / "fleets" / "two_images.yaml"


@pytest.fixture(scope="module")
def two_images() -> FleetSpec:
    return load_fleet_spec(TWO_IMAGES)


def test_warm_image_pulls_is_the_last_field_and_the_engine_agrees(two_images: FleetSpec) -> None:
    sim = FleetSimulation(two_images, SimulateOptions(strategy="naive"))
    doc = sim.run().to_json()
    assert list(doc)[-1] == "warm_image_pulls"
    pulled = [name for name in sim.operator.owner if sim.engine.facts(name).image_pulled]
    assert doc["warm_image_pulls"] == len(pulled) > 0  # the report's reading of Describe = the engine's truth
    assert doc["warm_image_pulls"] <= doc["warm_starts"]


@pytest.mark.parametrize("seed", [7, 8])
def test_the_image_order_pulls_less_than_the_plan_without_it(two_images: FleetSpec, seed: int) -> None:
    ordered = simulate_fleet(two_images, SimulateOptions(seed=seed)).to_json()
    plain = simulate_fleet(two_images, SimulateOptions(seed=seed, image_order=False)).to_json()
    assert ordered["warm_image_pulls"] < plain["warm_image_pulls"]
    assert ordered["startup_seconds"] < plain["startup_seconds"]
    assert ordered["makespan_seconds"] <= 1.02 * plain["makespan_seconds"]
