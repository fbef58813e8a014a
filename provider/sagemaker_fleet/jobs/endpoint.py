"""What an endpoint says of its clock (pure): the simulated SageMaker endpoint (``sagemaker-fleet sim serve``)
answers every request with the speed of its clock in one response header; SageMaker itself sends no such header.

A fleet run against a simulator ``speed`` times faster than the wall clock idles every warm pool ``speed`` simulated
seconds per real second between a job's end and its successor's create: a poll interval or an Airflow gap between
tasks meant for AWS would outlive every keep-alive. With the speed known, the run's default poll interval and the
keep-alive it gives under ``airflow dags test`` are counted in the endpoint's own seconds (docs/installation.md,
"Try a fleet with airflow dags test"), and the user sets nothing.
"""

from __future__ import annotations

import math
from collections.abc import Mapping

#: The header the simulator answers every request with: its clock's simulated seconds per wall second.
SPEED_HEADER = "x-sagemaker-fleet-sim-speed"
#: The fastest clock believed: a header beyond this (or not a number) counts as none (speed 1).
MAX_SPEED = 1_000_000.0


def endpoint_speed(headers: Mapping[str, str] | None) -> float:
    """The clock speed an endpoint's response headers announce (botocore's ``ResponseMetadata.HTTPHeaders``, whose
    names are lower case), 1.0 when none or not a finite number in (0, :data:`MAX_SPEED`]: AWS's own clock."""
    if not headers:
        return 1.0
    text = headers.get(SPEED_HEADER)
    if text is None:
        return 1.0
    try:
        speed = float(text)
    except ValueError:
        return 1.0
    return speed if math.isfinite(speed) and 0 < speed <= MAX_SPEED else 1.0
