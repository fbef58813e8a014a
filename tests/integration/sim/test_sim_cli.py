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
