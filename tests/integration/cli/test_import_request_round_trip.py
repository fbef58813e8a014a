"""``import`` then ``request`` round-trips a job you already run, over HTTP against the simulator.

Jobs made the way a team makes them today (channels beyond ``train``, metric definitions, tags, an output KMS
key, an entrypoint with arguments, environment, a VPC, a retry strategy) are imported into a spec, with ``--cities``
or with the cities guessed from the job names; ``request`` for each city then prints the request the operator would
send, which equals the original but for the fields the provider owns — compared after SageMaker's defaults are
filled in on both sides, and with channels and tags compared by name — and writes its model where the job did
(``models/{city}/``, under the run's key). The quotas come from the simulator's Service Quotas; a draft that could
not read them says TODO, and ``validate`` refuses it until the numbers are written.
"""

from __future__ import annotations

import json
import socket
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
#: The account's quotas of ml.m5.xlarge in the simulator's Service Quotas, as the drafts must read them.
QUOTA = {"instances": 12, "warm_pools": 4}


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
        "HyperParameters": {"epochs": epochs, "learning_rate": "0.05", "features": "climate,holidays"},
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
    sim.set_quota("ml.m5.xlarge", **QUOTA)
    return sim


def import_jobs(
    sim: SimClient,
    jobs: dict[str, dict[str, Any]],
    spec: Path,
    capsys: pytest.CaptureFixture[str],
    *extra: str,
) -> tuple[dict[str, Any], str]:
    """Create ``jobs`` in the simulator and import them into ``spec``: the draft and import's stderr."""
    client = sim.boto3_client("sagemaker")
    for request in jobs.values():
        client.create_training_job(**request)
    names = [request["TrainingJobName"] for request in jobs.values()]
    code = main(["import", *names, *extra, "--endpoint-url", sim.url, "--out", str(spec)])
    err = capsys.readouterr().err
    assert code == 0, err
    return yaml.safe_load(spec.read_text()), err


def assert_round_trip(
    spec: Path, jobs: dict[str, dict[str, Any]], capsys: pytest.CaptureFixture[str]
) -> None:
    """``validate`` passes, and each city's request is its job's but for the provider's fields, its model going
    to ``s3://acme-ml/models/{city}/{run_key}/``: where the job wrote, once, not ``models/models``."""
    assert main(["validate", str(spec)]) == 0, capsys.readouterr().err
    capsys.readouterr()
    for city, request in jobs.items():
        assert main(["request", str(spec), city, "--run-key", RUN_KEY]) == 0
        compiled = json.loads(capsys.readouterr().out)
        assert compiled["TrainingJobName"] == f"demand-{city}-{RUN_KEY}"
        assert compiled["OutputDataConfig"]["S3OutputPath"] == f"s3://acme-ml/models/{city}/{RUN_KEY}/"
        assert compiled["CheckpointConfig"]["S3Uri"] == f"s3://acme-ml/checkpoints/{city}/{RUN_KEY}/"
        assert comparable(compiled) == comparable(request)


def test_import_then_request_gives_back_each_job_but_the_provider_s_fields(
    aws_env: SimClient, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    jobs = {"seoul": original("seoul", 50, "20"), "lagos": original("lagos", 80, "30")}
    spec = tmp_path / "demand.yaml"
    draft, err = import_jobs(aws_env, jobs, spec, capsys, "--cities", "seoul,lagos", "--fleet", "demand")
    assert "note: the draft needs edits" not in err
    assert "TrainingJobName — the provider's" in err
    assert "read-only: DescribeTrainingJob reports it" in err  # e.g. TrainingJobStatus
    assert "cities guessed" not in err  # --cities wins
    assert draft["output_s3_uri"] == "s3://acme-ml"
    assert draft["quotas"] == {"ml.m5.xlarge": QUOTA}
    shared = draft["job"]
    assert shared["AlgorithmSpecification"]["ContainerArguments"] == ["--city", "{city}", "--horizon", "28"]
    assert shared["Environment"] == {"STAGE": "prod", "CITY": "{city}"}
    assert {c["ChannelName"] for c in shared["InputDataConfig"]} == {"train", "validation", "features"}
    assert draft["cities"][1] == {
        "name": "lagos",
        "job": {"ResourceConfig": {"VolumeSizeInGB": 80}, "HyperParameters": {"epochs": "30"}},
    }
    assert_round_trip(spec, jobs, capsys)


def test_without_cities_the_names_give_the_cities_and_every_city_string_becomes_a_template(
    aws_env: SimClient, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Three jobs named demand-<city>-<timestamp>, imported without --cities: the cities are what differs between
    the names, each city-specific string is one ``{city}`` template at the fleet level (lima's ``climate`` stays
    a word of its own), and the spec validates and round-trips as it was drafted."""
    jobs = {city: original(city, 50, "20") for city in ("seoul", "lagos", "lima")}
    spec = tmp_path / "demand.yaml"
    draft, err = import_jobs(aws_env, jobs, spec, capsys)
    assert "cities guessed from the job names: seoul, lagos, lima" in err
    assert "note: the draft needs edits" not in err
    assert [city["name"] for city in draft["cities"]] == ["seoul", "lagos", "lima"]
    assert all(set(city) == {"name"} for city in draft["cities"])  # nothing of a city's own is left
    assert draft["fleet"] == "demand"
    assert draft["output_s3_uri"] == "s3://acme-ml"
    shared = draft["job"]
    assert shared["HyperParameters"]["features"] == "climate,holidays"
    assert shared["Environment"]["CITY"] == "{city}"
    assert shared["AlgorithmSpecification"]["ContainerArguments"][1] == "{city}"
    uris = {c["ChannelName"]: c["DataSource"]["S3DataSource"]["S3Uri"] for c in shared["InputDataConfig"]}
    assert uris == {
        "train": "s3://acme-ml/data/{city}/train/",
        "validation": "s3://acme-ml/data/{city}/validation/",
        "features": "s3://acme-ml/features/holidays/",
    }
    assert {"Key": "city", "Value": "{city}"} in shared["Tags"]
    assert_round_trip(spec, jobs, capsys)


def test_a_request_file_draft_says_todo_for_the_quotas_and_validate_refuses_it(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A request file is read without any AWS call, so the quotas are TODO: the draft says so, ``validate`` exits 2
    naming each field and what to write, and once the numbers are written the city round-trips."""
    path = tmp_path / "request.json"
    path.write_text(json.dumps(original("oslo", 30, "10")))
    spec = tmp_path / "spec.yaml"
    assert main(["import", "--request", str(path), "--cities", "oslo", "--out", str(spec)]) == 0
    err = capsys.readouterr().err
    assert "TODO: quotas[ml.m5.xlarge]: Service Quotas was not read (request files only" in err
    text = spec.read_text()
    assert "# TODO: quotas[ml.m5.xlarge]:" in text
    assert yaml.safe_load(text)["quotas"] == {"ml.m5.xlarge": {"instances": "TODO", "warm_pools": "TODO"}}
    assert main(["validate", str(spec)]) == 2
    refused = capsys.readouterr().err
    assert "quotas[ml.m5.xlarge].instances (line" in refused
    assert (
        "still TODO, a value to write in its place; give the account's quota of concurrent training"
        in refused
    )
    assert "quotas[ml.m5.xlarge].warm_pools (line" in refused
    assert "e.g. `warm_pools: 4`" in refused
    spec.write_text(
        text.replace("instances: TODO", "instances: 20").replace("warm_pools: TODO", "warm_pools: 2")
    )
    assert main(["request", str(spec), "oslo", "--run-key", RUN_KEY]) == 0
    compiled = json.loads(capsys.readouterr().out)
    assert comparable(compiled) == comparable(original("oslo", 30, "10"))


def test_quotas_out_of_reach_are_todo_with_the_reason(
    aws_env: SimClient, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """``--quotas-from-account`` reads the quotas for request files too: from the simulator when it answers, and
    when the endpoint is out of reach the draft is still written, its quotas TODO with why."""
    path = tmp_path / "request.json"
    path.write_text(json.dumps(original("oslo", 30, "10")))
    spec = tmp_path / "spec.yaml"
    argv = ["import", "--request", str(path), "--quotas-from-account", "--out", str(spec), "--force"]
    assert main([*argv, "--endpoint-url", aws_env.url]) == 0
    assert yaml.safe_load(spec.read_text())["quotas"] == {"ml.m5.xlarge": QUOTA}
    capsys.readouterr()
    with socket.socket() as closed:
        closed.bind(("127.0.0.1", 0))
        port = closed.getsockname()[1]
    assert main([*argv, "--endpoint-url", f"http://127.0.0.1:{port}"]) == 0
    err = capsys.readouterr().err
    assert "TODO: quotas[ml.m5.xlarge]: Service Quotas was not read (Service Quotas is out of reach:" in err
    assert yaml.safe_load(spec.read_text())["quotas"]["ml.m5.xlarge"]["instances"] == "TODO"
