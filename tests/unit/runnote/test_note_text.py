"""The run note's text: what was asked (cities or all, spot, type, dry run), the plan, the cost, a refusal; a note
the person typed is kept, ours is replaced on a retry, and the whole stays within Airflow's limit."""

from __future__ import annotations

from pathlib import Path

import pytest

from sagemaker_fleet.fleetspec import load_fleet_spec
from sagemaker_fleet.fleetspec.overrides import FleetOverrides
from sagemaker_fleet.plan.model import PlanSummary
from sagemaker_fleet.runnote import asked_line, compose_note, cost_line, dry_run_line, plan_line, refused_line
from sagemaker_fleet.runnote.text import NOTE_MAX_CHARS

FLEETS = Path(__file__).resolve().parents[3] / "dags" / "fleets"


@pytest.fixture(scope="module")
def small():
    return load_fleet_spec(FLEETS / "small.yaml")


def test_the_whole_fleet_with_the_defaults(small) -> None:
    assert asked_line(FleetOverrides(), small, dry_run=False) == (
        "- Asked: all 12 cities · spot on · instance type: fleet default · train"
    )


def test_picked_cities_spot_off_a_type_and_a_dry_run(small) -> None:
    asked = FleetOverrides(cities=("lima", "oslo", "seoul"), spot=False, instance_type="ml.m5.2xlarge")
    assert asked_line(asked, small, dry_run=True) == (
        "- Asked: 3 of 12 cities (lima, oslo, seoul) · spot off · instance type: ml.m5.2xlarge · dry run"
    )


def test_many_cities_are_counted_not_all_named() -> None:
    weekly = load_fleet_spec(FLEETS / "weekly.yaml")
    names = tuple(c.name for c in weekly.cities[:300])
    line = asked_line(FleetOverrides(cities=names), weekly, dry_run=False)
    assert line.startswith(f"- Asked: 300 of {len(weekly.cities)} cities ({names[0]}, ")
    assert "… (290 more)" in line
    assert names[10] not in line.split("(")[1]


def test_plan_and_cost_lines() -> None:
    summary = PlanSummary(
        jobs=3,
        lanes=2,
        cold_starts=2,
        warm_starts=1,
        planned_makespan_seconds=1265,
        makespan_lower_bound_seconds=1200,
        planned_retained_seconds=40,
    )
    assert plan_line(summary) == "- Planned: 3 jobs · 1 warm / 2 cold starts · makespan 21 min 05 s"
    estimate = {
        "jobs": 3,
        "on_demand_usd": 0.3,
        "spot_upper_bound_usd": 0.1,
        "retained_usd": 0.02,
        "expected_usd": 0.42,
    }
    assert cost_line(estimate) == (
        "- Expected cost: $0.42 (on demand $0.30 · spot at most $0.10 · idle warm pools $0.02)"
    )
    # the run page shows a note's first line: a dry run's says what it would cost
    assert dry_run_line(summary, estimate) == (
        "- Dry run, nothing launched: expected cost $0.42 · 3 jobs · 1 warm / 2 cold starts · makespan 21 min 05 s"
    )


def test_a_refusal_names_the_reason_and_that_nothing_was_launched() -> None:
    line = refused_line(["params.cities: unknown city 'atlantis'; pick cities of fleet small"])
    assert line == (
        "- Refused: params.cities: unknown city 'atlantis'; pick cities of fleet small — nothing was launched"
    )


def test_the_persons_note_is_kept_above_ours_and_ours_is_replaced_on_a_retry() -> None:
    first = compose_note(["- Asked: all 12 cities", "- Planned: 12 jobs"], "checking the new quota")
    assert first == "checking the new quota\n\n- Asked: all 12 cities\n- Planned: 12 jobs"
    again = compose_note(["- Asked: all 12 cities", "- Planned: 11 jobs"], first)
    assert again == "checking the new quota\n\n- Asked: all 12 cities\n- Planned: 11 jobs"
    assert compose_note(["- Asked: x"], "- Refused: y") == "- Asked: x"
    assert (
        compose_note(["- Asked: x"], "mine\n\n- Dry run, nothing launched: z\n- Asked: x")
        == "mine\n\n- Asked: x"
    )
    assert compose_note(["- Asked: x"], None) == "- Asked: x"


def test_the_note_stays_within_airflows_limit_and_ours_wins() -> None:
    ours = ["- Asked: " + "a" * 300, "- Planned: " + "b" * 300]
    note = compose_note(ours, "x" * 2000)
    assert len(note) <= NOTE_MAX_CHARS
    assert note.endswith("\n".join(ours))
    assert note.startswith("xxx")
    assert "…" in note
    assert len(compose_note(["- Asked: " + "c" * 1500], None)) == NOTE_MAX_CHARS
