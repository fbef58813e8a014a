"""Where a fleet run's cities are in Airflow: one mapped training task over the run's cities, in plan order.

A fleet DAG has a fixed handful of tasks whatever its size: the plan task returns the run's cities in the order
they start and the training task ``train`` is mapped over that list, so map index *i* is the *i*-th city to start
and the grid names each instance by its city (``map_index_template``). Airflow's default ``[core] max_map_length``
is 1,024, so a fleet of more than :data:`CITIES_PER_TASK` cities gets one more mapped task per thousand, decided
when the DAG is parsed: the plan task returns the first thousand and pushes the next ones under XCom ``cities_2``,
…; a small task ``cities_2`` hands them on (Airflow maps only over a task's return value) to ``train_2``, ….

The task ids and XCom keys are the DAG's contract (:mod:`sagemaker_fleet.contract`); the plan task, the outcome
and the notice read the chunking here.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from airflow.sdk import BaseOperator

from sagemaker_fleet.contract import cities_xcom_key, train_task_id

if TYPE_CHECKING:
    from airflow.sdk import Context

#: Cities per mapped training task: under Airflow's default ``[core] max_map_length`` (1,024).
CITIES_PER_TASK = 1000


def chunks_for(cities: int) -> int:
    """How many mapped training tasks a fleet of ``cities`` needs (at least one)."""
    return max(1, -(-cities // CITIES_PER_TASK))


def split_cities(order: Sequence[str], chunks: int) -> list[list[str]]:
    """``order`` (the run's cities, first to start first) cut into ``chunks`` lists of at most
    :data:`CITIES_PER_TASK`; the last ones may be empty (their mapped task is then skipped)."""
    if len(order) > chunks * CITIES_PER_TASK:
        raise ValueError(
            f"{len(order)} cities do not fit the DAG's {chunks} training task(s) of {CITIES_PER_TASK}: the fleet "
            "file grew past a thousand since the DAG was parsed — let the DAG re-parse"
        )
    return [list(order[k * CITIES_PER_TASK : (k + 1) * CITIES_PER_TASK]) for k in range(chunks)]


def city_state_keys(chunks: Sequence[Sequence[str]]) -> dict[str, str]:
    """``{city: key}`` where key names the city's mapped task instance in the dict Airflow's
    ``get_task_states`` returns (``train_0``, ``train_1``, …, ``train_2_0``, …)."""
    return {
        city: f"{train_task_id(k)}_{i}" for k, cities in enumerate(chunks) for i, city in enumerate(cities)
    }


def unexpanded_states(answers: Sequence[Mapping[str, str | None]]) -> dict[str, str | None]:
    """The states of training tasks that were never expanded (``{task_id: state}``: their plan task or their
    ``cities_<n>`` task failed, so Airflow left them ``upstream_failed``, or their list was empty and Airflow
    skipped them, with no instance per city). ``answers[k]`` is ``get_task_states``' answer for chunk ``k``'s
    training task *alone*: asked together, the unexpanded ``train_2`` and map index 2 of ``train`` would share the
    key ``train_2``, and one state would hide the other."""
    return {
        train_task_id(k): answer[train_task_id(k)]
        for k, answer in enumerate(answers)
        if train_task_id(k) in answer
    }


class FleetCitiesOperator(BaseOperator):
    """Return one chunk of the run's cities (past the first thousand) from the plan task's XComs, so that its
    training task can be mapped over them: Airflow maps only over a task's return value.

    :param plan_task_id: the plan task.
    :param chunk: which thousand (1 for cities 1,001-2,000, …).
    """

    ui_color = "#ece4f0"

    def __init__(self, *, plan_task_id: str, chunk: int, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.plan_task_id = plan_task_id
        self.chunk = chunk

    def execute(self, context: Context) -> list[str]:
        cities = context["ti"].xcom_pull(task_ids=self.plan_task_id, key=cities_xcom_key(self.chunk)) or []
        return list(cities)
