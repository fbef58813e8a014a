"""``sagemaker-fleet sim serve`` as a user runs it: URL on the first line, serves, stops on SIGTERM."""

from __future__ import annotations

import json
import signal
import subprocess
import sys
import urllib.request
from pathlib import Path

import pytest
from botocore.exceptions import ClientError

from sagemaker_fleet.sim.client import SimClient
from sim_fixtures import make_request

pytestmark = pytest.mark.integration


def test_sim_serve_prints_its_url_serves_and_stops(fleets_dir: Path) -> None:
    command = [
        sys.executable, "-m", "sagemaker_fleet.cli.main", "sim", "serve",
        "--speed", "100", "--seed", "3", "--fleet", str(fleets_dir / "small.yaml"),
        "--quota", "ml.m5.xlarge=4:2:1", "--throttle", "0",
    ]  # fmt: skip
    process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        assert process.stdout is not None
        url = process.stdout.readline().strip()
        assert url.startswith("http://127.0.0.1:")
        state = SimClient(url).state()
        assert state["clock"]["speed"] == 100
        assert state["config"]["seed"] == 3
        assert state["config"]["quotas"]["ml.m5.xlarge"] == {
            "instances": 4,
            "warm_pools": 2,
            "spot_instances": 1,
        }
        assert state["config"]["quotas"]["ml.m5.2xlarge"] == {
            "instances": 2,
            "warm_pools": 1,
            "spot_instances": None,
        }
        with urllib.request.urlopen(f"{url}/_sim/calls", timeout=5) as response:
            assert json.loads(response.read())["calls"] == {}
    finally:
        process.send_signal(signal.SIGTERM)
        assert process.wait(timeout=15) == 0


def test_sim_serve_can_refuse_keep_alive_changes_of_running_jobs() -> None:
    command = [sys.executable, "-m", "sagemaker_fleet.cli.main", "sim", "serve", "--no-moto"]
    process = subprocess.Popen(
        [*command, "--refuse-keep-alive-while-running"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        assert process.stdout is not None
        sim = SimClient(process.stdout.readline().strip())
        assert sim.state()["config"]["refuse_keep_alive_while_running"] is True
        sm = sim.boto3_client("sagemaker")
        sm.create_training_job(**make_request("running", keep_alive=600))
        with pytest.raises(ClientError) as caught:
            sm.update_training_job(TrainingJobName="running", ResourceConfig={"KeepAlivePeriodInSeconds": 0})
        assert caught.value.response["Error"]["Code"] == "ValidationException"
    finally:
        process.send_signal(signal.SIGTERM)
        assert process.wait(timeout=15) == 0


def test_sim_serve_rejects_a_bad_quota() -> None:
    result = subprocess.run(
        [sys.executable, "-m", "sagemaker_fleet.cli.main", "sim", "serve", "--quota", "ml.m5.xlarge=lots"],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert result.returncode == 2
    assert "TYPE=INSTANCES:WARM_POOLS[:SPOT]" in result.stderr


def test_sim_serve_stopped_as_soon_as_its_url_is_read_exits_cleanly() -> None:
    """SIGTERM is handled from the moment the URL is printed: a caller that stops the server at once (under load,
    before its main thread had printed its warnings) got exit -15 when the handler came after the URL."""
    command = [sys.executable, "-m", "sagemaker_fleet.cli.main", "sim", "serve", "--no-moto"]
    process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    try:
        assert process.stdout is not None
        assert process.stdout.readline().startswith("http://127.0.0.1:")
    finally:
        process.send_signal(signal.SIGTERM)
        assert process.wait(timeout=15) == 0


def _serve(*args: str) -> tuple[subprocess.Popen[str], str]:
    command = [sys.executable, "-m", "sagemaker_fleet.cli.main", "sim", "serve", "--port", "0", *args]
    process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    assert process.stdout is not None
    return process, process.stdout.readline().strip()


def _env(*args: str) -> subprocess.CompletedProcess[str]:
    command = [sys.executable, "-m", "sagemaker_fleet.cli.main", "sim", "env", *args]
    return subprocess.run(command, capture_output=True, text=True, timeout=60)


def test_sim_serve_with_a_fleet_makes_what_it_names_and_sim_env_points_airflow_at_it(
    fleets_dir: Path,
) -> None:
    """The first run in one's own Airflow: ``sim serve --fleet`` creates the fleet's buckets and data (a cost report
    and the sharing board need the bucket: without it every city warned and the report task failed), and
    ``sim env`` prints the connection in the fleet's own region, for ``eval``."""
    import shlex

    fleet = str(fleets_dir / "small.yaml")
    process, url = _serve("--fleet", fleet)
    try:
        port = url.rsplit(":", 1)[1]
        done = _env("--port", port, "--fleet", fleet)
        assert done.returncode == 0, done.stderr
        exported = dict(
            shlex.split(line.removeprefix("export "))[0].split("=", 1) for line in done.stdout.splitlines()
        )
        connection = json.loads(exported["AIRFLOW_CONN_AWS_DEFAULT"])
        assert connection["extra"] == {"endpoint_url": f"http://127.0.0.1:{port}", "region_name": "us-east-1"}
        assert exported["AWS_ENDPOINT_URL"] == url
        assert exported["AWS_DEFAULT_REGION"] == "us-east-1"
        buckets = {b["Name"] for b in SimClient(url).boto3_client("s3").list_buckets()["Buckets"]}
        assert "acme-ml" in buckets  # small.yaml's output bucket
    finally:
        process.send_signal(signal.SIGTERM)
        assert process.wait(timeout=15) == 0
    process, url = _serve("--fleet", fleet, "--no-provision")
    try:
        assert SimClient(url).boto3_client("s3").list_buckets()["Buckets"] == []
    finally:
        process.send_signal(signal.SIGTERM)
        assert process.wait(timeout=15) == 0


def test_sim_env_refuses_two_regions_and_says_when_nothing_answers(fleets_dir: Path, tmp_path: Path) -> None:
    small = fleets_dir / "small.yaml"
    paris = tmp_path / "paris.yaml"
    paris.write_text(small.read_text().replace("region: us-east-1", "region: eu-west-3"))
    two = _env("--port", "1", "--fleet", str(small), "--fleet", str(paris), "--wait", "0.1")
    assert two.returncode == 2
    assert "['eu-west-3', 'us-east-1']" in two.stderr
    nobody = _env("--port", "1", "--fleet", str(paris), "--wait", "0.5")
    assert nobody.returncode == 1
    assert "nothing answers at http://127.0.0.1:1 after 0.5 s; start it first" in nobody.stderr
