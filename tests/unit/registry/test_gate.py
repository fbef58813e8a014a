"""The champion gate's rule, exactly as the guide states it (docs/guides/model-registry.md#the-gate), checked
value by value and as properties over random metrics (hypothesis)."""

from __future__ import annotations

import math

import pytest
from hypothesis import given
from hypothesis import strategies as st

from sagemaker_fleet.registry.gate import GateRule, judge

METRIC = "validation:rmse"
finite = st.floats(min_value=-1e6, max_value=1e6, allow_nan=False, allow_infinity=False)
margins = st.floats(min_value=0.0, max_value=0.99, allow_nan=False)
non_negative = st.floats(min_value=0.0, max_value=1e6, allow_nan=False, allow_infinity=False)


def rule(direction: str = "minimize", **kwargs: float | None) -> GateRule:
    return GateRule(METRIC, direction, **kwargs)  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("challenger", "champion", "outcome"),
    [
        (0.441, 0.45, "pass"),  # exactly c × (1 − 2 %)
        (0.4409, 0.45, "pass"),
        (0.4411, 0.45, "fail"),
        (0.45, 0.45, "fail"),  # a tie does not beat the champion by 2 %
        (0.9, 0.45, "fail"),
    ],
)
def test_minimize_with_a_relative_margin(challenger: float, champion: float, outcome: str) -> None:
    found = judge(rule(margin=0.02), challenger, champion, has_champion=True, champion_name="demand-seoul/1")
    assert found.outcome == outcome
    assert found.threshold == 0.45 * (1 - 0.02)
    assert "demand-seoul/1" in found.reason


def test_a_zero_margin_approves_a_tie_and_an_absolute_one_subtracts() -> None:
    assert judge(rule(margin=0.0), 0.45, 0.45, has_champion=True).outcome == "pass"
    absolute = rule(margin_abs=0.05)
    assert judge(absolute, 0.39, 0.45, has_champion=True).outcome == "pass"
    assert judge(absolute, 0.41, 0.45, has_champion=True).outcome == "fail"
    assert judge(rule("maximize", margin_abs=0.05), 0.96, 0.9, has_champion=True).outcome == "pass"


def test_a_first_model_is_held_to_the_bound_or_waits_for_a_person() -> None:
    bounded = rule(margin=0.02, bound=0.5)
    assert judge(bounded, 0.5, None, has_champion=False).outcome == "pass"
    failed = judge(bounded, 0.51, None, has_champion=False)
    assert failed.outcome == "fail"
    assert failed.reason == f"no Approved champion; {METRIC} 0.51 > the bound 0.5"
    assert judge(rule("maximize", bound=0.5), 0.49, None, has_champion=False).outcome == "fail"
    unbounded = judge(rule(margin=0.02), 0.1, None, has_champion=False)
    assert (unbounded.outcome, unbounded.threshold) == ("person", None)


def test_a_champion_without_a_known_metric_goes_to_a_person() -> None:
    found = judge(rule(margin=0.02, bound=1.0), 0.1, None, has_champion=True, champion_name="g/3")
    assert found.outcome == "person"
    assert "the champion g/3 has no recorded" in found.reason


def test_a_negative_metric_is_never_let_through_worse() -> None:
    """A log-likelihood to maximize at −100: 2 % better is −98, not −102."""
    found = judge(rule("maximize", margin=0.02), -99.0, -100.0, has_champion=True)
    assert found.threshold == -98.0
    assert found.outcome == "fail"
    assert judge(rule("minimize", margin=0.02), -101.0, -100.0, has_champion=True).threshold == -102.0


@given(challenger=finite, champion=st.floats(min_value=0, max_value=1e6, allow_nan=False), margin=margins)
def test_minimize_relative_is_the_written_rule(challenger: float, champion: float, margin: float) -> None:
    found = judge(rule(margin=margin), challenger, champion, has_champion=True)
    assert (found.outcome == "pass") == (challenger <= champion * (1 - margin))


@given(challenger=finite, champion=finite, margin=non_negative)
def test_minimize_absolute_is_the_written_rule(challenger: float, champion: float, margin: float) -> None:
    found = judge(rule(margin_abs=margin), challenger, champion, has_champion=True)
    assert (found.outcome == "pass") == (challenger <= champion - margin)


@given(challenger=finite, champion=finite, margin=margins, absolute=st.booleans())
def test_maximize_mirrors_minimize(challenger: float, champion: float, margin: float, absolute: bool) -> None:
    kind = {"margin_abs": margin} if absolute else {"margin": margin}
    up = judge(rule("maximize", **kind), challenger, champion, has_champion=True)
    down = judge(rule("minimize", **kind), -challenger, -champion, has_champion=True)
    assert up.outcome == down.outcome
    assert up.threshold == -down.threshold  # type: ignore[operator]


@given(champion=finite, margin=margins, worse=st.floats(min_value=0, max_value=1e3))
def test_the_threshold_is_never_worse_than_the_champion(champion: float, margin: float, worse: float) -> None:
    """Whatever the sign of the metric, a model worse than its champion never passes."""
    for direction, sign in (("minimize", 1), ("maximize", -1)):
        gate = rule(direction, margin=margin)
        threshold = gate.threshold(champion)
        assert threshold * sign <= champion * sign
        challenger = champion + sign * worse
        if challenger * sign > champion * sign:  # representably worse
            assert judge(gate, challenger, champion, has_champion=True).outcome == "fail"


@given(a=finite, b=finite, champion=finite, margin=margins)
def test_a_better_model_never_loses_where_a_worse_one_wins(
    a: float, b: float, champion: float, margin: float
) -> None:
    better, worse = min(a, b), max(a, b)
    gate = rule(margin=margin)
    if judge(gate, worse, champion, has_champion=True).outcome == "pass":
        assert judge(gate, better, champion, has_champion=True).outcome == "pass"


@given(challenger=finite, bound=finite, direction=st.sampled_from(["minimize", "maximize"]))
def test_a_first_model_passes_exactly_when_it_reaches_the_bound(
    challenger: float, bound: float, direction: str
) -> None:
    found = judge(rule(direction, margin=0.02, bound=bound), challenger, None, has_champion=False)
    reaches = challenger <= bound if direction == "minimize" else challenger >= bound
    assert found.outcome == ("pass" if reaches else "fail")
    assert math.isfinite(found.threshold or 0.0)
