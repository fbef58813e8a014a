"""``simulate`` tells a warm start that re-pulled its image apart from other warm starts; the planner's image
order and the dispatch's image-aware hand-off each show in the simulated run of a fleet with two images
interleaved in spec order."""

from __future__ import annotations

from pathlib import Path

import pytest

from sagemaker_fleet.fleetspec import FleetSpec, load_fleet_spec
from sagemaker_fleet.simulate import FleetSimulation, SimulateOptions, simulate_fleet

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
    """The plan's own effect, with the hand-off in start order (the image-aware one would make up for much of a
    plan without the image key)."""
    ordered = simulate_fleet(two_images, SimulateOptions(seed=seed, image_handoff=False)).to_json()
    plain = simulate_fleet(
        two_images, SimulateOptions(seed=seed, image_order=False, image_handoff=False)
    ).to_json()
    assert ordered["warm_image_pulls"] < plain["warm_image_pulls"]
    assert ordered["startup_seconds"] < plain["startup_seconds"]
    assert ordered["makespan_seconds"] <= 1.02 * plain["makespan_seconds"]


def test_the_image_aware_handoff_pulls_far_less_than_start_order_at_the_same_makespan(
    two_images: FleetSpec,
) -> None:
    """Summed over five seeds: the hand-off that follows images keeps the run near the plan's few image changes
    (the plan has 4 a run); handing pools on in start order loses most of them. The makespan stays within 1 %."""
    totals = {True: [0, 0, 0], False: [0, 0, 0]}
    for seed in range(7, 12):
        for handoff in (True, False):
            doc = simulate_fleet(two_images, SimulateOptions(seed=seed, image_handoff=handoff)).to_json()
            totals[handoff][0] += doc["warm_image_pulls"]
            totals[handoff][1] += doc["makespan_seconds"]
            totals[handoff][2] += doc["warm_starts"]
    assert 2 * totals[True][0] <= totals[False][0]
    assert totals[True][0] <= 5 * 4  # no more than the plan's image changes
    assert totals[True][1] <= 1.01 * totals[False][1]
    assert (
        totals[True][2] == totals[False][2]
    )  # as many warm starts: only which city takes which pool changed
