"""Flags of every command that cannot be honoured are refused with exit 2 and the flag named, before any work."""

from __future__ import annotations

import json
import socket
import threading
from pathlib import Path

import pytest

from sagemaker_fleet.cli.main import main

FLEETS = Path(__file__).resolve().parents[3] / "dags" / "fleets"
SMALL = str(FLEETS / "small.yaml")


@pytest.fixture(autouse=True)
def _never_serve_for_ever(monkeypatch: pytest.MonkeyPatch) -> None:
    """Should a refused flag be accepted again, ``sim serve`` starts and stops: the test fails, it does not hang."""
    import sagemaker_fleet.cli.sim as sim

    monkeypatch.setattr(sim, "serve_until_stopped", lambda server, settings, stopped=None: server.stop())
    monkeypatch.setattr(sim, "stop_on_signals", threading.Event)


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["sim", "serve", "--port", "99999"], "argument --port: '99999': a TCP port is 0-65535"),
        (["sim", "serve", "--port", "-1"], "a TCP port is 0-65535"),
        (["sim", "serve", "--speed", "nan"], "argument --speed: 'nan': write a finite number"),
        (["sim", "serve", "--speed", "0"], "must be > 0"),
        (["sim", "serve", "--throttle", "inf"], "write a finite number"),
        (["sim", "serve", "--spot-interruptions-per-hour", "-2"], "must be ≥ 0"),
        (["sim", "serve", "--quota", "ml.m5.xlarge=1000001:0"], "counts 0-100000"),
        (["sim", "serve", "--quota", "m5=1:0"], "TYPE=INSTANCES:WARM_POOLS"),
        (
            ["simulate", SMALL, "--throttle-share", "nan"],
            "argument --throttle-share: 'nan': write a finite number",
        ),
        (["report", SMALL, "--run-key", "20261129", "--describe-workers", "0"], "use 1-64"),
        (
            ["report", SMALL, "--run-key", "20261129", "--endpoint-url", "localhost:4566"],
            "write an http(s) URL",
        ),
        (["report", SMALL, "--run-key", "20261129", "--endpoint-url", "http://x:99999"], "the port must be"),
        (["plan", SMALL, "--format", "yaml"], "invalid choice: 'yaml'"),
        (["sim", "serve", "--account-id", "12345"], "an AWS account id is 12 digits"),
        (["sim", "serve", "--provision"], "--provision creates what the --fleet specs name; give the fleets"),
        (["sim", "serve", "--provision", "--fleet", SMALL, "--no-moto"], "it needs moto: drop --no-moto"),
        (["preflight", SMALL, "--endpoint-url", "localhost:4566"], "write an http(s) URL"),
    ],
)
def test_impossible_flag_exits_2_naming_it(
    argv: list[str], message: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(argv) == 2
    assert message in capsys.readouterr().err


def test_sim_serve_refuses_a_taken_port(capsys: pytest.CaptureFixture[str]) -> None:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        assert main(["sim", "serve", "--no-moto", "--port", str(port)]) == 2
    err = capsys.readouterr().err
    assert f"--port {port}: the port is in use by another program" in err
    assert "http://" not in err  # never served


def test_sim_serve_refuses_an_unknown_host(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["sim", "serve", "--no-moto", "--host", "bad host"]) == 2
    assert "--host bad host" in capsys.readouterr().err


def test_report_refuses_an_output_folder_it_cannot_write_before_calling_aws(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    import sagemaker_fleet.cli.report as report

    def no_aws(*args: object, **kwargs: object) -> list[object]:
        raise AssertionError("AWS was called")

    monkeypatch.setattr(report, "describe_run_jobs", no_aws)
    blocker = tmp_path / "a-file"
    blocker.write_text("x")
    assert main(["report", SMALL, "--run-key", "20261129", "--out", str(blocker / "below")]) == 2
    assert f"--out {blocker / 'below'}: cannot create the folder" in capsys.readouterr().err


@pytest.mark.parametrize("command", ["plan", "simulate"])
def test_history_of_the_wrong_shape_exits_2_with_its_paths(
    command: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    history = tmp_path / "h.json"
    history.write_text(json.dumps({"fleet": "small", "jobs": [{"city": 7, "status": "Failed"}]}))
    assert main([command, SMALL, "--history", str(history)]) == 2
    err = capsys.readouterr().err
    assert f"--history: {history}: 1 error(s) in the history file:" in err
    assert "jobs[0].city: expected the city's name as text, got 7" in err


def test_history_of_another_fleet_exits_2(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    history = tmp_path / "h.json"
    history.write_text(json.dumps({"fleet": "citydemand", "jobs": []}))
    assert main(["plan", SMALL, "--history", str(history)]) == 2
    assert "this is the report of fleet 'citydemand', not of fleet 'small'" in capsys.readouterr().err
