"""``sagemaker-fleet --version`` answers with the installed distribution's version, and ``sim serve`` without the
``sim`` extra (what an Airflow deployment installs) says in one line which extra to install, exit 2, no traceback."""

from __future__ import annotations

import importlib.metadata
import sys
import threading

import pytest

import sagemaker_fleet
import sagemaker_fleet.cli.sim as sim
from sagemaker_fleet.cli.main import installed_version, main

HINT = "pip install 'airflow-provider-sagemaker-fleet[sim]'"


@pytest.fixture(autouse=True)
def _never_serve_for_ever(monkeypatch: pytest.MonkeyPatch) -> None:
    """Should the check let a command through, ``sim serve`` starts and stops: the test fails, it does not hang."""
    monkeypatch.setattr(sim, "serve_until_stopped", lambda server, settings, stopped=None: server.stop())
    monkeypatch.setattr(sim, "stop_on_signals", threading.Event)


def test_version_is_the_installed_distributions(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["--version"]) == 0
    expected = importlib.metadata.version("airflow-provider-sagemaker-fleet")
    assert capsys.readouterr().out == f"sagemaker-fleet {expected}\n"
    assert expected == sagemaker_fleet.__version__


def test_version_from_a_source_tree_never_installed(monkeypatch: pytest.MonkeyPatch) -> None:
    def not_installed(name: str) -> str:
        raise importlib.metadata.PackageNotFoundError(name)

    monkeypatch.setattr(importlib.metadata, "version", not_installed)
    assert installed_version() == sagemaker_fleet.__version__


def _one_line_error(capsys: pytest.CaptureFixture[str]) -> str:
    captured = capsys.readouterr()
    assert captured.out == ""
    lines = captured.err.splitlines()
    assert len(lines) == 1, captured.err
    assert "Traceback" not in captured.err
    return lines[0]


def test_sim_serve_without_moto_names_the_extra(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setitem(sys.modules, "moto", None)  # `import moto` fails, find_spec finds nothing
    assert main(["sim", "serve", "--port", "0"]) == 2
    line = _one_line_error(capsys)
    assert "'sagemaker-fleet sim serve' needs the 'sim' extra" in line
    assert "'moto'" in line
    assert line.endswith(HINT)


def test_sim_serve_no_moto_still_needs_the_web_server(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setitem(sys.modules, "werkzeug", None)
    assert main(["sim", "serve", "--no-moto"]) == 2
    line = _one_line_error(capsys)
    assert "'werkzeug'" in line
    assert line.endswith(HINT)


def test_a_broken_extra_found_while_starting_is_the_same_one_line(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """moto found, but a module of its server missing when the endpoint starts (a partial install)."""

    def start(args: object) -> int:
        raise ModuleNotFoundError("No module named 'flask_cors'", name="flask_cors")

    monkeypatch.setattr(sim, "_serve", start)
    assert main(["sim", "serve"]) == 2
    line = _one_line_error(capsys)
    assert "'flask_cors'" in line
    assert line.endswith(HINT)


def test_an_unrelated_import_error_is_not_blamed_on_the_extra(monkeypatch: pytest.MonkeyPatch) -> None:
    def start(args: object) -> int:
        raise ModuleNotFoundError("No module named 'yaml'", name="yaml")

    monkeypatch.setattr(sim, "_serve", start)
    with pytest.raises(ModuleNotFoundError, match="yaml"):
        main(["sim", "serve"])


def test_flag_errors_come_before_the_extra_check(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """A refused flag is said as before, with or without the extra."""
    monkeypatch.setitem(sys.modules, "moto", None)
    assert main(["sim", "serve", "--provision"]) == 2
    assert "--provision creates what the --fleet specs name" in _one_line_error(capsys)
