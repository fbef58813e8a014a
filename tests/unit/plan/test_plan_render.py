"""The ``--format table`` rendering of a plan."""

from __future__ import annotations

from pathlib import Path

from sagemaker_fleet.fleetspec import load_fleet_spec
from sagemaker_fleet.plan import plan_fleet
from sagemaker_fleet.plan.render import render_table
from unit.plan.plan_fleets import RUN_KEY


def test_table_shows_groups_lanes_and_makespan_against_bound(fleets_dir: Path) -> None:
    plan = plan_fleet(load_fleet_spec(fleets_dir / "small.yaml"), RUN_KEY)
    table = render_table(plan)
    assert f"Plan of fleet small, run {RUN_KEY}: 12 jobs in {plan.summary.lanes} lanes" in table
    assert "g1    warm pool" in table
    assert "1 × ml.m5.2xlarge, role TeamB, 30 GB" in table
    assert "spot" in table
    for lane in plan.lanes:
        assert f"  lane {lane.lane} · {lane.group} ·" in table
        for job in lane.jobs:
            assert f"  {job.city}" in table
    summary = plan.summary
    span = summary.planned_makespan_seconds
    assert span < 3600  # the small fleet plans minutes: seconds are shown beside them
    assert f"Planned makespan {span} s ({span // 60} min {span % 60:02d} s)" in table
    assert f"lower bound {summary.makespan_lower_bound_seconds} s" in table
    assert "keep-alive  240 s" in table
