"""``simulate`` names each planned warm start that started cold, and why (the cost report's reasons: each is tested
in tests/unit/cost/test_cost_against_plan.py)."""

from __future__ import annotations

import json

from sagemaker_fleet.cli.simulate_text import render_summary
from sagemaker_fleet.cost.against_plan import MISS_REASONS
from sagemaker_fleet.plan import plan_fleet
from sagemaker_fleet.simulate import SimulateOptions, simulate_fleet
from unit.plan.plan_fleets import RUN_KEY
from unit.sim.small_fleets import store_fleet


def test_simulate_lists_every_missed_planned_warm_start_in_json_and_text() -> None:
    """On a generated 30-store fleet the run misses some planned warm starts: each one is named, with a reason,
    and they are exactly the plan's warm cities the run counted cold."""
    result = simulate_fleet(store_fleet(1), SimulateOptions(strategy="planned", seed=7, run_key=RUN_KEY))
    doc = json.loads(json.dumps(result.to_json()))
    missed = doc["plan"]["missed_warm_starts"]
    plan = plan_fleet(store_fleet(1), RUN_KEY)
    cold = {line.city for line in result.report.lines if line.start == "cold"}
    expected = [job.city for job in plan.jobs if job.start == "warm" and job.city in cold]
    assert expected, "the fixture should miss at least one planned warm start"
    assert [m["city"] for m in missed] == expected
    assert all(m["reason"] in MISS_REASONS and m["detail"] for m in missed)
    # the same list as the run's cost report, which has it per group
    assert missed == [m.to_json() for m in result.report.against_plan.missed]
    text = render_summary(doc, 0.1)
    assert f"missed     {len(missed)} planned warm start(s) started cold:" in text
    for m in missed:
        assert f"  {m['city']}: {m['reason']} — {m['detail']}" in text


def test_naive_has_no_plan_and_no_missed_list() -> None:
    result = simulate_fleet(store_fleet(1), SimulateOptions(strategy="naive", seed=7, run_key=RUN_KEY))
    assert "plan" not in result.to_json()
    assert "missed" not in render_summary(result.to_json(), 0.1)
