"""Final metrics of a simulated job (DescribeTrainingJob's ``FinalMetricDataList``), for jobs that define metrics.

SageMaker reads a metric's last value from the job's logs with its ``MetricDefinitions`` regex; the simulator has
no logs, so each metric's final value is drawn from a hash of the job's name (fleet, city, run key and attempt)
and the metric's name: uniform in [0.05, 0.95), four decimals, the same on every describe and every run of the
simulator, different for each city, run and attempt (docs/guides/job-template.md#in-the-simulator).
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping
from typing import Any

#: SageMaker reports at most this many final metrics (the model's bound on MetricDefinitions and on the list).
MAX_METRICS = 40


def metric_value(job_name: str, metric: str) -> float:
    """The final value of ``metric`` for the job named ``job_name``."""
    digest = hashlib.sha256(f"{job_name}\0{metric}".encode()).digest()
    unit = int.from_bytes(digest[:8], "big") / 2**64
    return round(0.05 + 0.9 * unit, 4)


def final_metrics(job_name: str, request: Mapping[str, Any], at: float) -> list[dict[str, Any]]:
    """``FinalMetricDataList`` of a completed job: one entry per metric definition, stamped ``at``."""
    algorithm = request.get("AlgorithmSpecification") or {}
    names = [d.get("Name") for d in algorithm.get("MetricDefinitions") or () if isinstance(d, Mapping)]
    return [
        {"MetricName": name, "Value": metric_value(job_name, name), "Timestamp": at}
        for name in names[:MAX_METRICS]
        if isinstance(name, str)
    ]
