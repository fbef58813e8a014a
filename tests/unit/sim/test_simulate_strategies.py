"""``planned`` follows the plan (warm starts, keep-alive, latency); ``naive`` is the stock pattern (CONTRACT §3).

Both run the 200-city demo fleet once per module with the default seed, with the spec default orchestration
latency of 120 s (the demo file's 900 s is sized for `make demo`'s sped-up clock, not for AWS).
"""

from __future__ import annotations

import dataclasses
import math
from pathlib import Path
from typing import Any

import pytest

from sagemaker_fleet.sim.driver import FleetSimulation, SimulateOptions
from sagemaker_fleet.spec import FleetSpec, load_fleet_spec

DEMO = Path(__file__).resolve().parents[3] / "dags" / "fleets" / "demo.yaml"


@pytest.fixture(scope="module")
def demo() -> FleetSpec:
    return dataclasses.replace(load_fleet_spec(DEMO), orchestration_latency_seconds=120)


@pytest.fixture(scope="module")
def planned(demo: FleetSpec) -> FleetSimulation:
    sim = FleetSimulation(demo, SimulateOptions(strategy="planned"))
    sim.run()
    return sim


@pytest.fixture(scope="module")
def naive(demo: FleetSpec) -> FleetSimulation:
    sim = FleetSimulation(demo, SimulateOptions(strategy="naive"))
    sim.run()
    return sim


def _describes(sim: FleetSimulation) -> dict[str, dict[str, Any]]:
    return {str(d["TrainingJobName"]): d for d in sim.describes()}


def test_planned_starts_warm_and_cold_as_planned(planned: FleetSimulation) -> None:
    doc = planned.result().to_json()
    assert planned.plan is not None
    summary = planned.plan.summary

    assert doc["completed"] == doc["jobs"] == summary.jobs
    assert abs(doc["cold_starts"] - summary.cold_starts) <= 0.05 * summary.jobs
    assert abs(doc["warm_starts"] - summary.warm_starts) <= 0.05 * summary.jobs
    assert doc["plan"] == {
        "cold_starts": summary.cold_starts,
        "warm_starts": summary.warm_starts,
        "lanes": summary.lanes,
        "planned_makespan_seconds": summary.planned_makespan_seconds,
        "planned_retained_seconds": summary.planned_retained_seconds,
    }


def test_planned_successors_come_one_latency_after_their_predecessor_within_its_keep_alive(
    planned: FleetSimulation, demo: FleetSpec
) -> None:
    assert planned.plan is not None
    describes = _describes(planned)
    latency = demo.orchestration_latency_seconds
    checked = 0
    for lane in planned.plan.lanes:
        for before, after in zip(lane.jobs, lane.jobs[1:], strict=False):
            gap = describes[after.job_name]["CreationTime"] - planned.ended_at[before.job_name]
            assert gap == pytest.approx(latency, abs=0.01)
            keep_alive = describes[before.job_name]["ResourceConfig"].get("KeepAlivePeriodInSeconds", 0)
            assert keep_alive == before.keep_alive_seconds
            if after.start == "warm":
                assert gap < keep_alive
                checked += 1
    assert checked > 50


def test_lanes_start_at_their_planned_start(planned: FleetSimulation) -> None:
    assert planned.plan is not None
    describes = _describes(planned)
    for lane in planned.plan.lanes:
        first = lane.jobs[0]
        offset = describes[first.job_name]["CreationTime"] - planned.started_at
        assert offset == pytest.approx(first.planned_start_seconds, abs=0.01)


def test_naive_keeps_every_on_demand_pool_600_seconds(naive: FleetSimulation) -> None:
    for described in naive.describes():
        keep_alive = described["ResourceConfig"].get("KeepAlivePeriodInSeconds", 0)
        assert keep_alive == (0 if described["EnableManagedSpotTraining"] else 600)


def test_naive_polls_each_job_every_30_seconds(naive: FleetSimulation) -> None:
    doc = naive.result().to_json()
    describes = naive.describes()
    # polls at creation + 30 s, + 60 s, … up to the first one at or after the job's end
    expected = sum(
        math.ceil((naive.ended_at[d["TrainingJobName"]] - d["CreationTime"]) / 30) for d in describes
    )
    assert doc["api_calls"]["DescribeTrainingJob"] == expected
    assert doc["api_calls"]["ListTrainingJobs"] == 0


def test_naive_retains_more_pool_time_and_calls_far_more_than_planned(
    planned: FleetSimulation, naive: FleetSimulation
) -> None:
    p, n = planned.result().to_json(), naive.result().to_json()

    assert n["retained_billable_seconds"] > 2 * p["retained_billable_seconds"]
    assert n["cost_usd"] > p["cost_usd"]
    assert n["api_calls"]["DescribeTrainingJob"] > 20 * p["api_calls"]["DescribeTrainingJob"]
    assert sum(n["api_calls"].values()) > 5 * sum(p["api_calls"].values())
    assert n["quota_rejections"] > 0 == p["quota_rejections"]  # idle 600 s pools hold the instance quota
    assert n["completed"] == p["completed"] == p["jobs"]
