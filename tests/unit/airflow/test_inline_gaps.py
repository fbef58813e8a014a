"""Airflow's own gap between two cities under ``airflow dags test``: the table's figure of the running minor, or the
gap this process last measured when it was longer (a loaded machine starts tasks slower: on a 2-core machine with
other runs beside it Airflow 3.2.1 took 15 s, not its 6 s, and every pool expired)."""

from __future__ import annotations

import pytest

from sagemaker_fleet.compat import AIRFLOW_VERSION
from sagemaker_fleet.triggers import inline
from sagemaker_fleet.triggers.inline import DAGS_TEST_TASK_GAP_SECONDS, TaskGaps, dags_test_task_gap


@pytest.fixture
def clock(monkeypatch: pytest.MonkeyPatch) -> list[float]:
    now = [1000.0]
    monkeypatch.setattr(inline.time, "monotonic", lambda: now[0])
    return now


def test_a_measured_gap_longer_than_the_tables_is_the_one_used(
    clock: list[float], monkeypatch: pytest.MonkeyPatch
) -> None:
    gaps = TaskGaps()
    monkeypatch.setattr(inline, "GAPS", gaps)
    table = DAGS_TEST_TASK_GAP_SECONDS[AIRFLOW_VERSION[:2]]
    assert dags_test_task_gap() == table  # nothing measured yet
    gaps.job_ended()
    clock[0] += table + 9.0
    gaps.city_started()
    assert dags_test_task_gap() == table + 9.0
    gaps.job_ended()
    clock[0] += 0.5  # a quicker one: the table's figure is the floor
    gaps.city_started()
    assert dags_test_task_gap() == table


def test_a_retry_delay_is_not_a_gap(clock: list[float]) -> None:
    gaps = TaskGaps()
    gaps.job_ended()
    clock[0] += 12.0
    gaps.city_started()
    gaps.job_ended()
    clock[0] += 61.0  # the failed city's retry, a minute later
    gaps.city_started()
    assert gaps.last == 12.0
    gaps.city_started()  # a start without an end before it (the first city) measures nothing
    assert gaps.last == 12.0
