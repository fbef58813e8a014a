"""``simulate --compare`` says why when the planned run did worse than naive, with the run's own counts."""

from __future__ import annotations

import re
from collections import Counter

from sagemaker_fleet.cli.simulate_text import render_comparison, why_behind
from sagemaker_fleet.simulate import SimulateOptions, simulate_fleet
from unit.plan.plan_fleets import RUN_KEY
from unit.sim.small_fleets import store_fleet


def _compare(seed: int) -> tuple[dict, dict]:
    spec = store_fleet(seed)
    planned, naive = (
        simulate_fleet(spec, SimulateOptions(strategy=strategy, seed=7, run_key=RUN_KEY)).to_json()
        for strategy in ("planned", "naive")
    )
    return planned, naive


def test_fewer_warm_starts_than_naive_are_explained_with_counted_reasons() -> None:
    """Seed 6: the plan itself has fewer warm starts than naive gets (its lanes beyond the warm-pool quota start
    cold, and its run is shorter); the line gives the plan's count, the misses by reason and the unplanned ones,
    and they add up to the run's warm starts."""
    planned, naive = _compare(6)
    assert planned["warm_starts"] < naive["warm_starts"]
    text = render_comparison([planned, naive], 0.1)
    (line,) = [line for line in text.splitlines() if line.startswith("why:")]
    numbers = re.search(
        r"planned got (\d+) warm start\(s\) fewer than naive — the plan has (\d+) .* the run missed (\d+) of them "
        r"\(([^)]*)\) and got (\d+) it did not plan",
        line,
    )
    assert numbers is not None, line
    fewer, plan, missed, reasons, unplanned = numbers.groups()
    assert int(fewer) == naive["warm_starts"] - planned["warm_starts"]
    assert int(plan) == planned["plan"]["warm_starts"]
    assert int(missed) == len(planned["plan"]["missed_warm_starts"])
    assert int(plan) - int(missed) + int(unplanned) == planned["warm_starts"]
    counted = Counter(m["reason"] for m in planned["plan"]["missed_warm_starts"])
    assert set(reasons.split(", ")) == ({f"{reason} {n}" for reason, n in counted.items()} or {"none"})


def test_nothing_is_explained_when_planned_does_at_least_as_well() -> None:
    planned, naive = _compare(1)
    assert planned["warm_starts"] >= naive["warm_starts"]
    assert why_behind(planned, naive) == []
    assert "why:" not in render_comparison([planned, naive], 0.1)


def test_a_longer_makespan_beyond_two_percent_is_explained() -> None:
    planned, naive = _compare(1)
    slower = {**planned, "makespan_seconds": round(naive["makespan_seconds"] * 1.05)}
    (line,) = why_behind(slower, naive)
    assert line.startswith("why: planned ran 5% longer than naive")
    assert f"the plan expected {planned['plan']['planned_makespan_seconds']:,} s" in line
    within = {**planned, "makespan_seconds": round(naive["makespan_seconds"] * 1.02)}
    assert why_behind(within, naive) == []
