"""The fleet DAG's cost report when S3 refuses the upload for good: a warning, as in the ``report`` command, and the
task succeeds with its local files — the run's outcome is its cities', not the report bucket's. A refusal a retry may
mend still fails the task (Airflow retries it)."""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest
from botocore.exceptions import ClientError

from sagemaker_fleet.operators.report import FleetCostReportOperator
from task_logs import capture_task_logs
from trigger_runs import city_trigger, run_triggers

pytestmark = pytest.mark.integration
QUICK = Path(__file__).parent / "fleets" / "quick.yaml"
RUN_KEY = "20261129"


@pytest.fixture
def trained(aws_sim: Any) -> Any:
    for city in ("seoul", "tokyo"):
        aws_sim.set_work(120, city=city)
    aws_sim.set_speed(200)
    run_triggers(
        [
            city_trigger(QUICK, c, run_key=RUN_KEY, try_id="manual__1/1", poll_interval=0.3)
            for c in ("seoul", "tokyo")
        ]
    )
    yield aws_sim
    aws_sim.set_speed(1)


def context(pushed: dict[str, Any]) -> dict[str, Any]:
    ti = SimpleNamespace(
        dag_id="d",
        run_id="scheduled__2026-11-29T00:00:00+00:00",
        task_id="cost_report",
        map_index=-1,
        try_number=1,
        xcom_push=lambda key, value: pushed.__setitem__(key, value),
        xcom_pull=lambda **_: None,
    )
    return {"params": {}, "ti": ti, "run_id": ti.run_id, "outlet_events": {}}


def test_a_missing_report_bucket_is_a_warning_and_the_task_succeeds(
    trained: Any, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setattr("sagemaker_fleet.operators.report.task_run_key", lambda _: RUN_KEY)
    report = FleetCostReportOperator(task_id="cost_report", spec_path=str(QUICK), out_dir=str(tmp_path))
    pushed: dict[str, Any] = {}
    with capture_task_logs() as lines:
        result = report.execute(context(pushed))  # the quick fleet's bucket was never made
    assert result["totals"]["completed"] == 2
    (warning,) = [line["event"] for line in lines if "not uploaded" in line["event"]]
    assert "its bucket does not exist" in warning
    assert str(tmp_path / RUN_KEY) in warning
    assert (tmp_path / RUN_KEY / "report.html").is_file()
    assert not pushed  # no link to a page that is not there
    assert report.get_openlineage_facets_on_complete(None).outputs == []


def test_an_upload_a_retry_may_mend_still_fails_the_task(
    trained: Any, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setattr("sagemaker_fleet.operators.report.task_run_key", lambda _: RUN_KEY)

    def slow_down(*args: Any, **kwargs: Any) -> Any:
        raise ClientError(
            {"Error": {"Code": "SlowDown", "Message": "Please reduce your request rate."}}, "PutObject"
        )

    monkeypatch.setattr("sagemaker_fleet.operators.report.upload_report_files", slow_down)
    report = FleetCostReportOperator(task_id="cost_report", spec_path=str(QUICK), out_dir=str(tmp_path))
    with pytest.raises(ClientError, match="SlowDown"):
        report.execute(context({}))


# ------------------------------------------------------------------------------------------ the run against its plan


def _plan_of_one_lane() -> dict[str, Any]:
    """The quick fleet's plan with room for one on-demand job at a time: seoul, tokyo and oslo on one warm lane."""
    import dataclasses

    from sagemaker_fleet.fleetspec import load_fleet_spec
    from sagemaker_fleet.fleetspec.model import InstanceQuota
    from sagemaker_fleet.plan import plan_fleet

    spec = load_fleet_spec(QUICK)
    spec = dataclasses.replace(
        spec, quotas={**spec.quotas, "ml.m5.xlarge": InstanceQuota(instances=1, warm_pools=1)}
    )
    return plan_fleet(spec, RUN_KEY).to_json()


def test_the_task_sets_the_run_against_the_plan_xcom_and_warns_when_far_fewer_started_warm(
    trained: Any, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """seoul and tokyo trained side by side (no plan dispatched them), so the plan's warm starts all started cold:
    the task logs a warning with the figures, and report.json names groups as the plan does."""
    import json

    monkeypatch.setattr("sagemaker_fleet.operators.report.task_run_key", lambda _: RUN_KEY)
    plan = _plan_of_one_lane()
    assert any(job["start"] == "warm" for job in plan["jobs"])
    ctx = context({})
    ctx["ti"].xcom_pull = lambda task_ids, key=None: plan if (task_ids, key) == ("plan", "plan") else None
    report = FleetCostReportOperator(
        task_id="cost_report", spec_path=str(QUICK), out_dir=str(tmp_path), upload=False
    )
    with capture_task_logs() as lines:
        result = report.execute(ctx)
    against = result["plan_against_actual"]
    assert (against["short"], against["warm_starts"]) == (True, 0)
    assert "groups" not in against  # the XCom stays small: report.json has them
    warnings = [line["event"] for line in lines if line.get("log_level") == "warning"]
    assert [w for w in warnings if w.startswith("far fewer warm starts than planned — ")] == [
        f"far fewer warm starts than planned — {against['headline']}"
    ]
    doc = json.loads((tmp_path / RUN_KEY / "report.json").read_text())
    planned = {job["city"]: job["group"] for job in plan["jobs"]}
    assert all(job["group"] == planned[job["city"]] for job in doc["jobs"])
    assert [g["group"] for g in doc["plan_against_actual"]["groups"]] == [g["group"] for g in plan["groups"]]


def test_without_a_plan_xcom_the_report_says_how_to_get_the_comparison(
    trained: Any, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    import json

    from sagemaker_fleet.cost.against_plan import NO_PLAN

    monkeypatch.setattr("sagemaker_fleet.operators.report.task_run_key", lambda _: RUN_KEY)
    report = FleetCostReportOperator(
        task_id="cost_report", spec_path=str(QUICK), out_dir=str(tmp_path), upload=False
    )
    with capture_task_logs() as lines:
        result = report.execute(context({}))
    assert result["plan_against_actual"] is None
    events = [line["event"] for line in lines]
    assert "task plan published no plan: the report shows no plan against actual" in events
    assert NO_PLAN in events
    assert json.loads((tmp_path / RUN_KEY / "report.json").read_text())["plan_against_actual"] is None
