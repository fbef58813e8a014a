"""FleetOutcomeOperator: the run fails when a city did not train, after every city has had its chance.

Airflow sets a run's state from its leaf tasks. The cost report runs whatever happened (``all_done``) and
succeeds, so without this task a run in which a city failed for good would end ``success``. This task waits for
every training task (``all_done`` too), then fails — with AirflowFailException, which Airflow does not retry
(a retry would see the same states) — naming the cities that did not train, or
succeeds; the report is written either way.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from airflow.providers.common.compat.sdk import AirflowFailException
from airflow.sdk import BaseOperator

if TYPE_CHECKING:
    from airflow.sdk import Context

#: Training-task states that count as a city done: trained (or already trained), or left out of the run (a dry
#: run, a city the trigger form did not pick).
DONE_STATES = frozenset({"success", "skipped"})


def untrained(states: Mapping[str, str | None], task_ids: Mapping[str, str]) -> dict[str, str]:
    """``{city: state}`` of the cities whose training task (``task_ids``: city → task id) did not end done; a task
    missing from ``states`` is reported as ``none``."""
    out = {}
    for city, task_id in task_ids.items():
        state = states.get(task_id)
        if state not in DONE_STATES:
            out[city] = state or "none"
    return out


def outcome_message(failed: Mapping[str, str], total: int) -> str:
    listed = ", ".join(f"{city} ({state})" for city, state in sorted(failed.items()))
    return (f"{len(failed)} of {total} cities did not train: {listed}. Each one's training task log says why; "
            "the cost report counts every job they ran. Clear a city's task to train it again in this run.")


class FleetOutcomeOperator(BaseOperator):
    """Fail the run when any city's training task did not succeed (runs with ``trigger_rule="all_done"``).

    :param city_task_ids: ``{city: training task id}`` of the fleet's cities.
    """

    ui_color = "#f0e4d7"

    def __init__(self, *, city_task_ids: Mapping[str, str], **kwargs: Any) -> None:
        kwargs.setdefault("trigger_rule", "all_done")
        super().__init__(**kwargs)
        self.city_task_ids = dict(city_task_ids)

    def execute(self, context: Context) -> dict[str, Any]:
        ti = context["ti"]
        run_id = context["run_id"]
        task_ids: Sequence[str] = sorted(self.city_task_ids.values())
        by_run = ti.get_task_states(dag_id=ti.dag_id, task_ids=list(task_ids), run_ids=[run_id])
        states: Mapping[str, str | None] = by_run.get(run_id, {})
        failed = untrained(states, self.city_task_ids)
        if failed:
            raise AirflowFailException(outcome_message(failed, len(self.city_task_ids)))
        trained = sum(1 for task_id in task_ids if states.get(task_id) == "success")
        self.log.info("All %d cities done (%d trained, %d left out of this run)", len(task_ids), trained,
                      len(task_ids) - trained)
        return {"cities": len(task_ids), "trained": trained, "failed": {}}
