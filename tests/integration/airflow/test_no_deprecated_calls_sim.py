"""Our code calls no deprecated Airflow API: the fleet DAG built, its plan task, every city's trigger, the pool release
and the cost report run against the simulator with every deprecation warning that names one of our modules turned
into an error. Airflow warns with ``stacklevel=2``, so a deprecated call of ours names our module; a warning that
names another package (the Amazon provider's ``ProvidersManager.hooks``, say: its hook asks for its own version) is
Airflow's and passes. The same rule reads an ``airflow dags test`` output: ``tests/dags_test_output.py``."""

from __future__ import annotations

import warnings
from collections.abc import Iterator
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest

from sagemaker_fleet.dags import build_fleet_dag
from sagemaker_fleet.fleetspec import load_fleet_spec
from sagemaker_fleet.fleetspec.model import InstanceQuota
from sagemaker_fleet.operators.plan import PlanFleetOperator
from sagemaker_fleet.operators.release import FleetPoolReleaseOperator
from sagemaker_fleet.operators.report import FleetCostReportOperator
from sagemaker_fleet.plan import FleetPlan
from trigger_runs import city_trigger, publish_plan, run_triggers

pytestmark = pytest.mark.integration
QUICK = Path(__file__).parent / "fleets" / "quick.yaml"
RUN_KEY = "20261129"
CITIES = ("seoul", "tokyo", "oslo")
#: What a deprecated call names: Python's, and Airflow's own categories (subclasses of these).
DEPRECATIONS = (DeprecationWarning, PendingDeprecationWarning, FutureWarning)


@pytest.fixture
def ours_are_errors() -> Iterator[None]:
    with warnings.catch_warnings():
        warnings.simplefilter("default")
        for category in DEPRECATIONS:
            warnings.filterwarnings("error", category=category, module=r"sagemaker_fleet(\.|$)")
        yield


def _context(pushed: dict[str, Any], pulled: dict[tuple[str, str | None], Any]) -> dict[str, Any]:
    ti = SimpleNamespace(
        dag_id="fleet_quick",
        run_id="scheduled__2026-11-29T00:00:00+00:00",
        task_id="task",
        map_index=-1,
        try_number=1,
        xcom_push=lambda key, value: pushed.__setitem__(key, value),
        xcom_pull=lambda task_ids, key="return_value": pulled.get((task_ids, key)),
    )
    return {"params": {}, "ti": ti, "run_id": ti.run_id, "outlet_events": {}}


def test_a_fleet_run_through_our_airflow_code_makes_no_deprecated_call(
    aws_sim: Any, monkeypatch: pytest.MonkeyPatch, tmp_path: Path, ours_are_errors: None
) -> None:
    # a spec with three cities only (the run is short) and room for one job at a time (pools are handed over)
    text = QUICK.read_text().split("\ncities:\n")[0]
    text = text.replace(
        "ml.m5.xlarge: {instances: 10, warm_pools: 4}", "ml.m5.xlarge: {instances: 1, warm_pools: 1}"
    )
    rows = [line for line in QUICK.read_text().splitlines() if any(f"name: {c}," in line for c in CITIES)]
    spec_file = tmp_path / "quick.yaml"
    spec_file.write_text(text + "\ncities:\n" + "\n".join(rows) + "\n")
    spec = load_fleet_spec(spec_file)
    assert [c.name for c in spec.cities] == list(CITIES)
    assert spec.quotas["ml.m5.xlarge"] == InstanceQuota(instances=1, warm_pools=1)

    dag = build_fleet_dag(str(spec_file), dag_id="fleet_quick", schedule=None)
    assert {"plan", "cost_report"} <= set(dag.task_ids)

    monkeypatch.setattr("sagemaker_fleet.operators.plan.task_run_key", lambda _: RUN_KEY)
    monkeypatch.setattr("sagemaker_fleet.operators.report.task_run_key", lambda _: RUN_KEY)
    monkeypatch.setattr("sagemaker_fleet.operators.release.task_run_key", lambda _: RUN_KEY)
    pushed: dict[str, Any] = {}
    PlanFleetOperator(task_id="plan", spec_path=str(spec_file), api_conn_id=None).execute(
        _context(pushed, {})
    )
    plan = FleetPlan.from_json(pushed["plan"])
    assert plan.run_key == RUN_KEY

    for city in CITIES:
        aws_sim.set_work(60, city=city)
    aws_sim.set_speed(200)
    publish_plan(monkeypatch, plan)
    try:
        run_triggers(
            [
                city_trigger(
                    spec_file,
                    c,
                    run_key=RUN_KEY,
                    try_id="manual__1/1",
                    poll_interval=0.3,
                    plan_task_id="plan",
                )
                for c in CITIES
            ]
        )
    finally:
        aws_sim.set_speed(1)

    pulled = {("plan", "plan"): pushed["plan"]}
    release = FleetPoolReleaseOperator(task_id="release_pools", spec_path=str(spec_file))
    pulled[("release_pools", "return_value")] = release.execute(_context({}, pulled))
    report = FleetCostReportOperator(
        task_id="cost_report",
        spec_path=str(spec_file),
        out_dir=str(tmp_path / "reports"),
        upload=False,
        release_task_id="release_pools",
    )
    result = report.execute(_context({}, pulled))
    assert result["totals"]["completed"] == len(CITIES)
    assert result["plan_against_actual"]["planned_warm_starts"] == plan.summary.warm_starts
