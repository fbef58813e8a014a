"""The register task and the cost report of a gated run against the simulator, through the Airflow AWS connection:
each city's decision, its package, the report's ``models`` (JSON, CSV, HTML), the summary line, the models asset's
event (approved cities only, pending apart) and a retried register task that registers nothing twice."""

from __future__ import annotations

import copy
import csv
import io
import json
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest
import yaml

from sagemaker_fleet.compat import AirflowSkipException
from sagemaker_fleet.contract import REGISTER_TASK_ID
from sagemaker_fleet.fleetspec import load_fleet_spec
from sagemaker_fleet.jobs.request import Submission, compile_training_request
from sagemaker_fleet.observability.facets import event_cities
from sagemaker_fleet.operators.register import FleetRegisterOperator, RegistrationError
from sagemaker_fleet.operators.report import FleetCostReportOperator

pytestmark = pytest.mark.integration
RUN_KEY = "20261129"
BOUND = 0.5
QUICK = Path(__file__).parent / "fleets" / "quick.yaml"


@pytest.fixture
def spec_path(tmp_path: Path) -> Path:
    data = yaml.safe_load(QUICK.read_text())
    data["cities"] = [c for c in data["cities"] if "spot" not in c] + [
        {"name": f"town{i}", "train_s3_uri": f"s3://acme-ml/data/town{i}/"} for i in range(5)
    ]
    data["defaults"]["max_runtime_seconds"] = 7200  # the simulator's default work outlasts quick.yaml's 600 s
    data["job"] = {
        "AlgorithmSpecification": {
            "MetricDefinitions": [{"Name": "validation:rmse", "Regex": "rmse=([0-9.]+)"}]
        }
    }
    data["register"] = {
        "group": "{fleet}-{city}",
        "metric": "validation:rmse",
        "direction": "minimize",
        "margin": 0.02,
        "bound": BOUND,
        "inference": {"Containers": [{"Image": "111122223333.dkr.ecr.us-east-1.amazonaws.com/serve:1"}]},
    }
    path = tmp_path / "gated.yaml"
    path.write_text(yaml.safe_dump(data, sort_keys=False))
    return path


def context(xcoms: dict[str, Any] | None = None) -> dict[str, Any]:
    run_id = "scheduled__2026-11-29T00:00:00+00:00"
    values = xcoms or {}
    return {
        "params": {},
        "run_id": run_id,
        "logical_date": None,
        "dag_run": SimpleNamespace(run_id=run_id, run_type="scheduled"),
        "ti": SimpleNamespace(xcom_pull=lambda task_ids, key="return_value": values.get(task_ids)),
        "outlet_events": {},
    }


class _Outlets:
    """``context["outlet_events"]``: what the report adds through the alias goes to ``recorder``."""

    def __init__(self, alias: Any, recorder: Any) -> None:
        self.alias, self.recorder = alias, recorder

    def __getitem__(self, key: Any) -> Any:
        assert key is self.alias
        return self.recorder


def train(sim: Any, spec_path: Path) -> dict[str, float]:
    spec = load_fleet_spec(spec_path)
    sm = sim.boto3_client("sagemaker")
    for city in spec.cities:
        sm.create_training_job(**compile_training_request(spec, city, Submission(city.name, RUN_KEY)))
    sim.advance(3 * 3600)
    values = {}
    for city in spec.cities:
        described = sm.describe_training_job(TrainingJobName=f"quick-{city.name}-{RUN_KEY}")
        values[city.name] = described["FinalMetricDataList"][0]["Value"]
    return values


def register(spec_path: Path, monkeypatch: pytest.MonkeyPatch) -> dict[str, Any]:
    monkeypatch.setattr("sagemaker_fleet.operators.register.task_run_key", lambda _: RUN_KEY)
    operator = FleetRegisterOperator(task_id=REGISTER_TASK_ID, spec_path=str(spec_path))
    result: dict[str, Any] = operator.execute(context())  # type: ignore[arg-type]
    return result


def test_the_register_task_then_the_report_show_every_decision(
    aws_sim: Any, spec_path: Path, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    values = train(aws_sim, spec_path)
    aws_sim.metrics_missing(["quick/town4"])  # its job reports no metric after all
    decisions = register(spec_path, monkeypatch)
    by_city = {d["city"]: d for d in decisions["cities"]}
    approved = {c for c, v in values.items() if v <= BOUND and c != "town4"}
    assert {c for c, d in by_city.items() if d["decision"] == "approved"} == approved
    assert by_city["town4"]["decision"] == "no_metric"
    assert "package_arn" not in by_city["town4"]
    assert decisions["counts"] == {
        "approved": len(approved),
        "pending": 0,
        "rejected": len(values) - len(approved) - 1,
        "no_metric": 1,
        "not_trained": 0,
    }
    # a retried task registers nothing twice
    again = register(spec_path, monkeypatch)
    assert [d.get("package_arn") for d in again["cities"]] == [
        d.get("package_arn") for d in decisions["cities"]
    ]
    assert all(d.get("found") for d in again["cities"] if d["decision"] != "no_metric")
    assert len(aws_sim.registry()["packages"]) == len(values) - 1

    monkeypatch.setattr("sagemaker_fleet.operators.report.task_run_key", lambda _: RUN_KEY)
    from airflow.sdk import AssetAlias

    alias = AssetAlias(name="quick-trained-models")
    added: list[tuple[Any, dict[str, Any]]] = []
    report = FleetCostReportOperator(
        task_id="cost_report",
        spec_path=str(spec_path),
        upload=False,
        out_dir=str(tmp_path),
        register_task_id=REGISTER_TASK_ID,
        outlets=[alias],
    )
    ctx = context({REGISTER_TASK_ID: decisions})
    # Airflow's outlet events, indexed by the alias (a stand-in: 3.0's AssetAlias is not hashable, no dict key)
    recorder = SimpleNamespace(add=lambda asset, extra: added.append((asset, extra)))
    ctx["outlet_events"] = _Outlets(alias, recorder)
    result = report.execute(ctx)  # type: ignore[arg-type]
    assert result["models"] == decisions["counts"]
    document = json.loads((tmp_path / RUN_KEY / "report.json").read_text())
    assert document["models"] == decisions
    rows = list(csv.DictReader(io.StringIO((tmp_path / RUN_KEY / "report.csv").read_text())))
    for row in rows:
        decision = by_city[row["city"]]
        assert row["model:decision"] == decision["decision"]
        assert row["model:package_arn"] == decision.get("package_arn", "")
    html = (tmp_path / RUN_KEY / "report.html").read_text()
    assert '<table id="models"' in html
    assert f"{len(approved)} approved" in html
    ((asset, extra),) = added
    assert asset.name == "quick-models"
    cities = event_cities(extra)  # a list, or on Airflow 3.0 its JSON text
    assert {c["city"] for c in cities} == approved
    assert all(c["package_arn"] == by_city[c["city"]]["package_arn"] for c in cities)
    assert event_cities(extra, "pending") == []
    registry = extra["registry"]
    assert (json.loads(registry) if isinstance(registry, str) else registry) == decisions["counts"]
    assert extra["trained"] == len(values)


def test_a_city_whose_calls_keep_failing_fails_the_task_after_the_others(
    aws_sim: Any, spec_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    train(aws_sim, spec_path)
    spec = copy.deepcopy(yaml.safe_load(spec_path.read_text()))
    spec["cities"][0]["register"] = {"group": "{fleet}-{city}-refused"}
    spec_path.write_text(yaml.safe_dump(spec, sort_keys=False))
    aws_sim.api_errors(1.0, ["DescribeModelPackageGroup"])
    monkeypatch.setattr("sagemaker_fleet.operators.register.task_run_key", lambda _: RUN_KEY)
    operator = FleetRegisterOperator(
        task_id=REGISTER_TASK_ID,
        spec_path=str(spec_path),
        botocore_config={"retries": {"total_max_attempts": 2}},
    )
    with pytest.raises(
        RegistrationError, match=r"8 of 8 cities could not be registered \(oslo: InternalFailure"
    ):
        operator.execute(context())  # type: ignore[arg-type]
    aws_sim.api_errors(0.0)
    result = operator.execute(context())  # type: ignore[arg-type]
    assert len(result["cities"]) == 8
    assert "quick-seoul-refused" in {g["name"] for g in aws_sim.registry()["groups"]}


def test_a_dry_run_registers_nothing(spec_path: Path) -> None:
    operator = FleetRegisterOperator(task_id=REGISTER_TASK_ID, spec_path=str(spec_path), use_params=True)
    with pytest.raises(AirflowSkipException, match="a dry run trains nothing"):
        operator.execute({**context(), "params": {"dry_run": True}})  # type: ignore[arg-type]
