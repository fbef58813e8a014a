"""From jobs you already run to a green ``airflow dags test``, with the spec ``sagemaker-fleet import`` drafts left
as it is (docs/guides/bring-your-job.md).

Three per-city jobs are created with boto3 against the simulator, named as the SageMaker SDK names them
(``demand-<city>-<timestamp>``), each with its city in its data URIs, arguments, environment and a tag, its model
under ``s3://acme-ml/models/<city>/``. ``import`` without ``--cities`` drafts the spec (cities from the names,
``{city}`` templates, ``output_s3_uri``, the quotas from the simulator's Service Quotas), ``validate`` accepts it,
and a two-line DAG file over it runs green in ``airflow dags test``: every city trained once, its request the
template filled for the city, its model where its original job wrote.

Small on purpose: three cities, the simulator at speed 100, one-second sweeps.
"""

from __future__ import annotations

import os
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path
from types import MappingProxyType
from typing import Any

import pytest
import yaml

from e2e.airflow_cli import airflow_executable, airflow_version
from sagemaker_fleet.cli.main import main
from sagemaker_fleet.fleetspec import InstanceQuota
from sagemaker_fleet.sim import SimConfig, SpotMarketConfig
from sagemaker_fleet.sim.client import SimClient
from sagemaker_fleet.sim.server import ServerSettings, SimulatorServer
from sagemaker_fleet.sim.workload import WorkModel
from sagemaker_fleet.testing.component_env import aws_connection_json

pytestmark = [pytest.mark.e2e, pytest.mark.xdist_group("import-round-trip")]

SPEED = 100.0
CITIES = ("oslo", "caen", "lima")
BUCKET = "acme-ml"
ROLE = "arn:aws:iam::111122223333:role/FleetTraining"
IMAGE = "111122223333.dkr.ecr.us-east-1.amazonaws.com/demand:2.1"
#: The account's quotas the simulator lists in Service Quotas: the draft must carry them.
QUOTA = InstanceQuota(instances=3, warm_pools=3)
DAG_ID = "imported_fleet"
LOGICAL_DATE = "2026-12-04"
#: A hang guard, not a measure.
RUN_TIMEOUT = 420.0
#: The user's DAG file: the docstring carries the words Airflow's safe mode looks for (docs/installation.md).
DAG_FILE = """\
\"\"\"Airflow DAG over the fleet spec `sagemaker-fleet import` drafted.\"\"\"
from sagemaker_fleet.dags import DispatchConfig, build_fleet_dag

dag = build_fleet_dag({spec!r}, dag_id={dag_id!r}, schedule=None, dispatch=DispatchConfig(poll_interval=1.0))
"""


def original(city: str, minute: int) -> dict[str, Any]:
    """A city's job as a team starts it today: the SDK's name, the city in every string that is the city's."""
    return {
        "TrainingJobName": f"demand-{city}-2026-11-28-02-{minute:02d}-17-{minute * 7:03d}",
        "RoleArn": ROLE,
        "AlgorithmSpecification": {
            "TrainingImage": IMAGE,
            "TrainingInputMode": "File",
            "ContainerArguments": ["--city", city, "--horizon", "28"],
        },
        "InputDataConfig": [
            _channel("train", f"s3://{BUCKET}/data/{city}/train/"),
            _channel("validation", f"s3://{BUCKET}/data/{city}/validation/"),
        ],
        "OutputDataConfig": {"S3OutputPath": f"s3://{BUCKET}/models/{city}/"},
        "CheckpointConfig": {"S3Uri": f"s3://{BUCKET}/checkpoints/{city}/"},
        "ResourceConfig": {
            "InstanceType": "ml.m5.xlarge",
            "InstanceCount": 1,
            "VolumeSizeInGB": 30,
            "KeepAlivePeriodInSeconds": 60,
        },
        "StoppingCondition": {"MaxRuntimeInSeconds": 3600},
        "HyperParameters": {"epochs": "10", "features": "climate,holidays"},
        "Environment": {"CITY": city},
        "Tags": [{"Key": "city", "Value": city}, {"Key": "team", "Value": "forecasting"}],
    }


def _channel(name: str, uri: str) -> dict[str, Any]:
    return {"ChannelName": name, "DataSource": {"S3DataSource": {"S3DataType": "S3Prefix", "S3Uri": uri}}}


@pytest.fixture(scope="module")
def sim() -> Iterator[SimClient]:
    config = SimConfig(
        seed=3,
        work=WorkModel(default_seconds=240.0),
        quotas=MappingProxyType({"ml.m5.xlarge": QUOTA}),
        spot=SpotMarketConfig(interruptions_per_hour=0.0, capacity_wait_mean_seconds=0.0),
    )
    with SimulatorServer(ServerSettings(speed=SPEED, config=config)) as server:
        client = SimClient(server.url)
        s3 = client.boto3_client("s3")
        s3.create_bucket(Bucket=BUCKET)
        for city in CITIES:
            for channel in ("train", "validation"):
                s3.put_object(Bucket=BUCKET, Key=f"data/{city}/{channel}/part-0.csv", Body=b"1\n")
        yield client


@pytest.fixture(scope="module")
def originals(sim: SimClient) -> list[dict[str, Any]]:
    """The three jobs, created with boto3 and run to their end (their pools too)."""
    sagemaker = sim.boto3_client("sagemaker")
    made = [original(city, minute) for minute, city in enumerate(CITIES)]
    for request in made:
        sagemaker.create_training_job(**request)
    for _ in range(100):
        statuses = [
            sagemaker.describe_training_job(TrainingJobName=r["TrainingJobName"])["TrainingJobStatus"]
            for r in made
        ]
        if set(statuses) == {"Completed"}:
            break
        sim.advance(300)
    assert set(statuses) == {"Completed"}, statuses
    sim.advance(600)  # past their 60 s keep-alive
    return made


@pytest.fixture(scope="module")
def imported(
    sim: SimClient,
    originals: list[dict[str, Any]],
    tmp_path_factory: pytest.TempPathFactory,
    monkeypatch_module: pytest.MonkeyPatch,
) -> Path:
    """The spec ``import`` drafts from the three jobs, without --cities, written as it is."""
    for name, value in (
        ("AWS_ACCESS_KEY_ID", "testing"),
        ("AWS_SECRET_ACCESS_KEY", "testing"),
        ("AWS_DEFAULT_REGION", "us-east-1"),
    ):
        monkeypatch_module.setenv(name, value)
    spec = tmp_path_factory.mktemp("import-round-trip") / "demand.yaml"
    names = [request["TrainingJobName"] for request in originals]
    assert main(["import", *names, "--endpoint-url", sim.url, "--out", str(spec)]) == 0
    return spec


@pytest.fixture(scope="module")
def monkeypatch_module() -> Iterator[pytest.MonkeyPatch]:
    with pytest.MonkeyPatch.context() as patch:
        yield patch


def test_the_draft_validates_as_it_is(imported: Path, capsys: pytest.CaptureFixture[str]) -> None:
    draft = yaml.safe_load(imported.read_text())
    assert [city["name"] for city in draft["cities"]] == list(CITIES)
    assert draft["output_s3_uri"] == f"s3://{BUCKET}"
    assert draft["quotas"] == {"ml.m5.xlarge": {"instances": QUOTA.instances, "warm_pools": QUOTA.warm_pools}}
    assert draft["job"]["Environment"] == {"CITY": "{city}"}
    assert main(["validate", str(imported)]) == 0, capsys.readouterr().err


@pytest.fixture(scope="module")
def dags_test(
    sim: SimClient, imported: Path, tmp_path_factory: pytest.TempPathFactory
) -> tuple[int, str, float]:
    """``airflow dags test`` of a DAG file over the draft, in a throw-away Airflow home: exit code, output, wall
    seconds."""
    home = tmp_path_factory.mktemp("import-round-trip-home")
    dags = home / "dags"
    dags.mkdir()
    (dags / "imported_fleet.py").write_text(DAG_FILE.format(spec=str(imported), dag_id=DAG_ID))
    env = {
        **{k: v for k, v in os.environ.items() if not k.startswith("AIRFLOW")},
        "AIRFLOW_HOME": str(home),
        "AIRFLOW__CORE__DAGS_FOLDER": str(dags),
        "AIRFLOW__CORE__LOAD_EXAMPLES": "False",
        "AIRFLOW__SAGEMAKER_FLEET__REPORT_DIR": str(home / "reports"),
        "AIRFLOW_CONN_AWS_DEFAULT": aws_connection_json(sim.url),
        "PYTHONUNBUFFERED": "1",
    }
    steps = [["db", "migrate"]]
    if airflow_version(env) < (
        3,
        1,
    ):  # 3.0's dags test does not register the DAG's assets (docs/installation.md)
        steps.append(["dags", "reserialize"])
    for step in steps:
        done = subprocess.run(
            [airflow_executable(), *step], env=env, capture_output=True, text=True, timeout=300
        )
        assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    started = time.monotonic()
    run = subprocess.run(
        [airflow_executable(), "dags", "test", DAG_ID, LOGICAL_DATE],
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        timeout=RUN_TIMEOUT,
    )
    (home / "dags-test.log").write_text(run.stdout)
    return run.returncode, run.stdout, time.monotonic() - started


def test_the_draft_runs_green_in_airflow_dags_test(
    dags_test: tuple[int, str, float], sim: SimClient, originals: list[dict[str, Any]]
) -> None:
    returncode, output, seconds = dags_test
    assert returncode == 0, output[-5000:]
    ours = {request["TrainingJobName"] for request in originals}
    fleet_jobs = [job for job in sim.state()["jobs"] if job["name"] not in ours]
    # a manual run's key (`dags test` makes one): the same for the three cities, one job each, all Completed
    run_key = fleet_jobs[0]["name"].rsplit("-", 1)[-1]
    assert sorted((job["name"], job["status"]) for job in fleet_jobs) == sorted(
        (f"demand-{city}-{run_key}", "Completed") for city in CITIES
    )
    print(f"airflow dags test of the imported fleet ({len(CITIES)} cities): {seconds:.0f} s")
    sagemaker = sim.boto3_client("sagemaker")
    for city, request in zip(CITIES, originals, strict=True):
        sent = sagemaker.describe_training_job(TrainingJobName=f"demand-{city}-{run_key}")
        # the model goes where the original job's went, under the run's key: models/<city>/, not models/models/
        assert sent["OutputDataConfig"]["S3OutputPath"] == f"s3://{BUCKET}/models/{city}/{run_key}/"
        assert sent["Environment"] == request["Environment"]
        assert sent["HyperParameters"] == request["HyperParameters"]
        assert sent["AlgorithmSpecification"]["ContainerArguments"] == ["--city", city, "--horizon", "28"]
        channels = {
            c["ChannelName"]: c["DataSource"]["S3DataSource"]["S3Uri"] for c in sent["InputDataConfig"]
        }
        assert channels == {
            c["ChannelName"]: c["DataSource"]["S3DataSource"]["S3Uri"] for c in request["InputDataConfig"]
        }
        tags = {t["Key"]: t["Value"] for t in sagemaker.list_tags(ResourceArn=sent["TrainingJobArn"])["Tags"]}
        assert (tags["city"], tags["team"], tags["sagemaker-fleet:city"]) == (city, "forecasting", city)
