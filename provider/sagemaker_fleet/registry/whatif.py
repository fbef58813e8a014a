"""The gate's expected outcome for a run before its first real run: each city's model against an empty registry
(no champion anywhere, so the bound decides), from the values a simulated run's jobs reported — what ``simulate``
prints for a fleet with ``register:`` (pure; nothing is registered).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING

from sagemaker_fleet.registry.decision import CityDecision, RunDecisions, run_decisions
from sagemaker_fleet.registry.gate import GateRule, judge, usable
from sagemaker_fleet.registry.registration import verdict

if TYPE_CHECKING:
    from sagemaker_fleet.fleetspec.model import FleetSpec

#: What ends each what-if reason: no package was made.
WHAT_IF = "what-if, nothing registered"


def first_run(spec: FleetSpec, trained: Mapping[str, tuple[str, Mapping[str, float]]]) -> RunDecisions | None:
    """Each city with ``register:``: ``trained`` maps a city to its completed job's name and final metrics (a city
    missing from it did not train). None for a spec that registers no city."""
    decisions = []
    for city in spec.cities:
        register = city.register
        if register is None:
            continue
        if city.name not in trained:
            decisions.append(CityDecision(city.name, "not_trained", f"no completed job ({WHAT_IF})"))
            continue
        job, metrics = trained[city.name]
        value = metrics.get(register.metric)
        if value is None or not usable(value):
            reason = f"job {job} reported no {register.metric} ({WHAT_IF})"
            decisions.append(
                CityDecision(city.name, "no_metric", reason, job_name=job, metric=register.metric)
            )
            continue
        judgement = judge(GateRule.of(register), value, None, has_champion=False)
        decision, status, tail = verdict(judgement.outcome, register)
        decisions.append(
            CityDecision(
                city.name,
                decision,
                f"{judgement.reason}: {tail} ({WHAT_IF})",
                job_name=job,
                metric=register.metric,
                challenger=value,
                group=register.group_name(spec.fleet, city.name),
                status=status,
            )
        )
    return run_decisions(decisions) if decisions else None
