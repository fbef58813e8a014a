"""``simulate`` of a fleet with ``register:`` says what the gate would decide on a first run, from the simulated
jobs' own final metrics: the bound decides (no champion yet), a city without the metric gets no package, and the
simulate JSON of a fleet without ``register:`` is unchanged."""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import TYPE_CHECKING, Any

import yaml

from sagemaker_fleet.cli.main import main
from sagemaker_fleet.fleetspec import parse_fleet_spec
from sagemaker_fleet.hooks.request_model import BOTOCORE_MODEL
from sagemaker_fleet.registry.whatif import first_run
from sagemaker_fleet.simulate import SimulateOptions, simulate_fleet

if TYPE_CHECKING:
    import pytest

FLEET: dict[str, Any] = {
    "fleet": "whatif",
    "region": "us-east-1",
    "role_arn": "arn:aws:iam::111122223333:role/FleetTraining",
    "image_uri": "111122223333.dkr.ecr.us-east-1.amazonaws.com/demand:1.4",
    "output_s3_uri": "s3://acme-ml/fleets/whatif",
    "quotas": {"ml.m5.xlarge": {"instances": 10, "warm_pools": 4}},
    "defaults": {"instance_type": "ml.m5.xlarge", "expected_seconds": 600},
    "job": {
        "AlgorithmSpecification": {"MetricDefinitions": [{"Name": "validation:auc", "Regex": "auc=(.*)"}]}
    },
    "register": {
        "group": "{fleet}-{city}",
        "metric": "validation:auc",
        "direction": "maximize",
        "margin_abs": 0.01,
        "bound": 0.5,
        "losers": "skip",
        "inference": {"Containers": [{"Image": "111122223333.dkr.ecr.us-east-1.amazonaws.com/serve:1"}]},
    },
    "cities": [{"name": f"c{i:02d}", "train_s3_uri": f"s3://acme-ml/data/c{i:02d}/"} for i in range(12)],
}


def spec_of(data: dict[str, Any]) -> Any:
    return parse_fleet_spec(yaml.safe_dump(data), model=BOTOCORE_MODEL)


def test_the_what_if_is_the_bound_against_the_simulated_metrics() -> None:
    spec = spec_of(FLEET)
    result = simulate_fleet(spec, SimulateOptions(run_key="20261205"))
    assert result.models is not None
    values = {line.city: dict(line.metrics)["validation:auc"] for line in result.report.lines}
    assert {d.city for d in result.models.of("approved")} == {c for c, v in values.items() if v >= 0.5}
    assert {d.city for d in result.models.of("rejected")} == {c for c, v in values.items() if v < 0.5}
    assert all(d.status is None for d in result.models.of("rejected"))  # losers: skip
    assert all("what-if, nothing registered" in d.reason for d in result.models.cities)
    assert result.to_json()["models"] == result.models.to_json()
    assert result.report.models == result.models


def test_a_city_without_the_metric_or_a_job_is_said_so() -> None:
    spec = spec_of(FLEET)
    trained = {"c00": ("whatif-c00-1", {"validation:auc": 0.7}), "c01": ("whatif-c01-1", {"other": 1.0})}
    decisions = first_run(spec, trained)
    assert decisions is not None
    by_city = decisions.by_city()
    assert by_city["c00"].decision == "approved"
    assert by_city["c01"].decision == "no_metric"
    assert by_city["c02"].decision == "not_trained"
    unbounded = copy.deepcopy(FLEET)
    del unbounded["register"]["bound"]
    pending = first_run(spec_of(unbounded), trained)
    assert pending is not None
    assert (pending.by_city()["c00"].decision, pending.by_city()["c00"].status) == (
        "pending",
        "PendingManualApproval",
    )
    assert first_run(spec_of({k: v for k, v in FLEET.items() if k != "register"}), trained) is None


def test_the_command_prints_the_what_if(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "whatif.yaml"
    path.write_text(yaml.safe_dump(FLEET))
    assert main(["simulate", str(path), "--run-key", "20261205"]) == 0
    text = capsys.readouterr().out
    assert "models     what-if of a first run (no champion yet, the bound decides):" in text
    assert main(["simulate", str(path), "--run-key", "20261205", "--json"]) == 0
    document = json.loads(capsys.readouterr().out)
    assert sum(document["models"]["counts"].values()) == len(FLEET["cities"])
    bare = tmp_path / "bare.yaml"
    bare.write_text(yaml.safe_dump({k: v for k, v in FLEET.items() if k != "register"}))
    assert main(["simulate", str(bare), "--run-key", "20261205", "--json"]) == 0
    assert "models" not in json.loads(capsys.readouterr().out)
