"""FleetOutcomeOperator: the run fails when a city did not train, after every city has had its chance.

Airflow sets a run's state from its leaf tasks. The cost report runs whatever happened (``all_done``) and
succeeds, so without this task a run in which a city failed for good would end ``success``. This task waits for
every training task (``all_done`` too), then fails — with AirflowFailException, which Airflow does not retry
(a retry would see the same states) — naming the cities that did not train, or
succeeds; the report is written either way.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from airflow.sdk import BaseOperator

from sagemaker_fleet.compat import AirflowFailException
from sagemaker_fleet.contract import PLAN_TASK_ID, cities_xcom_key, train_task_id
from sagemaker_fleet.operators.cities import city_state_keys, unexpanded_states

if TYPE_CHECKING:
    from airflow.sdk import Context

#: Training-task states that count as a city done: trained (or already trained), or left out of the run (a dry
#: run, a city the trigger form did not pick).
DONE_STATES = frozenset({"success", "skipped"})


def untrained(states: Mapping[str, str | None], task_ids: Mapping[str, str]) -> dict[str, str]:
    """``{city: state}`` of the cities whose training task instance (``task_ids``: city → its key in ``states``,
    :func:`sagemaker_fleet.operators.cities.city_state_keys`) did not end done; one missing from ``states`` is
    reported as ``none``."""
    out = {}
    for city, task_id in task_ids.items():
        state = states.get(task_id)
        if state not in DONE_STATES:
            out[city] = state or "none"
    return out


def outcome_message(failed: Mapping[str, str], total: int) -> str:
    listed = ", ".join(f"{city} ({state})" for city, state in sorted(failed.items()))
    return (
        f"{len(failed)} of {total} cities did not train: {listed}. Each one's training task log says why; "
        "the cost report counts every job they ran. Clear a city's task to train it again in this run."
    )


def run_city_states(
    context: Context, chunks: int, plan_task_id: str
) -> tuple[dict[str, str], dict[str, Any]]:
    """``({city: state key}, {state key: state})`` of this run's training task instances: the cities come from
    the plan task's ``cities`` XComs (the map indexes), the states from Airflow, asked once per training task (an
    unexpanded ``train_2`` has the key ``train_2`` of ``train``'s map index 2). A training task that was never
    expanded (its plan task failed) and did not end done appears as a city named after it."""
    ti = context["ti"]
    run_id = context["run_id"]
    parts = [ti.xcom_pull(task_ids=plan_task_id, key=cities_xcom_key(k)) or [] for k in range(chunks)]
    keys = city_state_keys(parts)
    answers = [
        dict(
            ti.get_task_states(dag_id=ti.dag_id, task_ids=[train_task_id(k)], run_ids=[run_id]).get(
                run_id, {}
            )
        )
        for k in range(chunks)
    ]
    states: dict[str, Any] = {}
    for k, answer in enumerate(answers):
        states.update({key: state for key, state in answer.items() if key != train_task_id(k)})
    for task_id, state in unexpanded_states(answers).items():
        if state not in DONE_STATES:
            keys[f"(all cities of {task_id})"] = f"{task_id} (not expanded)"
            states[f"{task_id} (not expanded)"] = state
    return keys, states


class FleetOutcomeOperator(BaseOperator):
    """Fail the run when any city's training task did not succeed, or the models were not all registered (runs
    with ``trigger_rule="all_done"``).

    :param chunks: the DAG's mapped training tasks (:mod:`sagemaker_fleet.operators.cities`).
    :param plan_task_id: the plan task, whose ``cities`` XComs name each mapped task instance's city.
    :param register_task_id: the task that registers the run's models (a spec with ``register:``): the run fails
        when it did not end done, since a city's model left unregistered is a decision not made.
    """

    ui_color = "#f0e4d7"

    def __init__(
        self,
        *,
        chunks: int = 1,
        plan_task_id: str = PLAN_TASK_ID,
        register_task_id: str | None = None,
        **kwargs: Any,
    ) -> None:
        kwargs.setdefault("trigger_rule", "all_done")
        super().__init__(**kwargs)
        self.chunks = chunks
        self.plan_task_id = plan_task_id
        self.register_task_id = register_task_id

    def execute(self, context: Context) -> dict[str, Any]:
        keys, states = run_city_states(context, self.chunks, self.plan_task_id)
        failed = untrained(states, keys)
        unregistered = self._registration(context)
        if failed or unregistered:
            sentences = [outcome_message(failed, len(keys))] if failed else []
            raise AirflowFailException(" ".join([*sentences, *unregistered]))
        trained = sum(1 for key in keys.values() if states.get(key) == "success")
        self.log.info(
            "All %d cities done (%d trained, %d left out of this run)",
            len(keys),
            trained,
            len(keys) - trained,
        )
        return {"cities": len(keys), "trained": trained, "failed": {}}

    def _registration(self, context: Context) -> list[str]:
        """What to say when the register task did not end done (nothing when there is none)."""
        if self.register_task_id is None:
            return []
        ti = context["ti"]
        run_id = context["run_id"]
        answer = ti.get_task_states(dag_id=ti.dag_id, task_ids=[self.register_task_id], run_ids=[run_id])
        state = dict(answer.get(run_id, {})).get(self.register_task_id)
        if state in DONE_STATES:
            return []
        return [
            f"The run's models were not all registered: {self.register_task_id} is {state or 'none'}. Its log "
            "names the cities; clear it to register them (the ones registered already are found, not decided "
            "again)."
        ]
