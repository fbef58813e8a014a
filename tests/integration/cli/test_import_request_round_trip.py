"""``import`` then ``request`` round-trips a job you already run, over HTTP against the simulator.

Two jobs made the way a team makes them today (channels beyond ``train``, metric definitions, tags, an output KMS
key, an entrypoint with arguments, environment, a VPC, a retry strategy) are imported into a spec; ``request`` for
each city then prints the request the operator would send, which equals the original but for the fields the
provider owns — compared after SageMaker's defaults are filled in on both sides, and with channels and tags
compared by name.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest
import yaml

from sagemaker_fleet.cli.main import main
from sagemaker_fleet.fleetspec.draft import strip_defaults
from sagemaker_fleet.fleetspec.job_fields import OWNED
from sagemaker_fleet.fleetspec.names import TAG_PREFIX

if TYPE_CHECKING:
    from sagemaker_fleet.sim.client import SimClient

pytestmark = pytest.mark.integration

ROLE = "arn:aws:iam::111122223333:role/FleetTraining"
IMAGE = "111122223333.dkr.ecr.us-east-1.amazonaws.com/demand:2.1"
RUN_KEY = "20261129"


def original(city: str, volume: int, epochs: str) -> dict[str, Any]:
    """A job as a team runs it now, by hand or through the SageMaker SDK."""
    return {
        "TrainingJobName": f"demand-{city}-2026-11-28-02-00-00",
        "RoleArn": ROLE,
        "AlgorithmSpecification": {
            "TrainingImage": IMAGE,
            "TrainingInputMode": "File",
            "ContainerEntrypoint": ["python", "-m", "demand.train"],
            "ContainerArguments": ["--city", city, "--horizon", "28"],
            "MetricDefinitions": [
                {"Name": "validation:rmse", "Regex": "val_rmse=([0-9.]+)"},
                {
                    "Name": "validation:mape",
                    "Regex": "val_mape=([0-9]{1,3}[.][0-9]+)",
                },  # braces: {{ }} in a spec
            ],
        },
        "InputDataConfig": [
            _channel("train", f"s3://acme-ml/data/{city}/train/"),
            _channel("validation", f"s3://acme-ml/data/{city}/validation/"),
            _channel("features", "s3://acme-ml/features/holidays/"),
        ],
        "OutputDataConfig": {"S3OutputPath": f"s3://acme-ml/models/{city}/", "KmsKeyId": "alias/ml-output"},
        "ResourceConfig": {
            "InstanceType": "ml.m5.xlarge",
            "InstanceCount": 1,
            "VolumeSizeInGB": volume,
            "KeepAlivePeriodInSeconds": 600,
        },
        "VpcConfig": {"Subnets": ["subnet-0a1b2c3d"], "SecurityGroupIds": ["sg-0a1b2c3d"]},
        "StoppingCondition": {"MaxRuntimeInSeconds": 5400},
        "HyperParameters": {"epochs": epochs, "learning_rate": "0.05"},
        "Environment": {"STAGE": "prod", "CITY": city},
        "RetryStrategy": {"MaximumRetryAttempts": 2},
        "CheckpointConfig": {"S3Uri": f"s3://acme-ml/checkpoints/{city}/"},
        "Tags": [{"Key": "cost-center", "Value": "forecasting"}, {"Key": "city", "Value": city}],
    }


def _channel(name: str, uri: str) -> dict[str, Any]:
    return {"ChannelName": name, "DataSource": {"S3DataSource": {"S3DataType": "S3Prefix", "S3Uri": uri}}}


def comparable(request: dict[str, Any]) -> dict[str, Any]:
    """The request without the provider's fields and SageMaker's defaults; channels and tags by name."""
    value: dict[str, Any] = json.loads(json.dumps(request))
    for path in OWNED:
        *parents, last = path.split(".")
        inner = value
        for part in parents:
            inner = inner.get(part) or {}
        inner.pop(last, None)
    value["Tags"] = sorted(
        (tag for tag in value.get("Tags", []) if not tag["Key"].startswith(TAG_PREFIX)),
        key=lambda t: t["Key"],
    )
    value["InputDataConfig"] = sorted(value.get("InputDataConfig", []), key=lambda c: c["ChannelName"])
    stripped: dict[str, Any] = strip_defaults(value)
    return stripped


@pytest.fixture
def aws_env(monkeypatch: pytest.MonkeyPatch, sim: SimClient) -> SimClient:
    for name, value in (
        ("AWS_ACCESS_KEY_ID", "testing"),
        ("AWS_SECRET_ACCESS_KEY", "testing"),
        ("AWS_DEFAULT_REGION", "us-east-1"),
    ):
        monkeypatch.setenv(name, value)
    monkeypatch.delenv("AWS_ENDPOINT_URL", raising=False)
    return sim


def test_import_then_request_gives_back_each_job_but_the_provider_s_fields(
    aws_env: SimClient, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    client = aws_env.boto3_client("sagemaker")
    jobs = {"seoul": original("seoul", 50, "20"), "lagos": original("lagos", 80, "30")}
    for request in jobs.values():
        client.create_training_job(**request)
    spec = tmp_path / "demand.yaml"
    names = [request["TrainingJobName"] for request in jobs.values()]
    code = main(
        ["import", *names, "--cities", "seoul,lagos", "--fleet", "demand", "--endpoint-url", aws_env.url]
        + ["--out", str(spec)]
    )
    imported = capsys.readouterr()
    assert code == 0, imported.err
    assert "note: the draft needs edits" not in imported.err
    assert "TrainingJobName — the provider's" in imported.err
    assert "read-only: DescribeTrainingJob reports it" in imported.err  # e.g. TrainingJobStatus
    draft = yaml.safe_load(spec.read_text())
    shared = draft["job"]
    assert shared["AlgorithmSpecification"]["ContainerArguments"] == ["--city", "{city}", "--horizon", "28"]
    assert shared["Environment"] == {"STAGE": "prod", "CITY": "{city}"}
    assert {c["ChannelName"] for c in shared["InputDataConfig"]} == {"train", "validation", "features"}
    assert draft["cities"][1] == {
        "name": "lagos",
        "job": {"ResourceConfig": {"VolumeSizeInGB": 80}, "HyperParameters": {"epochs": "30"}},
    }
    assert main(["validate", str(spec)]) == 0
    capsys.readouterr()
    for city, request in jobs.items():
        assert main(["request", str(spec), city, "--run-key", RUN_KEY]) == 0
        compiled = json.loads(capsys.readouterr().out)
        assert compiled["TrainingJobName"] == f"demand-{city}-{RUN_KEY}"
        assert comparable(compiled) == comparable(request)


def test_import_from_a_request_file_needs_no_endpoint(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "request.json"
    path.write_text(json.dumps(original("oslo", 30, "10")))
    spec = tmp_path / "spec.yaml"
    assert main(["import", "--request", str(path), "--cities", "oslo", "--out", str(spec)]) == 0
    capsys.readouterr()
    assert main(["request", str(spec), "oslo", "--run-key", RUN_KEY]) == 0
    compiled = json.loads(capsys.readouterr().out)
    assert comparable(compiled) == comparable(original("oslo", 30, "10"))
