"""Final metrics of a simulated job (DescribeTrainingJob's ``FinalMetricDataList``), for jobs that define metrics.

SageMaker reads a metric's last value from the job's logs with its ``MetricDefinitions`` regex; the simulator has
no logs, so the values are drawn from hashes, the same on every describe and every run of the simulator:

- a fleet's job (its ``sagemaker-fleet:city`` tag names the city): each city has a seeded level per metric, in
  [0.1, 0.9); each job lands on one of a few steps around it (:data:`STEPS`: 10 % better to 10 % worse, "the same"
  twice as likely), drawn from the job's name. Two runs of a city therefore give a better model, a worse one or
  exactly the same value, as the model registry's gate needs to be exercised (winners, losers and ties);
- any other job: uniform in [0.05, 0.95), from the job's name.

Four decimals either way. A city listed in :attr:`MetricModel.missing` reports no metric at all (its container
printed nothing its regexes match). docs/guides/job-template.md#in-the-simulator says the same for users.
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from sagemaker_fleet.fleetspec.names import CITY_TAG, FLEET_TAG

#: SageMaker reports at most this many final metrics (the model's bound on MetricDefinitions and on the list).
MAX_METRICS = 40
#: A city's job lands on one of these multiples of its city's level (1.0 twice: a tie with the previous run is
#: as common as any one move).
STEPS = (0.90, 0.95, 0.98, 1.0, 1.0, 1.02, 1.05, 1.10)


@dataclass(frozen=True)
class MetricModel:
    """The simulator's final metrics: ``missing`` cities (``city`` or ``fleet/city``) report none."""

    missing: frozenset[str] = frozenset()


def _unit(*parts: object) -> float:
    digest = hashlib.sha256("\0".join(map(str, parts)).encode()).digest()
    return int.from_bytes(digest[:8], "big") / 2**64


def metric_value(job_name: str, metric: str) -> float:
    """The final value of ``metric`` for a job named ``job_name`` that belongs to no city."""
    return round(0.05 + 0.9 * _unit(job_name, metric), 4)


def city_level(seed: int, fleet: str, city: str, metric: str) -> float:
    """The level a city's ``metric`` stays around, run after run."""
    return 0.1 + 0.8 * _unit("level", seed, fleet, city, metric)


def city_metric_value(seed: int, fleet: str, city: str, job_name: str, metric: str) -> float:
    """The final value of ``metric`` for the city's job ``job_name``: its level times a step drawn from the name."""
    step = STEPS[int(_unit("step", seed, job_name, metric) * len(STEPS))]
    return round(city_level(seed, fleet, city, metric) * step, 4)


def final_metrics(
    job_name: str,
    request: Mapping[str, Any],
    at: float,
    *,
    seed: int = 0,
    tags: Mapping[str, str] | None = None,
    model: MetricModel | None = None,
) -> list[dict[str, Any]]:
    """``FinalMetricDataList`` of a completed job: one entry per metric definition, stamped ``at``."""
    algorithm = request.get("AlgorithmSpecification") or {}
    names = [d.get("Name") for d in algorithm.get("MetricDefinitions") or () if isinstance(d, Mapping)]
    tags = tags or {}
    city, fleet = tags.get(CITY_TAG), tags.get(FLEET_TAG, "")
    if city is not None and model is not None and {city, f"{fleet}/{city}"} & model.missing:
        return []

    def value(name: str) -> float:
        if city is None:
            return metric_value(job_name, name)
        return city_metric_value(seed, fleet, city, job_name, name)

    return [
        {"MetricName": name, "Value": value(name), "Timestamp": at}
        for name in names[:MAX_METRICS]
        if isinstance(name, str)
    ]
