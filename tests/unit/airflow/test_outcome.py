"""The outcome task: it fails the run (without a retry: AirflowFailException), naming the cities, when a city's
training task instance did not succeed. The cities are the plan task's lists (map index i of ``train`` is its
i-th city), the states Airflow's, keyed as Airflow's ``get_task_states`` keys them (``train_0``, ``train_2_0``)."""

from __future__ import annotations

from typing import Any

import pytest

from sagemaker_fleet.compat import AirflowFailException
from sagemaker_fleet.operators.outcome import FleetOutcomeOperator, untrained

CITIES = ["paris", "new-york", "oslo"]


class _TaskInstance:
    """Answers ``xcom_pull`` from the plan task's XComs and ``get_task_states`` the way Airflow's execution API
    builds it: one row per task instance, ``task_id`` for an unexpanded one, ``{task_id}_{map_index}`` for a
    mapped one, later rows overwriting earlier ones under the same key."""

    dag_id = "fleet_demo"

    def __init__(self, rows: list[tuple[str, int, str | None]], xcoms: dict[str, Any]) -> None:
        self.rows = rows  # (task_id, map_index, state), in the database's order
        self.xcoms = xcoms  # the plan task's, by key
        self.asked: list[dict[str, Any]] = []
        self.pulled: list[tuple[str, str]] = []

    def xcom_pull(self, task_ids: str, key: str = "return_value") -> Any:
        self.pulled.append((task_ids, key))
        return self.xcoms.get(key) if task_ids == "plan" else None

    def get_task_states(
        self, *, dag_id: str, task_ids: list[str], run_ids: list[str]
    ) -> dict[str, dict[str, Any]]:
        self.asked.append({"dag_id": dag_id, "task_ids": task_ids, "run_ids": run_ids})
        answer: dict[str, Any] = {}
        for task_id, map_index, state in self.rows:
            if task_id in task_ids:
                answer.update({task_id: state} if map_index < 0 else {f"{task_id}_{map_index}": state})
        return {"run-1": answer}


def mapped(task_id: str, states: list[str | None]) -> list[tuple[str, int, str | None]]:
    return [(task_id, i, state) for i, state in enumerate(states)]


def _execute(
    rows: list[tuple[str, int, str | None]], xcoms: dict[str, Any] | None = None, chunks: int = 1
) -> tuple[Any, _TaskInstance]:
    ti = _TaskInstance(rows, {"return_value": CITIES} if xcoms is None else xcoms)
    operator = FleetOutcomeOperator(task_id="outcome", chunks=chunks, plan_task_id="plan")
    return operator.execute({"ti": ti, "run_id": "run-1"}), ti  # type: ignore[arg-type]


def test_every_city_trained_or_left_out_succeeds() -> None:
    result, ti = _execute(mapped("train", ["success", "skipped", "success"]))
    assert result == {"cities": 3, "trained": 2, "failed": {}}
    assert ti.asked == [{"dag_id": "fleet_demo", "task_ids": ["train"], "run_ids": ["run-1"]}]
    assert ti.pulled == [("plan", "return_value")]


def test_a_failed_city_fails_the_run_naming_it_and_its_state() -> None:
    with pytest.raises(AirflowFailException) as failed:
        _execute(mapped("train", ["success", "upstream_failed", "failed"]))
    message = str(failed.value)
    assert message.startswith("2 of 3 cities did not train: new-york (upstream_failed), oslo (failed).")
    assert "cost report counts" in message


def test_the_map_index_names_the_city_in_the_plans_order() -> None:
    """Map index i is the plan's i-th city, whatever the fleet file's order."""
    with pytest.raises(AirflowFailException, match=r"1 of 3 cities did not train: oslo \(failed\)"):
        _execute(
            mapped("train", ["success", "success", "failed"]), {"return_value": ["paris", "new-york", "oslo"]}
        )
    with pytest.raises(AirflowFailException, match=r"1 of 3 cities did not train: paris \(failed\)"):
        _execute(
            mapped("train", ["success", "success", "failed"]), {"return_value": ["oslo", "new-york", "paris"]}
        )


def test_a_city_without_a_task_instance_is_not_trained() -> None:
    with pytest.raises(AirflowFailException, match=r"1 of 3 cities did not train: oslo \(none\)"):
        _execute(mapped("train", ["success", "success"]))


def test_an_unexpanded_train_after_a_failed_plan_fails_the_run() -> None:
    """The plan failed: no cities XCom, and Airflow left ``train`` unexpanded in ``upstream_failed``."""
    with pytest.raises(AirflowFailException) as failed:
        _execute([("train", -1, "upstream_failed")], {})
    assert str(failed.value).startswith(
        "1 of 1 cities did not train: (all cities of train) (upstream_failed)."
    )


def test_an_unexpanded_train_over_no_city_is_done() -> None:
    """A run whose plan lists no city: Airflow skips the unexpanded task; nothing failed."""
    result, _ = _execute([("train", -1, "skipped")], {"return_value": []})
    assert result == {"cities": 0, "trained": 0, "failed": {}}


def two_chunks(first: list[str | None], second: list[str | None]) -> dict[str, Any]:
    return {
        "return_value": [f"a{i}" for i in range(len(first))],
        "cities_2": [f"b{i}" for i in range(len(second))],
    }


def test_two_chunks_read_both_lists_and_both_tasks() -> None:
    first, second = ["success"] * 4, ["success", "skipped"]
    result, ti = _execute(
        mapped("train", first) + mapped("train_2", second), two_chunks(first, second), chunks=2
    )
    assert result == {"cities": 6, "trained": 5, "failed": {}}
    assert ti.pulled == [("plan", "return_value"), ("plan", "cities_2")]
    assert sorted(q["task_ids"][0] for q in ti.asked) == ["train", "train_2"]


def test_two_chunks_name_the_failed_city_of_the_second() -> None:
    first, second = ["success"] * 4, ["success", "failed"]
    with pytest.raises(AirflowFailException, match=r"1 of 6 cities did not train: b1 \(failed\)"):
        _execute(mapped("train", first) + mapped("train_2", second), two_chunks(first, second), chunks=2)


def test_an_empty_second_chunk_does_not_hide_a_failed_city_of_the_first() -> None:
    """A form that picks 3 of a 1,500-city fleet leaves ``train_2`` unexpanded and skipped: its key ``train_2`` is
    also the key of ``train``'s map index 2, the third city, which failed."""
    first = ["success", "success", "failed"]
    xcoms = {"return_value": ["a0", "a1", "a2"], "cities_2": []}
    with pytest.raises(AirflowFailException, match=r"1 of 3 cities did not train: a2 \(failed\)"):
        _execute(mapped("train", first) + [("train_2", -1, "skipped")], xcoms, chunks=2)


def test_a_failed_cities_task_leaves_its_chunk_unexpanded_and_fails_the_run() -> None:
    """``cities_2`` failed: ``train_2`` is ``upstream_failed`` and unexpanded, whatever ``train``'s third city did."""
    first = ["success", "success", "success"]
    xcoms = {"return_value": ["a0", "a1", "a2"], "cities_2": ["b0"]}
    with pytest.raises(AirflowFailException) as failed:
        _execute(mapped("train", first) + [("train_2", -1, "upstream_failed")], xcoms, chunks=2)
    message = str(failed.value)
    assert "b0 (none)" in message
    assert "(all cities of train_2) (upstream_failed)" in message
    assert "a2" not in message


def test_a_task_missing_from_the_answer_counts_as_not_trained() -> None:
    keys = {"paris": "train_0", "new-york": "train_1", "oslo": "train_2"}
    assert untrained({"train_0": "success", "train_2": None}, keys) == {"new-york": "none", "oslo": "none"}


def test_it_waits_for_every_city() -> None:
    assert FleetOutcomeOperator(task_id="outcome").trigger_rule == "all_done"


def test_a_register_task_that_did_not_end_done_fails_the_run() -> None:
    """A spec with register: a city's model left unregistered is a decision not made: the run fails, naming the
    task; a register task skipped (a dry run) or done passes."""
    rows = mapped("train", ["success", "success", "success"])
    for state in ("success", "skipped"):
        ti = _TaskInstance([*rows, ("register_models", -1, state)], {"return_value": CITIES})
        operator = FleetOutcomeOperator(
            task_id="outcome", plan_task_id="plan", register_task_id="register_models"
        )
        assert operator.execute({"ti": ti, "run_id": "run-1"})["failed"] == {}  # type: ignore[arg-type]
    ti = _TaskInstance([*rows, ("register_models", -1, "failed")], {"return_value": CITIES})
    operator = FleetOutcomeOperator(
        task_id="outcome", plan_task_id="plan", register_task_id="register_models"
    )
    with pytest.raises(AirflowFailException) as failed:
        operator.execute({"ti": ti, "run_id": "run-1"})  # type: ignore[arg-type]
    assert str(failed.value).startswith(
        "The run's models were not all registered: register_models is failed."
    )
    ti = _TaskInstance(
        [*mapped("train", ["success", "failed", "success"]), ("register_models", -1, "failed")],
        {"return_value": CITIES},
    )
    with pytest.raises(AirflowFailException) as both:
        operator.execute({"ti": ti, "run_id": "run-1"})  # type: ignore[arg-type]
    assert str(both.value).startswith("1 of 3 cities did not train: new-york (failed).")
    assert "register_models is failed" in str(both.value)
