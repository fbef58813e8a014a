"""``planned`` dispatches as the fleet DAG's triggerer does; ``naive`` is the stock pattern (docs/formats.md, command line).

Both run the 200-city demo fleet once per module with the default seed, with the spec default orchestration
latency of 120 s (the demo file's 900 s is sized for `make demo`'s sped-up clock, not for AWS).
"""

from __future__ import annotations

import dataclasses
import math
from pathlib import Path
from typing import Any

import pytest

from sagemaker_fleet.dispatch.shell import MAX_BACKOFF_FACTOR
from sagemaker_fleet.fleetspec import FleetSpec, load_fleet_spec
from sagemaker_fleet.simulate import FleetSimulation, SimulateOptions

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
    missed = doc["plan"].pop("missed_warm_starts")  # each a city the plan starts warm (why: its own tests)
    assert all(planned.plan.job(m["city"]).start == "warm" for m in missed)
    assert doc["plan"] == {
        "cold_starts": summary.cold_starts,
        "warm_starts": summary.warm_starts,
        "lanes": summary.lanes,
        "planned_makespan_seconds": summary.planned_makespan_seconds,
        "planned_retained_seconds": summary.planned_retained_seconds,
    }


def test_planned_hand_offs_come_within_one_sweep_of_the_predecessors_end(planned: FleetSimulation) -> None:
    """The successor is created in the poller sweep that saw its predecessor end (≤ 10 s apart while cities
    wait) plus the trigger's hand-off time — not one orchestration latency later — and inside the keep-alive."""
    describes = _describes(planned)
    handoff = planned.options.handoff_seconds
    sweep = min(planned.options.cadence.poll_interval, planned.options.cadence.handoff_interval)
    checked = 0
    for name, described in describes.items():
        successor = (described.get("WarmPoolStatus") or {}).get("ReusedByJob")
        if not successor:
            continue
        gap = describes[successor]["CreationTime"] - planned.ended_at[name]
        assert handoff - 0.01 <= gap <= sweep + handoff + 0.01, (name, successor, gap)
        assert gap < described["ResourceConfig"]["KeepAlivePeriodInSeconds"]
        checked += 1
    assert checked > 100


def test_planned_groups_start_in_rank_order_and_never_wider_than_their_width(
    planned: FleetSimulation,
) -> None:
    assert planned.tracker is not None
    book = planned.tracker.book
    describes = _describes(planned)
    for group, cities in book.members.items():
        names = [planned.tasks[city].submissions[0] for city in cities]
        created = [describes[name]["CreationTime"] for name in names]
        assert created == sorted(created), group
        spans = [(describes[n]["CreationTime"], planned.ended_at[n]) for n in names]
        edges = sorted([(start, 1) for start, _ in spans] + [(end, -1) for _, end in spans])
        running = peak = 0
        for _, step in edges:
            running += step
            peak = max(peak, running)
        assert peak <= book.widths[group], group


def test_planned_ends_idle_pools_no_city_will_take_over(planned: FleetSimulation) -> None:
    """Once every city of a group has started, an idle pool of that group is ended, not left to expire."""
    doc = planned.result().to_json()
    assert doc["retained_billable_seconds"] < 0.01 * doc["billable_seconds"]


def _idle_after_last_end(sim: FleetSimulation) -> float:
    describes = sim.describes()
    last = max(float(d["TrainingEndTime"]) for d in describes if d.get("TrainingEndTime"))
    return sum(
        max(
            0.0,
            float(d["TrainingEndTime"])
            + float((d.get("WarmPoolStatus") or {}).get("ResourceRetainedBillableTimeInSeconds", 0))
            - last,
        )
        for d in describes
        if d.get("TrainingEndTime")
    )


def test_planned_leaves_no_pool_idle_after_the_runs_last_job_end(
    planned: FleetSimulation, demo: FleetSpec
) -> None:
    """A group's last jobs get keep-alive 0 while they run: not one retained second after the run's last end.
    Ending their pools only once idle (the sweep after) leaves some."""
    assert _idle_after_last_end(planned) == 0
    later = FleetSimulation(demo, SimulateOptions(strategy="planned", tail_release=False))
    later.run()
    assert _idle_after_last_end(later) > 0
    assert (
        planned.result().to_json()["retained_billable_seconds"]
        < later.result().to_json()["retained_billable_seconds"]
    )


def test_a_throttled_pool_end_is_sent_again_not_dropped(demo: FleetSpec) -> None:
    """Under throttling the sweep that hands out a pool end may have it refused for its rate: the next sweep sends
    it again, so after the run's last end a pool idles for a few backed-off sweeps at most, not until its
    keep-alive runs out (837 s of this fleet's pools did, when a throttled end was dropped)."""
    options = SimulateOptions(strategy="planned", throttle_share=0.3)
    throttled = FleetSimulation(demo, options)
    throttled.run()
    assert throttled.result().to_json()["throttled"] > 0
    assert _idle_after_last_end(throttled) < MAX_BACKOFF_FACTOR * options.cadence.poll_interval


def test_a_tail_release_refused_while_jobs_run_still_ends_every_pool_within_a_sweep(
    demo: FleetSpec, planned: FleetSimulation
) -> None:
    """Should AWS refuse keep-alive 0 on a running job, each of a group's last jobs ends with its pool, and the
    sweep that sees it Available ends it (surplus_pools): idle for less than one sweep interval (30 s), not for
    its keep-alive — and the run is otherwise the same."""
    options = SimulateOptions(strategy="planned", refuse_keep_alive_while_running=True)
    refused = FleetSimulation(demo, options)
    refused.run()
    assert refused.engine.api_calls()["errors"]["UpdateTrainingJob:ValidationException"] >= 10
    sweep = options.cadence.poll_interval
    last = max(refused.ended_at.values())
    idled = 0
    for described in refused.describes():
        pool = described.get("WarmPoolStatus") or {}
        retained = pool.get("ResourceRetainedBillableTimeInSeconds", 0)
        if pool.get("Status") == "Terminated" and retained:
            idled += 1
            assert retained < sweep, described["TrainingJobName"]
            assert described["ResourceConfig"]["KeepAlivePeriodInSeconds"] == 0  # ended by the poller
        assert refused.ended_at[described["TrainingJobName"]] + retained - last < sweep
    assert idled >= 10
    assert 0 < _idle_after_last_end(refused) < sweep
    p, r = planned.result().to_json(), refused.result().to_json()
    assert p["retained_billable_seconds"] < r["retained_billable_seconds"]
    for same in ("warm_starts", "cold_starts", "makespan_seconds", "billable_seconds"):
        assert r[same] == p[same], same


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
