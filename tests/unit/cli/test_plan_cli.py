"""``sagemaker-fleet plan`` (docs/formats.md, plan JSON): plan JSON or a table, exit 2 with the errors on stderr."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from pathlib import Path

import pytest

from sagemaker_fleet.cli.main import main

JOB_FIELDS = {
    "city",
    "job_name",
    "group",
    "lane",
    "position",
    "spot",
    "warm_pool",
    "start",
    "keep_alive_seconds",
    "expected_seconds",
    "planned_start_seconds",
    "planned_end_seconds",
}


@pytest.fixture
def small(fleets_dir: Path) -> str:
    return str(fleets_dir / "small.yaml")


def test_json_plan_of_the_small_fleet(small: str, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["plan", small, "--run-key", "20261129", "--format", "json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["fleet"] == "small"
    assert data["run_key"] == "20261129"
    assert {job["city"] for job in data["jobs"]} == {
        "seoul", "tokyo", "lagos", "lima", "oslo", "quito", "tehran", "cairo", "perth", "dakar", "hanoi", "accra",
    }  # fmt: skip
    assert all(set(job) == JOB_FIELDS | {"image_change"} for job in data["jobs"])  # fields are only added
    assert data["jobs"][0]["job_name"].endswith("-20261129")
    assert data["summary"]["jobs"] == 12
    assert data["summary"]["makespan_lower_bound_seconds"] <= data["summary"]["planned_makespan_seconds"]


def test_json_is_the_default_and_the_run_key_defaults_to_todays_utc_date(
    small: str, capsys: pytest.CaptureFixture[str]
) -> None:
    before = datetime.now(UTC).strftime("%Y%m%d")
    assert main(["plan", small]) == 0
    after = datetime.now(UTC).strftime("%Y%m%d")
    data = json.loads(capsys.readouterr().out)
    assert data["run_key"] in {before, after}


def test_table_format(small: str, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["plan", small, "--run-key", "20261129", "--format", "table"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("Plan of fleet small, run 20261129")
    assert "Groups" in out
    assert "Lanes" in out
    assert "lower bound" in out


def test_history_changes_the_expected_seconds(
    small: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    report = tmp_path / "report.json"
    report.write_text(
        json.dumps(
            {"fleet": "small", "jobs": [{"city": "seoul", "status": "Completed", "training_seconds": 4321}]}
        )
    )
    assert main(["plan", small, "--run-key", "20261129", "--history", str(report)]) == 0
    data = json.loads(capsys.readouterr().out)
    assert next(job for job in data["jobs"] if job["city"] == "seoul")["expected_seconds"] == 4321


def test_bad_spec_exits_2_with_every_error_on_stderr(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    spec = tmp_path / "bad.yaml"
    spec.write_text("fleet: Bad_Name\nregion: us-east-1\ncities: []\n")
    assert main(["plan", str(spec)]) == 2
    captured = capsys.readouterr()
    assert captured.out == ""
    assert "fleet" in captured.err
    assert "role_arn" in captured.err


@pytest.mark.parametrize("run_key", ["2026-11-29", "r2", "UPPER"])
def test_bad_run_key_exits_2(small: str, run_key: str, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["plan", small, "--run-key", run_key]) == 2
    captured = capsys.readouterr()
    assert captured.out == ""
    assert "run key" in captured.err


def test_unreadable_history_exits_2(small: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["plan", small, "--history", str(tmp_path / "missing.json")]) == 2
    assert "cannot read the history file" in capsys.readouterr().err


def test_quota_too_small_for_a_job_exits_2(
    tmp_path: Path, small: str, capsys: pytest.CaptureFixture[str]
) -> None:
    text = (
        Path(small)
        .read_text()
        .replace(
            "ml.m5.2xlarge: {instances: 2, warm_pools: 1}", "ml.m5.2xlarge: {instances: 1, warm_pools: 1}"
        )
    )
    text = text.replace("  - name: tehran\n", "  - name: tehran\n    instance_count: 2\n")
    spec = tmp_path / "tight.yaml"
    spec.write_text(text)
    assert main(["plan", str(spec)]) == 2
    assert "instance_count 2 is over quotas[ml.m5.2xlarge].instances 1" in capsys.readouterr().err


def test_plan_warnings_go_to_stderr(tmp_path: Path, small: str, capsys: pytest.CaptureFixture[str]) -> None:
    text = (
        Path(small)
        .read_text()
        .replace(
            "ml.m5.2xlarge: {instances: 2, warm_pools: 1}", "ml.m5.2xlarge: {instances: 2, warm_pools: 0}"
        )
    )
    spec = tmp_path / "nopools.yaml"
    spec.write_text(text)
    assert main(["plan", str(spec), "--run-key", "20261129"]) == 0
    captured = capsys.readouterr()
    assert "warning: ml.m5.2xlarge has no warm-pool quota" in captured.err
    assert json.loads(captured.out)["warnings"]
