"""``simulate`` driver: the simulate JSON of docs/formats.md, determinism, and prices from the one cost model."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from contract_fields import SIMULATE_FIELDS
from sagemaker_fleet.cost import build_cost_report
from sagemaker_fleet.fleetspec import FleetSpec, load_fleet_spec
from sagemaker_fleet.fleetspec.price_table import load_price_table
from sagemaker_fleet.jobs.prices import PriceBook
from sagemaker_fleet.simulate import FleetSimulation, Progress, SimulateOptions, simulate_fleet

STABLE_FIELDS = SIMULATE_FIELDS


@pytest.fixture(scope="module")
def small() -> FleetSpec:
    return load_fleet_spec(Path(__file__).resolve().parents[3] / "dags" / "fleets" / "small.yaml")


@pytest.mark.parametrize("strategy", ["planned", "naive"])
def test_the_json_has_every_contract_field_with_its_type(small: FleetSpec, strategy: str) -> None:
    doc = simulate_fleet(small, SimulateOptions(strategy=strategy)).to_json()  # type: ignore[arg-type]

    assert list(doc)[: len(STABLE_FIELDS)] == list(STABLE_FIELDS)  # stable order, extras after
    for field, kind in STABLE_FIELDS.items():
        assert type(doc[field]) is kind, field
    assert set(doc["api_calls"]) == {"CreateTrainingJob", "DescribeTrainingJob", "ListTrainingJobs"}
    assert doc["strategy"] == strategy
    assert doc["seed"] == 7
    assert doc["jobs"] == len(small.cities) == doc["completed"] + doc["failed"]
    assert doc["cold_starts"] + doc["warm_starts"] == doc["jobs"] + doc["resubmitted"]  # per submission
    assert doc["api_calls"]["CreateTrainingJob"] >= doc["jobs"] + doc["resubmitted"]
    assert 0 < doc["cost_usd"] <= doc["on_demand_equivalent_usd"]
    json.dumps(doc)  # JSON-ready


@pytest.mark.parametrize("strategy", ["planned", "naive"])
def test_the_same_seed_gives_the_same_json_and_another_seed_another_run(
    small: FleetSpec, strategy: str
) -> None:
    def run(seed: int) -> str:
        options = SimulateOptions(strategy=strategy, seed=seed)  # type: ignore[arg-type]
        return json.dumps(simulate_fleet(small, options).to_json())

    first = run(7)
    assert run(7) == first
    assert run(8) != first


def test_totals_are_the_cost_report_of_the_same_describes(small: FleetSpec) -> None:
    sim = FleetSimulation(small, SimulateOptions(strategy="naive"))
    doc = sim.run().to_json()
    book = PriceBook(small.region, load_price_table(), spec_prices=small.prices)
    totals = build_cost_report(small, "20261129", sim.describes(), book).totals

    assert doc["cost_usd"] == pytest.approx(totals.cost_usd, abs=0.005)
    assert doc["on_demand_equivalent_usd"] == pytest.approx(totals.on_demand_cost_usd, abs=0.005)
    assert doc["spot_savings_pct"] == pytest.approx(totals.spot_savings_pct, abs=0.005)
    assert doc["training_seconds"] == totals.training_seconds
    assert doc["billable_seconds"] == totals.billable_seconds
    assert doc["retained_billable_seconds"] == totals.retained_billable_seconds > 0
    assert (doc["warm_starts"], doc["cold_starts"]) == (totals.warm_starts, totals.cold_starts)


def test_api_calls_come_from_the_engine_counters_and_exclude_the_final_describes(small: FleetSpec) -> None:
    sim = FleetSimulation(small)
    doc = sim.run().to_json()
    calls = sim.engine.api_calls()["calls"]

    # after the run, the result's describes (one per submission) came on top of what the strategy made
    assert calls["DescribeTrainingJob"] == doc["api_calls"]["DescribeTrainingJob"] + doc["submissions"]
    assert calls["ListTrainingJobs"] == doc["api_calls"]["ListTrainingJobs"] > 0
    # batched polling: one describe per job, once terminal
    assert doc["api_calls"]["DescribeTrainingJob"] == doc["submissions"]


def test_progress_is_reported_until_every_city_finished(small: FleetSpec) -> None:
    seen: list[Progress] = []
    result = FleetSimulation(small).run(on_progress=seen.append, every_seconds=300.0)

    assert len(seen) > 3
    assert [p.elapsed_seconds for p in seen] == sorted(p.elapsed_seconds for p in seen)
    assert seen[0].running > 0
    assert seen[-1].finished == seen[-1].cities == result.jobs
    assert seen[-1].fraction == 1.0
    assert seen[-1].elapsed_seconds >= result.makespan_seconds


def test_a_run_that_is_not_over_has_no_result(small: FleetSpec) -> None:
    from sagemaker_fleet.simulate import SimulationError

    sim = FleetSimulation(small)
    sim.step()
    with pytest.raises(SimulationError, match="not over"):
        sim.result()


@pytest.mark.parametrize("strategy", ["planned", "naive"])
def test_failed_jobs_count_as_failed_cities_and_the_run_goes_on(small: FleetSpec, strategy: str) -> None:
    options = SimulateOptions(strategy=strategy, failure_probability=1.0)  # type: ignore[arg-type]
    sim = FleetSimulation(small, options)
    doc = sim.run().to_json()

    assert (doc["completed"], doc["failed"], doc["resubmitted"]) == (0, 12, 0)  # no new try within a run
    assert all(task.reason.startswith("AlgorithmError") for task in sim.tasks.values())
