"""The outcome task: it fails the run (without a retry: AirflowFailException), naming the cities, when a city's training task did not succeed."""

from __future__ import annotations

from typing import Any

import pytest
from airflow.providers.common.compat.sdk import AirflowFailException

from sagemaker_fleet.operators.outcome import FleetOutcomeOperator, untrained

CITIES = {"paris": "train_paris", "new-york": "train_new_york", "oslo": "train_oslo"}


class _TaskInstance:
    dag_id = "fleet_demo"

    def __init__(self, states: dict[str, str | None]) -> None:
        self.states = states
        self.asked: list[dict[str, Any]] = []

    def get_task_states(self, **query: Any) -> dict[str, dict[str, str | None]]:
        self.asked.append(query)
        return {"run-1": self.states}


def _execute(states: dict[str, str | None]) -> tuple[Any, _TaskInstance]:
    ti = _TaskInstance(states)
    operator = FleetOutcomeOperator(task_id="outcome", city_task_ids=CITIES)
    return operator.execute({"ti": ti, "run_id": "run-1"}), ti  # type: ignore[arg-type]


def test_every_city_trained_or_left_out_succeeds() -> None:
    result, ti = _execute({"train_paris": "success", "train_new_york": "skipped", "train_oslo": "success"})
    assert result == {"cities": 3, "trained": 2, "failed": {}}
    assert ti.asked == [{"dag_id": "fleet_demo", "task_ids": sorted(CITIES.values()), "run_ids": ["run-1"]}]


def test_a_failed_city_fails_the_run_naming_it_and_its_state() -> None:
    with pytest.raises(AirflowFailException) as failed:
        _execute({"train_paris": "success", "train_new_york": "upstream_failed", "train_oslo": "failed"})
    message = str(failed.value)
    assert message.startswith("2 of 3 cities did not train: new-york (upstream_failed), oslo (failed).")
    assert "cost report counts" in message


def test_a_task_missing_from_the_answer_counts_as_not_trained() -> None:
    assert untrained({"train_paris": "success", "train_oslo": None}, CITIES) == {"new-york": "none", "oslo": "none"}


def test_it_waits_for_every_city() -> None:
    assert FleetOutcomeOperator(task_id="outcome", city_task_ids=CITIES).trigger_rule == "all_done"
