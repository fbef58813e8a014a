"""The run's notice: its summary from the tasks' states and the report, the message, and which notifiers get it."""

from __future__ import annotations

from typing import Any

import pytest
from airflow.sdk import BaseNotifier

from sagemaker_fleet.compat import NOTIFIER_FAILURE_RAISES
from sagemaker_fleet.contract import NOTIFY_TASK_ID, OUTCOME_TASK_ID
from sagemaker_fleet.dags import ReportConfig
from sagemaker_fleet.dags.factory import build_fleet_dag
from sagemaker_fleet.operators.notify import DEFAULT_MESSAGE, FleetNotifyOperator, render_message, run_summary

#: {city: its mapped task instance's key in get_task_states} (the plan's start order: lima, oslo, seoul)
TASKS = {"lima": "train_0", "oslo": "train_1", "seoul": "train_2"}
REPORT = {
    "totals": {
        "jobs": 4,
        "warm_starts": 2,
        "cold_starts": 2,
        "cost_usd": 1.5,
        "retained_cost_usd": 0.25,
        "spot_savings_usd": 0.4,
    }
}
URI = "s3://acme-ml/fleets/small/reports/20261201/report.html"


def test_a_run_where_a_city_failed_says_which_and_what_it_cost() -> None:
    states = {"train_0": "success", "train_1": "failed", "train_2": "success"}
    summary = run_summary("small", "20261201", states, TASKS, REPORT, URI)
    assert (summary["outcome"], summary["trained"], summary["failed"]) == ("failed", 2, ["oslo"])
    assert render_message(DEFAULT_MESSAGE, summary) == (
        "sagemaker-fleet small run 20261201: 1 of 3 cities did not train\n"
        "Starts: 2 warm, 2 cold.\n"
        "Cost $1.50 (idle warm pools $0.25, spot saved $0.40).\n"
        f"Report: {URI}\n"
        "Did not train: oslo."
    )


def test_a_dry_run_and_a_run_without_report_say_so() -> None:
    states = {t: "skipped" for t in TASKS.values()}
    dry = run_summary(
        "small", "m1", states, TASKS, {"dry_run": True, "estimate": {"expected_usd": 2.25}}, URI
    )
    assert (dry["outcome"], dry["trained"]) == ("success", 0)
    assert render_message(DEFAULT_MESSAGE, dry) == (
        "sagemaker-fleet small run m1: 0 of 3 cities trained\n"
        "Dry run: nothing was launched; expected cost $2.25."
    )
    refused = run_summary("small", "m2", {t: "upstream_failed" for t in TASKS.values()}, TASKS, None, URI)
    assert (
        render_message(DEFAULT_MESSAGE, refused).splitlines()[1]
        == "No cost report: the run did not get that far."
    )


class Recording(BaseNotifier):
    template_fields = ("text",)

    def __init__(self, text: str, fail: bool = False) -> None:
        super().__init__()
        self.text, self.fail, self.sent = text, fail, []

    def notify(self, context: Any) -> None:
        if self.fail:
            raise ConnectionError("mail server down")
        self.sent.append(self.text)


class FakeTI:
    """The plan task's city list, the mapped training task's states as get_task_states keys them, the report."""

    dag_id = "d"

    def __init__(self, states: list[str]) -> None:
        self.states = states  # by map index

    def get_task_states(
        self, dag_id: str, task_ids: list[str], run_ids: list[str]
    ) -> dict[str, dict[str, str]]:
        assert task_ids == ["train"]
        return {run_ids[0]: {f"train_{i}": state for i, state in enumerate(self.states)}}

    def xcom_pull(self, task_ids: str, key: str = "return_value") -> Any:
        if task_ids == "plan":
            return list(TASKS) if key == "return_value" else None
        assert task_ids == "cost_report"
        return REPORT


@pytest.mark.parametrize(("oslo", "called"), [("success", "ok"), ("failed", "bad")])
def test_the_success_or_the_failure_notifiers_get_the_rendered_summary(
    fleets_dir, oslo: str, called: str
) -> None:
    ok, bad, broken = (
        Recording("{{ fleet_summary.outcome }}: {{ fleet_message }}"),
        Recording("{{ fleet_summary.failed }}"),
        Recording("x", fail=True),
    )
    op = FleetNotifyOperator(
        task_id="notify",
        spec_path=str(fleets_dir / "small.yaml"),
        chunks=1,
        plan_task_id="plan",
        on_success=[ok],
        on_failure=[bad, broken],
    )
    ti = FakeTI(["success", oslo, "success"])
    result = op.execute(
        {
            "ti": ti,
            "run_id": "scheduled__2026-12-01T00:00:00+00:00",  # type: ignore[arg-type]
            "logical_date": None,
            "dag_run": None,
            "dag": None,  # Airflow 3.0's BaseNotifier renders with the context's DAG (a task's context has one)
        }
    )
    if called == "ok":
        assert ok.sent == [f"success: {result['message']}"]
        assert bad.sent == []
        assert result["errors"] == []
    else:
        assert bad.sent == ["['oslo']"]
        assert ok.sent == []
        if NOTIFIER_FAILURE_RAISES:
            assert result["sent"] == 1  # the broken notifier is counted, not raised
            assert result["errors"] == ["Recording: ConnectionError: mail server down"]
        else:  # Airflow 3.0's BaseNotifier logs its notify()'s failure itself and returns: nothing to count
            assert result["sent"] == 2
            assert result["errors"] == []


def test_the_dag_gets_a_notice_task_beside_the_outcome_only_when_asked(fleets_dir) -> None:
    spec = fleets_dir / "small.yaml"
    assert NOTIFY_TASK_ID not in build_fleet_dag(spec, dag_id="a").task_ids
    dag = build_fleet_dag(spec, dag_id="b", report=ReportConfig(on_failure=[Recording("x")]))
    notify = dag.get_task(NOTIFY_TASK_ID)
    assert notify.upstream_task_ids == {"cost_report"}
    assert notify.trigger_rule == "all_done"
    # the outcome stays a last task: Airflow takes the run's state from them
    assert {t.task_id for t in dag.tasks if not t.downstream_task_ids} == {OUTCOME_TASK_ID, NOTIFY_TASK_ID}


def test_a_gated_run_counts_its_models() -> None:
    counts = {"approved": 5, "pending": 1, "rejected": 3, "no_metric": 1, "not_trained": 0}
    summary = run_summary(
        "small",
        "20261201",
        dict.fromkeys(TASKS.values(), "success"),
        TASKS,
        {**REPORT, "models": counts},
        URI,
    )
    assert summary["models"] == counts
    assert render_message(DEFAULT_MESSAGE, summary).splitlines()[-1] == (
        "Models: 5 approved, 1 pending, 3 rejected, 1 without the metric."
    )
    assert "Models:" not in render_message(DEFAULT_MESSAGE, run_summary("small", "k", {}, {}, REPORT, URI))
