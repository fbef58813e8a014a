"""The champion gate, as one pure rule (docs/guides/model-registry.md#the-gate).

A city's new model (its metric ``m``) against the latest Approved model of its group (its metric ``c``), for a
metric to minimize:

- with a champion: passes when ``m ≤ c − margin × |c|`` (relative; for ``c ≥ 0`` that is ``c × (1 − margin)``)
  or ``m ≤ c − margin_abs`` (absolute);
- without one: passes when ``m ≤ bound``; without a bound, a person decides (PendingManualApproval);
- a champion whose metric is not known (registered by someone else, its job gone): a person decides.

To maximize, the same with the inequalities the other way (``m ≥ c + margin × |c|``, ``m ≥ bound``). The relative
margin scales with ``|c|``, so a negative metric (a log-likelihood) is never let through worse than its champion.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import TYPE_CHECKING, Literal

if TYPE_CHECKING:
    from sagemaker_fleet.fleetspec.register_model import Direction, RegisterSpec

#: What the gate says of a model: it passes, it does not, or a person must decide.
Outcome = Literal["pass", "fail", "person"]


@dataclass(frozen=True)
class GateRule:
    """The gate's rule: the metric, its direction, one margin (relative or absolute) and the first model's bound."""

    metric: str
    direction: Direction
    margin: float | None = None
    margin_abs: float | None = None
    bound: float | None = None

    @classmethod
    def of(cls, spec: RegisterSpec) -> GateRule:
        return cls(spec.metric, spec.direction, spec.margin, spec.margin_abs, spec.bound)

    def threshold(self, champion: float) -> float:
        """The value a challenger must reach (at most when minimizing, at least when maximizing). The relative
        margin is computed as written above, ``c × (1 − margin)``, so that a value exactly on it passes."""
        minimize = self.direction == "minimize"
        if self.margin_abs is not None:
            return champion - self.margin_abs if minimize else champion + self.margin_abs
        margin = self.margin or 0.0
        toward_better = -margin if minimize else margin
        # |c| scales the margin: for c < 0 the factor flips, so that the threshold is still the better side of c
        return champion * (1 + toward_better) if champion >= 0 else champion * (1 - toward_better)

    def reaches(self, value: float, threshold: float) -> bool:
        return value <= threshold if self.direction == "minimize" else value >= threshold

    def margin_text(self) -> str:
        if self.margin_abs is not None:
            return f"{_number(self.margin_abs)}"
        return f"{_number((self.margin or 0.0) * 100)} %"


@dataclass(frozen=True)
class Judgement:
    """The gate's answer for one model: its outcome, the threshold it was held to (None: a person decides without
    one) and why, in a sentence (the package's ApprovalDescription)."""

    outcome: Outcome
    threshold: float | None
    reason: str


def judge(
    rule: GateRule, challenger: float, champion: float | None, *, has_champion: bool, champion_name: str = ""
) -> Judgement:
    """The gate for a model whose metric is ``challenger`` (finite). ``has_champion``: the city's group has an
    Approved package (``champion``: its metric, None when not known; ``champion_name`` names it in the reason)."""
    better, worse = ("≤", ">") if rule.direction == "minimize" else ("≥", "<")
    name, value = rule.metric, _number(challenger)
    if has_champion and champion is None:
        return Judgement(
            "person",
            None,
            f"the champion {champion_name} has no recorded {name} and its training job does not report one: a "
            f"person compares {name} {value} with it",
        )
    if has_champion and champion is not None:
        threshold = rule.threshold(champion)
        beats = rule.reaches(challenger, threshold)
        held = (
            f"the champion {champion_name}'s {_number(champion)} {'less' if rule.direction == 'minimize' else 'plus'}"
            f" {rule.margin_text()}"
        )
        return Judgement(
            "pass" if beats else "fail",
            threshold,
            f"{name} {value} {better if beats else worse} {_number(threshold)} ({held})",
        )
    if rule.bound is None:
        return Judgement(
            "person",
            None,
            f"no Approved champion and no bound: a person approves the city's first model ({name} {value})",
        )
    passes = rule.reaches(challenger, rule.bound)
    return Judgement(
        "pass" if passes else "fail",
        rule.bound,
        f"no Approved champion; {name} {value} {better if passes else worse} the bound {_number(rule.bound)}",
    )


def usable(value: float | None) -> bool:
    """A metric the gate can compare: reported and finite (a container that printed ``nan`` reports NaN)."""
    return value is not None and math.isfinite(value)


def _number(value: float) -> str:
    """A metric as people read it: up to six significant digits, no float noise (0.1 + 0.2 → 0.3)."""
    return f"{value:.6g}"
