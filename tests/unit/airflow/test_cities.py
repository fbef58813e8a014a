"""Where a run's cities are in Airflow (sagemaker_fleet.operators.cities): one mapped training task per thousand
cities, their ids and XCom keys, the plan's list cut into chunks, the key of each city's task instance."""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any

import pytest

from sagemaker_fleet.contract import cities_task_id, cities_xcom_key, train_task_chunk, train_task_id
from sagemaker_fleet.operators.cities import (
    CITIES_PER_TASK,
    FleetCitiesOperator,
    chunks_for,
    city_state_keys,
    split_cities,
    unexpanded_states,
)


@pytest.mark.parametrize(
    ("cities", "chunks"), [(0, 1), (1, 1), (999, 1), (1000, 1), (1001, 2), (2000, 2), (2001, 3), (5000, 5)]
)
def test_one_training_task_per_thousand_cities(cities: int, chunks: int) -> None:
    assert CITIES_PER_TASK == 1000  # under Airflow's default [core] max_map_length of 1,024
    assert chunks_for(cities) == chunks


def test_task_ids_and_xcom_keys_of_the_chunks() -> None:
    assert [train_task_id(k) for k in range(3)] == ["train", "train_2", "train_3"]
    assert [cities_task_id(k) for k in (1, 2)] == ["cities_2", "cities_3"]
    # the first chunk is the plan task's return value (what Airflow maps over), the next ones its named XComs
    assert [cities_xcom_key(k) for k in range(3)] == ["return_value", "cities_2", "cities_3"]


def test_a_training_task_id_reads_back_as_its_chunk_and_no_other_id_does() -> None:
    """What a worker parsing the DAG file for one task instance decides by: its training task, or none."""
    assert [train_task_chunk(train_task_id(k)) for k in range(12)] == list(range(12))
    others = [
        None,
        "plan",
        "cities_2",
        "train_1",
        "train_02",
        "train_x",
        "train_",
        "train_2_0",
        "train_²",
        "trains",
    ]
    assert [train_task_chunk(task_id) for task_id in others] == [None] * len(others)


def test_split_keeps_the_order_and_cuts_every_thousand() -> None:
    order = [f"c{i}" for i in range(2500)]
    parts = split_cities(order, 3)
    assert [len(p) for p in parts] == [1000, 1000, 500]
    assert [city for part in parts for city in part] == order
    assert parts[1][0] == "c1000"


def test_split_leaves_the_last_chunks_empty_for_a_smaller_run() -> None:
    assert split_cities(["b", "a", "c"], 2) == [["b", "a", "c"], []]
    assert split_cities([], 1) == [[]]
    assert split_cities([f"c{i}" for i in range(1000)], 1)[0][-1] == "c999"


@pytest.mark.parametrize(("cities", "chunks"), [(1001, 1), (2001, 2)])
def test_more_cities_than_the_dags_chunks_hold_is_an_error(cities: int, chunks: int) -> None:
    with pytest.raises(
        ValueError, match=rf"{cities} cities do not fit the DAG's {chunks} training task"
    ) as raised:
        split_cities([f"c{i}" for i in range(cities)], chunks)
    assert "let the DAG re-parse" in str(raised.value)


def test_each_city_is_keyed_as_airflow_keys_its_mapped_task_instance() -> None:
    assert city_state_keys([["oslo", "lima"], ["perth"], []]) == {
        "oslo": "train_0",
        "lima": "train_1",
        "perth": "train_2_0",
    }
    assert city_state_keys([[]]) == {}


def test_unexpanded_tasks_are_found_in_each_tasks_own_answer() -> None:
    # train expanded (its map index 2 is keyed train_2); train_2 was not: each answer is for its own task alone
    answers: list[dict[str, Any]] = [
        {"train_0": "success", "train_1": "success", "train_2": "failed"},
        {"train_2": "skipped"},
        {},
    ]
    assert unexpanded_states(answers) == {"train_2": "skipped"}
    assert unexpanded_states([{"train": "upstream_failed"}]) == {"train": "upstream_failed"}
    assert unexpanded_states([{"train_0": "success", "train_2": "success"}]) == {}


class _TaskInstance:
    def __init__(self, xcoms: dict[str, Any]) -> None:
        self.xcoms = xcoms
        self.pulled: list[tuple[str, str]] = []

    def xcom_pull(self, task_ids: str, key: str) -> Any:
        self.pulled.append((task_ids, key))
        return self.xcoms.get(key)


@pytest.mark.parametrize(("chunk", "key"), [(1, "cities_2"), (2, "cities_3")])
def test_a_cities_task_returns_its_chunk_from_the_plan(chunk: int, key: str) -> None:
    ti = _TaskInstance({"return_value": ["a"], "cities_2": ["b", "c"], "cities_3": ("d",)})
    operator = FleetCitiesOperator(task_id=cities_task_id(chunk), plan_task_id="plan", chunk=chunk)
    result = operator.execute({"ti": ti})  # type: ignore[arg-type]
    assert result == {1: ["b", "c"], 2: ["d"]}[chunk]
    assert isinstance(result, list)
    assert ti.pulled == [("plan", key)]


def test_a_cities_task_without_its_xcom_returns_no_city() -> None:
    """An empty list: Airflow then skips its training task instead of failing it."""
    operator = FleetCitiesOperator(task_id="cities_2", plan_task_id="plan", chunk=1)
    assert operator.execute({"ti": _TaskInstance({})}) == []  # type: ignore[arg-type]
    assert operator.execute({"ti": SimpleNamespace(xcom_pull=lambda **_: [])}) == []  # type: ignore[arg-type]
