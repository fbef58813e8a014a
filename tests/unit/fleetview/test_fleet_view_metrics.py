"""The Fleet view shows each city's final metrics: a value per metric on each job's row, the best and worst city
of each metric, and nothing of the kind for a run without metric definitions."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
from datetime import timedelta
from pathlib import Path

import pytest

from sagemaker_fleet.fleetspec.price_table import load_price_table
from sagemaker_fleet.fleetview.model import RunContext, ViewInputs, build_fleet_view
from sagemaker_fleet.fleetview.page import fleet_page
from sagemaker_fleet.jobs.prices import PriceBook
from sagemaker_fleet.plan import plan_fleet
from unit.cost.cost_describes import RUN_KEY, T0, demo_run, demo_spec
from unit.cost.test_cost_metrics import with_metrics


def view(metrics: bool) -> dict[str, object]:
    spec = demo_spec()
    run = with_metrics(demo_run()) if metrics else demo_run()
    inputs = ViewInputs(
        spec,
        plan_fleet(spec, RUN_KEY).to_json(),
        run,
        PriceBook(spec.region, load_price_table()),
        T0 + timedelta(hours=3),
    )
    return build_fleet_view(RunContext("fleet_demo", "manual__1", RUN_KEY, "success"), inputs)


def test_each_job_row_has_its_metrics_and_the_view_the_best_and_worst() -> None:
    shown = view(metrics=True)
    rows = {job["job_name"]: job for job in shown["jobs"]}  # type: ignore[union-attr,index]
    assert rows["demo-tokyo-20261129"]["metrics"] == {"validation:rmse": 0.12, "validation:accuracy": 0.95}
    assert rows["demo-lima-20261129"]["metrics"] == {}
    metrics = shown["metrics"]
    assert metrics["names"] == ["validation:rmse", "validation:accuracy"]  # type: ignore[index]
    rmse = metrics["summary"][0]  # type: ignore[index]
    assert (rmse["best"]["city"], rmse["worst"]["city"]) == ("tokyo", "lagos")


def test_a_run_without_metric_definitions_shows_none() -> None:
    assert view(metrics=False)["metrics"] is None


@pytest.mark.skipif(shutil.which("node") is None, reason="node is not installed")
def test_the_page_script_parses(tmp_path: Path) -> None:
    page = fleet_page("/sagemaker-fleet", "fleet_demo", "manual__1", 30)
    scripts = re.findall(r"<script[^>]*>(.*?)</script>", page, re.S)
    assert scripts
    for index, script in enumerate(scripts):
        path = tmp_path / f"s{index}.js"
        path.write_text(script)
        done = subprocess.run(["node", "--check", str(path)], capture_output=True, text=True, timeout=60)
        assert done.returncode == 0, done.stderr


@pytest.mark.skipif(shutil.which("node") is None, reason="node is not installed")
def test_the_tab_draws_a_column_per_metric_and_the_best_and_worst(tmp_path: Path) -> None:
    from sagemaker_fleet.fleetview.page import TAB_SCRIPT

    data = tmp_path / "view.json"
    data.write_text(json.dumps({**view(metrics=True), "fleet_dag": True}))
    shim = Path(__file__).with_name("dom_shim.js")
    done = subprocess.run(
        ["node", str(shim), str(data)], input=TAB_SCRIPT, capture_output=True, text=True, timeout=60
    )
    assert done.returncode == 0, done.stderr
    drawn = json.loads(done.stdout)
    (head,), body = drawn["jobs"][0], drawn["jobs"][1]
    assert head[8:10] == ["validation:rmse", "validation:accuracy"]
    tokyo = next(row for row in body if row[2] == "demo-tokyo-20261129")
    assert tokyo[8:10] == ["0.12", "0.95"]
    assert (
        drawn["summary"][0]
        == "validation:rmse (lower is better, 5 cities): best tokyo 0.12, worst lagos 0.34"
    )


def gated_view() -> dict[str, object]:
    """The view of a run whose models went through the gate: one approved, one without the metric."""
    from sagemaker_fleet.registry.decision import CityDecision, run_decisions

    decisions = run_decisions(
        [
            CityDecision(
                "tokyo",
                "approved",
                "validation:rmse 0.12 ≤ 0.1323 (the champion demo-tokyo/1's 0.135 less 2 %): approved",
                job_name="demo-tokyo-20261129",
                metric="validation:rmse",
                challenger=0.12,
                champion=0.135,
                package_arn="arn:aws:sagemaker:us-east-1:111122223333:model-package/demo-tokyo/2",
                status="Approved",
            ),
            CityDecision("lima", "no_metric", "job demo-lima-20261129 reported no validation:rmse"),
        ]
    )
    spec = demo_spec()
    inputs = ViewInputs(
        spec,
        plan_fleet(spec, RUN_KEY).to_json(),
        with_metrics(demo_run()),
        PriceBook(spec.region, load_price_table()),
        T0 + timedelta(hours=3),
        models=decisions,
    )
    return build_fleet_view(RunContext("fleet_demo", "manual__1", RUN_KEY, "success"), inputs)


def test_a_gated_run_shows_each_city_s_decision() -> None:
    """The register task's decisions, as the cost report has them: the view's ``models``."""
    shown = gated_view()
    assert shown["models"]["counts"]["approved"] == 1  # type: ignore[index]
    assert [c["city"] for c in shown["models"]["cities"]] == ["lima", "tokyo"]  # type: ignore[index]
    assert view(metrics=True)["models"] is None


@pytest.mark.skipif(shutil.which("node") is None, reason="node is not installed")
def test_the_tab_draws_each_city_s_decision(tmp_path: Path) -> None:
    from sagemaker_fleet.fleetview.page import TAB_SCRIPT

    data = tmp_path / "view.json"
    data.write_text(json.dumps({**gated_view(), "fleet_dag": True}))
    shim = Path(__file__).with_name("dom_shim.js")
    done = subprocess.run(
        ["node", str(shim), str(data)], input=TAB_SCRIPT, capture_output=True, text=True, timeout=60
    )
    assert done.returncode == 0, done.stderr
    drawn = json.loads(done.stdout)
    assert drawn["model_counts"] == "1 approved, 0 pending approval, 0 rejected, 1 without the metric"
    (head,), body = drawn["models"][0], drawn["models"][1]
    assert head == ["city", "decision", "metric", "value", "champion", "package", "why"]
    assert body[0][:2] == ["lima", "no_metric"]
    assert body[0][5] == "not registered"
    assert body[1][:6] == [
        "tokyo",
        "approved",
        "validation:rmse",
        "0.12",
        "0.135",
        "arn:aws:sagemaker:us-east-1:111122223333:model-package/demo-tokyo/2",
    ]
