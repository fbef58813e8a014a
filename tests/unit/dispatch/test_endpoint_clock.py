"""The endpoint's clock: a sped-up simulator announces its speed, and a run's default poll interval and its
keep-alive under ``airflow dags test`` are counted in the endpoint's seconds."""

from __future__ import annotations

import math

import pytest

from sagemaker_fleet.contract import POLL_INTERVAL
from sagemaker_fleet.dispatch.cadence import AWS_CADENCE, INLINE_GAP_MARGIN, inline_keep_alive
from sagemaker_fleet.jobs.endpoint import MAX_SPEED, SPEED_HEADER, endpoint_speed


@pytest.mark.parametrize(
    ("headers", "speed"),
    [
        (None, 1.0),
        ({}, 1.0),
        ({"content-type": "application/json"}, 1.0),  # AWS: no such header
        ({SPEED_HEADER: "40"}, 40.0),
        ({SPEED_HEADER: "0.5"}, 0.5),
        ({SPEED_HEADER: "fast"}, 1.0),
        ({SPEED_HEADER: "nan"}, 1.0),
        ({SPEED_HEADER: "inf"}, 1.0),
        ({SPEED_HEADER: "0"}, 1.0),
        ({SPEED_HEADER: "-40"}, 1.0),
        ({SPEED_HEADER: str(MAX_SPEED * 2)}, 1.0),
    ],
)
def test_the_speed_an_endpoint_announces(headers: dict[str, str] | None, speed: float) -> None:
    assert endpoint_speed(headers) == speed


def test_a_poll_interval_given_is_kept_whatever_the_speed() -> None:
    assert AWS_CADENCE.endpoint_poll_interval(2.0, 40.0) == 2.0
    assert AWS_CADENCE.endpoint_poll_interval(60.0, 1.0) == 60.0


def test_the_default_poll_interval_is_thirty_seconds_of_the_endpoints_clock() -> None:
    assert AWS_CADENCE.endpoint_poll_interval(0.0, 1.0) == POLL_INTERVAL  # AWS
    assert AWS_CADENCE.endpoint_poll_interval(0.0, 40.0) == pytest.approx(
        POLL_INTERVAL / 40
    )  # 30 simulated seconds
    assert (
        AWS_CADENCE.endpoint_poll_interval(0.0, 10_000.0) == AWS_CADENCE.min_simulated_poll_seconds
    )  # never a busy loop


def test_the_inline_keep_alive_covers_the_sweep_and_the_task_gap_at_the_endpoints_speed() -> None:
    # Airflow 3.2 at the page's speed 40: 0.75 s to see the end, 6.5 s between the tasks, twice over
    assert inline_keep_alive(0.75, 6.5, 40.0) == math.ceil((0.75 + 6.5) * 40 * INLINE_GAP_MARGIN)
    # against AWS it is far below any plan's keep-alive (the plan's stands: the larger wins)
    assert inline_keep_alive(30.0, 6.5, 1.0) == math.ceil(36.5 * INLINE_GAP_MARGIN)
