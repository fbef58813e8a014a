"""``simulate`` names each planned warm start that started cold, and why (expiry, quota, ordering, spot)."""

from __future__ import annotations

import json
from dataclasses import replace
from datetime import UTC, datetime, timedelta

import pytest

from sagemaker_fleet.cli.simulate_text import render_summary
from sagemaker_fleet.cost.model import CostLine
from sagemaker_fleet.plan import plan_fleet
from sagemaker_fleet.simulate import SimulateOptions, simulate_fleet
from sagemaker_fleet.simulate.missed import missed_warm_starts
from unit.plan.plan_fleets import RUN_KEY, city, fleet
from unit.sim.small_fleets import store_fleet

BEGAN = datetime(2026, 11, 29, tzinfo=UTC)


def _at(seconds: float) -> datetime:
    return BEGAN + timedelta(seconds=seconds)


def _line(city_name: str, *, created: float, ended: float, **changes: object) -> CostLine:
    base = CostLine(
        city=city_name, job_name=f"demo-{city_name}-{RUN_KEY}", attempt=1, status="Completed",
        secondary_status="Completed", failure_reason=None, instance_type="ml.m5.xlarge", instance_count=1,
        spot=False, start="cold", start_evidence="timing", startup_seconds=180.0, startup_seconds_saved=0.0,
        training_seconds=600, billable_seconds=780, retained_billable_seconds=0, price_per_hour=0.23,
        price_source="table", created_at=_at(created), training_started_at=_at(created + 180), ended_at=_at(ended),
    )  # fmt: skip
    return replace(base, **changes)  # type: ignore[arg-type]


@pytest.fixture
def lane_plan():  # type: ignore[no-untyped-def]
    """One warm lane a → b (and a third city c that may take a's pool)."""
    from sagemaker_fleet.fleetspec.model import InstanceQuota

    spec = fleet([city("a", 600), city("b", 600)], {"ml.m5.xlarge": InstanceQuota(instances=1, warm_pools=1)})
    plan = plan_fleet(spec, RUN_KEY)
    assert [(j.city, j.start) for j in plan.jobs] == [("a", "cold"), ("b", "warm")]
    return plan


@pytest.mark.parametrize(
    ("a", "b", "reason", "words"),
    [
        ({"keep_alive_seconds": 240, "warm_pool_status": "Terminated", "retained_billable_seconds": 240},
         {"created": 1200}, "expiry", "pool was idle 240 s (keep-alive 240 s)"),
        ({"keep_alive_seconds": 240, "warm_pool_status": "Terminated"}, {"created": 850}, "quota",
         "warm-pool quota was full"),
        ({"keep_alive_seconds": 240, "warm_pool_status": "Reused", "reused_by_job": f"demo-c-{RUN_KEY}"},
         {"created": 900}, "ordering", "c took a's pool first"),
        ({"keep_alive_seconds": 240}, {"created": 500}, "ordering", "before a ended at 800 s"),
        ({"keep_alive_seconds": 240}, {"created": 900, "spot": True}, "spot", "never uses a warm pool"),
    ],
)  # fmt: skip
def test_each_reason_from_what_sagemaker_said_of_the_pool(lane_plan, a, b, reason, words) -> None:  # type: ignore[no-untyped-def]
    lines = (
        _line("a", created=0, ended=800, **a),
        _line("b", created=b.pop("created"), ended=2000, **b),
        _line("c", created=850, ended=1500, start="warm"),
    )
    (missed,) = missed_warm_starts(lane_plan, lines, BEGAN)
    assert (missed.city, missed.reason) == ("b", reason)
    assert words in missed.detail


def test_a_planned_warm_start_that_happened_is_not_listed(lane_plan) -> None:  # type: ignore[no-untyped-def]
    lines = (_line("a", created=0, ended=800), _line("b", created=900, ended=1600, start="warm"))
    assert missed_warm_starts(lane_plan, lines, BEGAN) == []


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
    assert all(
        m["reason"] in {"spot", "ordering", "quota", "expiry", "predecessor"} and m["detail"] for m in missed
    )
    text = render_summary(doc, 0.1)
    assert f"missed     {len(missed)} planned warm start(s) started cold:" in text
    for m in missed:
        assert f"  {m['city']}: {m['reason']} — {m['detail']}" in text


def test_naive_has_no_plan_and_no_missed_list() -> None:
    result = simulate_fleet(store_fleet(1), SimulateOptions(strategy="naive", seed=7, run_key=RUN_KEY))
    assert "plan" not in result.to_json()
    assert "missed" not in render_summary(result.to_json(), 0.1)
