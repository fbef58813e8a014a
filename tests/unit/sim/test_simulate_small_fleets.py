"""On small fleets (issue #29, point 6) the planned run does at least as well as the stock behaviour: as many warm
starts and a makespan within 2 % — on the generated 30-store fleets whose plan has as many warm starts as naive
gets (seeds 1–5; where the plan itself has fewer, ``simulate --compare`` says why: test_simulate_compare_why)."""

from __future__ import annotations

import pytest

from sagemaker_fleet.simulate import SimulateOptions, simulate_fleet
from unit.plan.plan_fleets import RUN_KEY
from unit.sim.small_fleets import store_fleet


@pytest.mark.parametrize("seed", [1, 2, 3, 4, 5])
def test_planned_starts_as_many_warm_and_ends_no_later_than_naive(seed: int) -> None:
    spec = store_fleet(seed)
    planned, naive = (
        simulate_fleet(spec, SimulateOptions(strategy=strategy, seed=7, run_key=RUN_KEY)).to_json()
        for strategy in ("planned", "naive")
    )
    assert planned["warm_starts"] >= naive["warm_starts"]
    assert planned["makespan_seconds"] <= naive["makespan_seconds"] * 1.02
    assert planned["cost_usd"] <= naive["cost_usd"]
