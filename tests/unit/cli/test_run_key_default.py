"""One default run key for every command: today's date in UTC, the key of today's run of a daily DAG. ``plan`` and
``simulate`` of the same fleet without ``--run-key`` name the very same jobs."""

from __future__ import annotations

import datetime as dt
import json
from pathlib import Path
from typing import TYPE_CHECKING

from sagemaker_fleet.cli.main import build_parser, main
from sagemaker_fleet.fleetspec.names import run_key_for, today_run_key

if TYPE_CHECKING:
    import pytest

SMALL = str(Path(__file__).resolve().parents[3] / "dags" / "fleets" / "small.yaml")


def test_today_is_the_utc_date_whatever_the_time_zone() -> None:
    lima = dt.timezone(dt.timedelta(hours=-5))
    assert today_run_key(dt.datetime(2026, 11, 29, 21, 30, tzinfo=lima)) == "20261130"  # 02:30 UTC next day
    tokyo = dt.timezone(dt.timedelta(hours=9))
    assert today_run_key(dt.datetime(2026, 11, 30, 8, 59, tzinfo=tokyo)) == "20261129"
    # the key a scheduled daily run of that day gets
    midnight = dt.datetime(2026, 11, 29, tzinfo=dt.UTC)
    assert today_run_key(midnight.replace(hour=23)) == run_key_for(
        midnight, "scheduled__x", "scheduled", dag_id="d"
    )


def test_plan_and_simulate_default_to_the_same_key_todays(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["plan", SMALL, "--format", "json"]) == 0
    planned = json.loads(capsys.readouterr().out)
    assert main(["simulate", SMALL, "--json"]) == 0
    simulated = json.loads(capsys.readouterr().out)
    today = dt.datetime.now(dt.UTC).strftime("%Y%m%d")
    assert planned["run_key"] == simulated["run_key"] == today
    assert all(job["job_name"].endswith(f"-{today}") for job in planned["jobs"])


def test_every_run_key_flag_says_the_same_default() -> None:
    parser = build_parser()
    commands = parser._subparsers._group_actions[0].choices  # type: ignore[union-attr]
    helps = {
        name: action.help
        for name, command in commands.items()
        for action in command._actions
        if "--run-key" in action.option_strings and not action.required
    }
    # report names its run: no default there; a pilot's key is new every minute (its names must not exist yet)
    assert set(helps) - {"pilot"} == {"plan", "simulate", "request"}
    assert len({help for name, help in helps.items() if name != "pilot"}) == 1
    assert "p and the UTC minute" in helps["pilot"]
    assert "today's date in UTC" in helps["plan"]


def test_an_empty_run_key_is_refused_not_taken_for_today(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["plan", SMALL, "--run-key", ""]) == 2
    assert "run key '' is invalid" in capsys.readouterr().err
