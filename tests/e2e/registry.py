"""The model registry's gate through real Airflow against the simulator (docs/guides/model-registry.md): the
20-city fleet of tests/e2e/fleets/registry.yaml run twice on the LocalExecutor stack, after its fault run.

- run 1: every city whose metric reaches the bound is approved as its first champion, the others rejected with the
  reason; the city whose container prints no metric gets no package;
- a person rejects one champion (UpdateModelPackage, as a person's tooling does);
- run 2: exactly the cities whose new metric beats their champion by the margin are approved — the simulator's
  seeded metrics say which, with winners, ties and losers — the person's city is held to the bound again;
- a city of run 2 is cleared with everything after it: its task attaches to its job, the register task runs again
  and finds every package (none registered twice);
- a share of the registry calls is throttled and a share of CreateModelPackage's answers is lost after it acted, in
  both runs: retried, one package per job (its ClientToken), no decision lost;
- the cost report (report.json, report.html on S3), the Fleet view in Chromium and the models asset's events show
  the decisions, and the deploy DAG scheduled on the asset deploys the approved cities only.

The run ids are fixed, so the run keys, the jobs' names and their seeded metrics are the same every time.
"""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any

from e2e.chaos import city_of, fleet_jobs
from sagemaker_fleet.contract import REGISTER_TASK_ID, fleet_view_path
from sagemaker_fleet.fleetspec.names import report_s3_uri, run_key_for, split_s3_uri
from sagemaker_fleet.testing.stack import LocalAirflowStack, ti_label

REGISTRY_DAG = "e2e_registry"
DEPLOY_DAG = "e2e_registry_deploy"
RUNS = ("registry-first", "registry-second")
NO_METRIC_CITY = "cork"
CLEARED_CITY = "graz"
RUN_TIMEOUT = 900.0
REGISTRY_OPERATIONS = [
    "CreateModelPackageGroup",
    "DescribeModelPackageGroup",
    "CreateModelPackage",
    "DescribeModelPackage",
    "ListModelPackages",
    "UpdateModelPackage",
]
CHROMIUM = Path("/usr/bin/chromium")


def run_key(run_id: str) -> str:
    return run_key_for(None, run_id, "manual", dag_id=REGISTRY_DAG)


def trigger(stack: LocalAirflowStack, run_id: str) -> str:
    stack.unpause(REGISTRY_DAG)
    run = stack.api(
        "POST", f"/api/v2/dags/{REGISTRY_DAG}/dagRuns", {"dag_run_id": run_id, "logical_date": None}
    )
    return str(run["dag_run_id"])


def decisions_of(stack: LocalAirflowStack, run_id: str) -> dict[str, Any]:
    entry = stack.api(
        "GET",
        f"/api/v2/dags/{REGISTRY_DAG}/dagRuns/{run_id}/taskInstances/{REGISTER_TASK_ID}/xcomEntries/return_value",
    )
    value = entry["value"]
    return value if isinstance(value, dict) else json.loads(value)


def metrics_of(sim: Any, spec: Any, run_id: str) -> dict[str, float | None]:
    """Each city's final validation:rmse in the run, as SageMaker (the simulator) reports it."""
    sm = sim.boto3_client("sagemaker")
    out: dict[str, float | None] = {}
    for job in fleet_jobs(sim, spec, run_key(run_id)):
        if job["status"] != "Completed":
            continue
        described = sm.describe_training_job(TrainingJobName=job["name"])
        values = [
            m["Value"]
            for m in described.get("FinalMetricDataList", [])
            if m["MetricName"] == "validation:rmse"
        ]
        out[str(city_of(job["name"], spec))] = values[0] if values else None
    return out


def clear_city(stack: LocalAirflowStack, run_id: str, city: str) -> None:
    """Clear the city's training task and everything after it (the register task, the report, the outcome)."""
    (ti,) = [t for t in stack.task_instances(REGISTRY_DAG, run_id) if ti_label(t) == f"train[{city}]"]
    stack.api(
        "POST",
        f"/api/v2/dags/{REGISTRY_DAG}/clearTaskInstances",
        {
            "dry_run": False,
            "dag_run_id": run_id,
            "task_ids": [[ti["task_id"], ti["map_index"]]],
            "only_failed": False,
            "reset_dag_runs": True,
            "include_downstream": True,
        },
    )


def run_registry(stack: LocalAirflowStack, sim: Any, spec: Any) -> dict[str, Any]:
    """The two runs, the person between them and the cleared city, under registry faults; what each left."""
    stack.wait_for_dag(REGISTRY_DAG)
    stack.wait_for_dag(DEPLOY_DAG)
    stack.unpause(DEPLOY_DAG)
    sim.metrics_missing([f"{spec.fleet}/{NO_METRIC_CITY}"])
    # shares that make both faults happen in each run without the clients' back-off dominating the scenario's time
    # (at 30 % each the register task took 2 minutes for 20 cities on a loaded machine)
    sim.throttle(0.15, REGISTRY_OPERATIONS)
    sim.api_errors(0.25, ["CreateModelPackage"], after_commit=True)
    began = time.monotonic()
    result: dict[str, Any] = {"states": {}, "decisions": {}, "metrics": {}}
    for index, run_id in enumerate(RUNS):
        trigger(stack, run_id)
        result["states"][run_id] = stack.wait_for_run(REGISTRY_DAG, run_id, timeout=RUN_TIMEOUT)
        result["decisions"][run_id] = decisions_of(stack, run_id)
        result["metrics"][run_id] = metrics_of(sim, spec, run_id)
        if index == 0:  # a person rejects the first approved champion between the runs
            approved = [d for d in result["decisions"][run_id]["cities"] if d["decision"] == "approved"]
            person = min(approved, key=lambda d: d["city"])
            sim.boto3_client("sagemaker").update_model_package(
                ModelPackageArn=person["package_arn"],
                ModelApprovalStatus="Rejected",
                ApprovalDescription="rejected by a person: drifted in production",
            )
            result["rejected_by_person"] = person
    packages_before = len(sim.registry()["packages"])
    clear_city(stack, RUNS[1], CLEARED_CITY)
    result["cleared_state"] = stack.wait_for_run(REGISTRY_DAG, RUNS[1], timeout=RUN_TIMEOUT)
    result["after_clear"] = decisions_of(stack, RUNS[1])
    result["packages_before_clear"] = packages_before
    result["calls"] = sim.calls()
    sim.throttle(0.0)
    sim.api_errors(0.0)
    sim.metrics_missing([])
    result["seconds"] = round(time.monotonic() - began)
    return result


def check_registry(stack: LocalAirflowStack, sim: Any, spec: Any, result: dict[str, Any]) -> dict[str, Any]:
    """The assertions of the scenario, after the figures are gathered (returned for the test's output)."""
    cities = {c.name for c in spec.cities}
    register = spec.cities[0].register
    bound, margin = register.bound, register.margin
    first, second = (result["decisions"][run] for run in RUNS)
    m1, m2 = (result["metrics"][run] for run in RUNS)
    assert result["states"] == {run: "success" for run in RUNS}, result["states"]
    assert result["cleared_state"] == "success"
    by1 = {d["city"]: d for d in first["cities"]}
    by2 = {d["city"]: d for d in second["cities"]}
    # (a) the first run: the bound decides; the city without the metric gets no package
    assert set(by1) == cities
    assert m1[NO_METRIC_CITY] is None
    assert by1[NO_METRIC_CITY]["decision"] == "no_metric"
    assert "package_arn" not in by1[NO_METRIC_CITY]
    approved1 = {c for c, v in m1.items() if v is not None and v <= bound}
    assert {c for c, d in by1.items() if d["decision"] == "approved"} == approved1
    assert {c for c, d in by1.items() if d["decision"] == "rejected"} == cities - approved1 - {NO_METRIC_CITY}
    assert all("> the bound 0.5" in by1[c]["reason"] for c in cities - approved1 - {NO_METRIC_CITY})
    # (b) the second run against the champions the registry holds now (the person's rejection followed)
    person = result["rejected_by_person"]["city"]
    champions = approved1 - {person}
    expected = {
        c
        for c, v in m2.items()
        if v is not None and (v <= m1[c] * (1 - margin) if c in champions else v <= bound)  # type: ignore[operator]
    }
    assert {c for c, d in by2.items() if d["decision"] == "approved"} == expected
    assert {c for c, d in by2.items() if d["decision"] == "rejected"} == cities - expected - {NO_METRIC_CITY}
    kinds = {
        "beat the champion": sorted(c for c in champions if c in expected),
        "tied the champion": sorted(c for c in champions if m2[c] == m1[c]),
        "worse than the champion": sorted(c for c in champions if m2[c] > m1[c]),  # type: ignore[operator]
        "first champion": sorted(c for c in expected - champions),
    }
    assert all(kinds.values()), kinds
    for city in champions:
        assert by2[city]["champion_arn"] == by1[city]["package_arn"], city
        assert by2[city]["champion"] == m1[city]
    assert "champion_arn" not in by2[person]  # a rejected package is no champion
    # (c) one package per job whatever was retried, throttled, lost or cleared
    packages = sim.registry()["packages"]
    assert len(packages) == result["packages_before_clear"] == 2 * (len(cities) - 1)
    assert len({p["client_token"] for p in packages}) == len(packages)
    calls = result["calls"]
    assert calls["errors"].get("CreateModelPackage:InternalFailure", 0) > 0, calls["errors"]
    assert sum(calls["throttled"].get(op, 0) for op in REGISTRY_OPERATIONS) > 0, calls["throttled"]
    again = {d["city"]: d for d in result["after_clear"]["cities"]}
    for city, decision in by2.items():
        assert (again[city]["decision"], again[city].get("package_arn")) == (
            decision["decision"],
            decision.get("package_arn"),
        ), city
    assert all(d.get("found") for c, d in again.items() if c != NO_METRIC_CITY)
    # (d) the report, the asset's events and the deploy DAG
    report = report_of(sim, spec, RUNS[1])
    assert report["models"] == result["after_clear"]
    events = stack.api(
        "GET", f"/api/v2/assets/events?source_dag_id={REGISTRY_DAG}&source_task_id=cost_report"
    )
    announced = [e["extra"] for e in events["asset_events"] if e["name"] == f"{spec.fleet}-models"]
    for extra in announced:
        approved = approved1 if extra["run_key"] == run_key(RUNS[0]) else expected
        assert {c["city"] for c in extra_cities(extra)} == approved, extra["run_key"]
    assert {e["run_key"] for e in announced} == {run_key(r) for r in RUNS}
    deployed = wait_for_deploys(stack, {run_key(r) for r in RUNS})
    for record in deployed:
        approved = approved1 if record["run_key"] == run_key(RUNS[0]) else expected
        assert set(record["cities"]) == approved, record
        assert record["pending"] == []
    view = fleet_view_in_chromium(stack, RUNS[1]) if CHROMIUM.exists() else {"not seen": "no Chromium"}
    if "rows" in view:
        assert view["rows"] == len(cities)
        assert view["counts"].startswith(f"{len(expected)} approved, 0 pending approval, ")
        assert view["approved_rows"] == len(expected)
    return {
        "seconds": result["seconds"],
        "first_run": first["counts"],
        "second_run": second["counts"],
        "second_run_kinds": kinds,
        "rejected_by_person": person,
        "packages": len(packages),
        "registry_calls": {op: calls["calls"].get(op, 0) for op in REGISTRY_OPERATIONS},
        "registry_throttled": {op: calls["throttled"].get(op, 0) for op in REGISTRY_OPERATIONS},
        "lost_answers": {k: v for k, v in calls["errors"].items() if "InternalFailure" in k},
        "fleet_view": view,
        "deploys": deployed,
    }


def extra_cities(extra: dict[str, Any], key: str = "cities") -> list[dict[str, Any]]:
    from sagemaker_fleet.observability.facets import event_cities

    return event_cities(extra, key)


def report_of(sim: Any, spec: Any, run_id: str) -> dict[str, Any]:
    """The run's report.json as the cost report task uploaded it."""
    bucket, key = split_s3_uri(report_s3_uri(spec.output_s3_uri, run_key(run_id)) + "report.json")
    body = sim.boto3_client("s3").get_object(Bucket=bucket, Key=key)["Body"].read()
    html = sim.boto3_client("s3").get_object(Bucket=bucket, Key=key.replace("report.json", "report.html"))
    assert b'<table id="models"' in html["Body"].read()
    return dict(json.loads(body))


def wait_for_deploys(
    stack: LocalAirflowStack, run_keys: set[str], timeout: float = 180.0
) -> list[dict[str, Any]]:
    """Every deploy the DAG after the fleet made, once it has deployed a run of each of ``run_keys``."""
    folder = Path(stack.settings.home) / "deployed"
    deadline = time.monotonic() + timeout
    records: list[dict[str, Any]] = []
    while time.monotonic() < deadline:
        records = [r for path in sorted(folder.glob("*.json")) for r in json.loads(path.read_text())]
        if {r["run_key"] for r in records} >= run_keys:
            return records
        time.sleep(2)
    raise AssertionError(
        f"{DEPLOY_DAG} deployed {records} within {timeout:.0f} s, not every run of {run_keys}"
    )


def fleet_view_in_chromium(stack: LocalAirflowStack, run_id: str) -> dict[str, Any]:
    """The run's Fleet tab, as a person sees it in Chromium: its Models table and counts."""
    from playwright.sync_api import sync_playwright

    link = fleet_view_path(REGISTRY_DAG, run_id, tab=True)
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=str(CHROMIUM), args=["--no-sandbox"])
        try:
            page = browser.new_page(viewport={"width": 1280, "height": 900})
            errors: list[str] = []
            page.on("pageerror", lambda error: errors.append(str(error)))
            page.goto(stack.url + link)
            view = page.frame_locator("iframe").first
            view.locator("#models").wait_for(timeout=120_000)
            decisions = view.locator("#models tbody tr td:nth-child(2)").all_inner_texts()
            seen = {
                "rows": view.locator("#models tbody tr").count(),
                "approved_rows": decisions.count("approved"),
                "counts": view.locator("#model-counts").inner_text(),
            }
            assert errors == [], errors
            return seen
        finally:
            browser.close()
