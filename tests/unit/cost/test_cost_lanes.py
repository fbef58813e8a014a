"""Lanes rebuilt from ReusedByJob: chains follow the pool, non-overlapping chains share a lane."""

from __future__ import annotations

from datetime import UTC, datetime

from sagemaker_fleet.cost import build_cost_report
from sagemaker_fleet.fleetspec.price_table import load_price_table
from sagemaker_fleet.jobs.prices import PriceBook
from unit.cost.cost_describes import RUN_KEY, demo_run, demo_spec, describe_job, end_of


def lanes_of(describes: list[dict[str, object]]) -> dict[str, list[list[str]]]:
    spec = demo_spec()
    report = build_cost_report(
        spec,
        RUN_KEY,
        describes,
        PriceBook(spec.region, load_price_table()),
        generated_at=datetime(2026, 11, 29, 12, tzinfo=UTC),
    )
    return {lane.label: [list(chain.jobs) for chain in lane.chains] for lane in report.lanes}


def test_chain_follows_reused_by_job_in_order() -> None:
    lanes = lanes_of(demo_run())
    # groups as the plan numbers them: seoul's key g0, perth's spot g1 (the spec's order)
    assert lanes["g0 · lane 1"][0] == ["demo-seoul-20261129", "demo-tokyo-20261129", "demo-lagos-20261129"]
    assert lanes["g0 · lane 2"] == [["demo-lima-20261129"]]  # overlaps the chain: its own lane
    assert lanes["g1 · lane 1"] == [["demo-perth-20261129"], ["demo-perth-20261129-r2"]]


def test_a_chain_starting_after_another_ends_shares_its_lane() -> None:
    a = describe_job(
        "demo-seoul-20261129", training=600, retained=100, keep_alive=300, pool_status="Terminated"
    )
    b = describe_job("demo-tokyo-20261129", created=end_of(a) + 100, training=600)  # after a's idle pool
    c = describe_job("demo-lagos-20261129", created=end_of(a) + 50, training=600)  # during a's idle pool
    lanes = lanes_of([a, b, c])
    assert lanes["g0 · lane 1"] == [["demo-seoul-20261129"], ["demo-tokyo-20261129"]]
    assert lanes["g0 · lane 2"] == [["demo-lagos-20261129"]]


def test_a_cycle_in_corrupt_data_does_not_hang_and_keeps_every_job() -> None:
    a = describe_job("demo-seoul-20261129", reused_by="demo-tokyo-20261129", pool_status="Reused", retained=0)
    b = describe_job(
        "demo-tokyo-20261129", created=2000, reused_by="demo-seoul-20261129", pool_status="Reused", retained=0
    )
    lanes = lanes_of([a, b])
    jobs = [job for chains in lanes.values() for chain in chains for job in chain]
    assert sorted(jobs) == ["demo-seoul-20261129", "demo-tokyo-20261129"]
