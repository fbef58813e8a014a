"""`airflow dags test DAG DATE -c CONF` of a scheduled fleet DAG (built without the trigger form): a manual run of
that DAG, which keeps the conf contract every fleet DAG keeps.

The scheduled DAG ignored its conf: ``-c '{"dry_run": true, "cities": ["lima"]}'`` trained and billed the whole
fleet. Here, through real Airflow against the simulator: that dry run succeeds and launches nothing, and a conf with
an unknown key fails the run at its plan task, naming the key, before any job. Each run is a few tasks that end at
once (the simulator is only asked for the account's quotas and a listing): about a minute in all, most of it
Airflow's start-up and ``db migrate``.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from collections.abc import Iterator, Mapping
from pathlib import Path
from types import MappingProxyType

import pytest

from sagemaker_fleet.fleetspec import FleetSpec, load_fleet_spec
from sagemaker_fleet.sim import SimConfig
from sagemaker_fleet.sim.client import SimClient
from sagemaker_fleet.sim.server import ServerSettings, SimulatorServer
from sagemaker_fleet.sim.workload import WorkModel
from sagemaker_fleet.testing.component_env import aws_connection_json

pytestmark = [pytest.mark.e2e, pytest.mark.xdist_group("dags-test-conf")]

DAGS = Path(__file__).resolve().parent / "dags_test_conf"
DAG_ID = "confdaily_fleet"
#: A hang guard, not a measure.
RUN_TIMEOUT = 300.0


def airflow_executable() -> str:
    """This virtualenv's ``airflow``, or the one ``SAGEMAKER_FLEET_DAGS_TEST_AIRFLOW`` names (as test_dags_test)."""
    named = os.environ.get("SAGEMAKER_FLEET_DAGS_TEST_AIRFLOW")
    return named or str(Path(sys.executable).parent / "airflow")


@pytest.fixture(scope="module")
def spec() -> FleetSpec:
    return load_fleet_spec(DAGS / "fleets" / "confdaily.yaml")


@pytest.fixture(scope="module")
def sim_url(spec: FleetSpec) -> Iterator[str]:
    config = SimConfig(seed=3, work=WorkModel.from_fleets([spec]), quotas=MappingProxyType(dict(spec.quotas)))
    with SimulatorServer(ServerSettings(speed=40.0, config=config)) as server:
        SimClient(server.url).boto3_client("s3").create_bucket(Bucket="sagemaker-fleet-confdaily")
        yield server.url


@pytest.fixture(scope="module")
def airflow_env(sim_url: str, tmp_path_factory: pytest.TempPathFactory) -> Mapping[str, str]:
    home = tmp_path_factory.mktemp("dags-test-conf-home")
    env = {
        **{k: v for k, v in os.environ.items() if not k.startswith("AIRFLOW")},
        "AIRFLOW_HOME": str(home),
        "AIRFLOW__CORE__DAGS_FOLDER": str(DAGS),
        "AIRFLOW__CORE__LOAD_EXAMPLES": "False",
        "AIRFLOW__SAGEMAKER_FLEET__REPORT_DIR": str(home / "reports"),
        "AIRFLOW_CONN_AWS_DEFAULT": aws_connection_json(sim_url),
        "PYTHONUNBUFFERED": "1",
    }
    for command in (
        ["db", "migrate"],
        ["dags", "reserialize"],
    ):  # 3.0's dags test needs the DAG's assets known
        done = subprocess.run(
            [airflow_executable(), *command], env=env, capture_output=True, text=True, timeout=300
        )
        assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    return MappingProxyType(env)


def dags_test(env: Mapping[str, str], date: str, conf: dict) -> subprocess.CompletedProcess[str]:
    started = time.monotonic()
    done = subprocess.run(
        [airflow_executable(), "dags", "test", DAG_ID, date, "-c", json.dumps(conf)],
        env=dict(env),
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        timeout=RUN_TIMEOUT,
    )
    print(f"airflow dags test {DAG_ID} {date} -c {json.dumps(conf)}: {time.monotonic() - started:.0f} s")
    (Path(env["AIRFLOW_HOME"]) / f"dags-test-{date}.log").write_text(done.stdout)
    return done


def run_state(output: str, date: str) -> str:
    """How Airflow marked the run of ``date`` (its ``Marking run <DagRun …> successful`` line), or its line."""
    marked = f"Marking run <DagRun {DAG_ID} @ {date}"
    assert marked in output, output[-3000:]
    line = output.split(marked, 1)[1].split("\n", 1)[0]
    return next((state for state in ("successful", "failed") if f"> {state}" in line), line)


def jobs(sim_url: str) -> list[str]:
    return [job["name"] for job in SimClient(sim_url).state()["jobs"]]


def test_a_dry_run_of_one_city_launches_nothing(airflow_env: Mapping[str, str], sim_url: str) -> None:
    """docs/guides/aws.md's first-run conf, given to the scheduled DAG: the plan of one city and its expected cost
    in the log, every training task skipped, no job."""
    done = dags_test(airflow_env, "2026-12-04", {"dry_run": True, "cities": ["lima"]})
    assert done.returncode == 0, done.stdout[-5000:]
    assert jobs(sim_url) == []
    assert run_state(done.stdout, "2026-12-04") == "successful"
    assert "run note: - Dry run, nothing launched: expected cost $" in done.stdout
    assert "run note: - Asked: 1 of 3 cities (lima)" in done.stdout
    assert "dry run: nothing launched" in done.stdout


def test_an_unknown_key_fails_the_run_naming_it_before_any_job(
    airflow_env: Mapping[str, str], sim_url: str
) -> None:
    done = dags_test(airflow_env, "2026-12-05", {"citys": ["lima"], "dry_run": False})
    assert jobs(sim_url) == []
    assert "params.citys: unknown key; did you mean `cities`?" in done.stdout, done.stdout[-5000:]
    # the plan task fails without retries, the run fails, nothing downstream trains
    assert "RefusedParamsError: refused: params.citys" in done.stdout
    assert run_state(done.stdout, "2026-12-05") == "failed"
    assert ": created confdaily-" not in done.stdout
