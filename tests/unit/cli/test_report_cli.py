"""``report`` on a run without any training job exits with a code of its own and writes nothing: an empty $0.00
report would read like a real run that cost nothing."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

import pytest

from sagemaker_fleet.cli.main import main
from sagemaker_fleet.cli.report import NO_JOBS_EXIT

if TYPE_CHECKING:
    from sagemaker_fleet.cost.report import RunJobIndex

SMALL = str(Path(__file__).resolve().parents[3] / "dags" / "fleets" / "small.yaml")


@pytest.fixture
def no_jobs_found(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """AWS answers, and the run has no job (what ListTrainingJobs gives for a run key nothing ran under)."""
    import sagemaker_fleet.cli.report as report

    runs: list[str] = []

    def describe_run_jobs(reader: object, index: RunJobIndex, workers: int) -> list[object]:
        runs.append(index.run_key)
        return []

    def no_upload(*args: object, **kwargs: object) -> list[str]:
        raise AssertionError("an empty report was uploaded")

    monkeypatch.setattr(report, "describe_run_jobs", describe_run_jobs)
    monkeypatch.setattr(report, "upload_report_files", no_upload)
    monkeypatch.setenv("AWS_ACCESS_KEY_ID", "testing")
    monkeypatch.setenv("AWS_SECRET_ACCESS_KEY", "testing")
    monkeypatch.delenv("AWS_ENDPOINT_URL", raising=False)
    return runs


def test_a_run_without_jobs_exits_with_its_own_code_and_writes_no_report(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], no_jobs_found: list[str]
) -> None:
    out = tmp_path / "reports" / "20261130"
    code = main(
        ["report", SMALL, "--run-key", "20261130", "--out", str(out), "--endpoint-url", "http://127.0.0.1:1"]
    )
    assert no_jobs_found == ["20261130"]  # AWS was read
    assert code == NO_JOBS_EXIT
    assert NO_JOBS_EXIT not in (0, 1, 2)  # distinct from done, a failure outside and bad input
    captured = capsys.readouterr()
    assert "$0.00" not in captured.out
    assert captured.err.startswith(
        "error: no training job of fleet small run 20261130 was found at http://127.0.0.1:1; no report written."
    )
    assert "Check the run key" in captured.err
    assert not out.exists()  # the folder made for the report is not left behind, empty


def test_a_run_without_jobs_leaves_a_folder_that_was_there_alone(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], no_jobs_found: list[str]
) -> None:
    (tmp_path / "mine.txt").write_text("x")
    assert (
        main(["report", SMALL, "--run-key", "20261130", "--out", str(tmp_path), "--no-upload"])
        == NO_JOBS_EXIT
    )
    assert sorted(p.name for p in tmp_path.iterdir()) == ["mine.txt"]
    assert "was found at AWS us-east-1" in capsys.readouterr().err


def test_an_out_folder_name_too_long_for_the_file_system_is_refused_with_a_message(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Found by the CLI fuzz test: a 300-character name raised OSError (File name too long) instead."""
    out = tmp_path / ("x" * 300)
    code = main(["report", SMALL, "--run-key", "20261130", "--out", str(out)])
    assert code == 2
    err = capsys.readouterr().err
    assert err.startswith(f"error: --out {out}: cannot create the folder (File name too long)")
