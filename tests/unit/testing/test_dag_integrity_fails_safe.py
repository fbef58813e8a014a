"""The CI check fails safe: it fails on a folder it cannot find or that holds no DAG, and it reports each problem
of a broken fleet once, without a false "safe mode skips" for a DAG file that only failed to import."""

from __future__ import annotations

from pathlib import Path

import pytest

from sagemaker_fleet.testing import assert_dag_folder_ok, check_dag_folder

FLEETS = Path(__file__).resolve().parents[3] / "dags" / "fleets"

DAG_FILE = """# An Airflow DAG built by sagemaker-fleet
from pathlib import Path

from sagemaker_fleet.dags import build_fleet_dag

dag = build_fleet_dag(Path(__file__).parent / {spec!r}, dag_id={dag_id!r})
"""


def broken_spec(path: Path) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    text = (FLEETS / "small.yaml").read_text(encoding="utf-8")
    path.write_text(text.replace("fleet: small", "fleet: Bad-Name", 1), encoding="utf-8")
    assert "Bad-Name" in path.read_text(encoding="utf-8")
    return path


def test_a_folder_missing_from_the_working_directory_fails(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)  # the quickstart's "dags/" read from another directory
    with pytest.raises(AssertionError, match="dags: does not exist") as failed:
        assert_dag_folder_ok("dags/")
    assert str(tmp_path / "dags") in str(failed.value)  # where it looked
    assert "Path(__file__)" in str(failed.value)  # and how to name it from any directory


def test_a_file_given_as_the_folder_fails(tmp_path: Path) -> None:
    (tmp_path / "dag.py").write_text("# airflow dag\n", encoding="utf-8")
    (problem,) = check_dag_folder(tmp_path / "dag.py").problems
    assert "is a file, not a folder" in problem


def test_a_folder_without_any_dag_fails(tmp_path: Path) -> None:
    (tmp_path / "helpers.py").write_text("# airflow dag helpers, no DAG here\nX = 1\n", encoding="utf-8")
    report = check_dag_folder(tmp_path)
    assert report.dag_ids == []
    (problem,) = report.problems
    assert problem.startswith(f"{tmp_path}: no DAG found")
    with pytest.raises(AssertionError, match="no DAG found"):
        assert_dag_folder_ok(tmp_path)


def test_a_broken_fleet_is_reported_once_and_only_truly(tmp_path: Path) -> None:
    broken_spec(tmp_path / "fleets" / "small.yaml")
    # two DAG files on the one spec, each with both words: safe mode imports them, they fail on the spec
    for dag_id in ("daily", "manual"):
        (tmp_path / f"{dag_id}.py").write_text(DAG_FILE.format(spec="fleets/small.yaml", dag_id=dag_id))
    report = check_dag_folder(tmp_path)
    text = "\n".join(report.problems)
    assert text.count("'Bad-Name' is not valid") == 1, text
    assert "Traceback" not in text
    assert "safe mode skips" not in text
    assert "no DAG found" not in text  # the import errors already say why there is none
    assert report.problems[1:] == [
        f"{tmp_path / name}.py: import error: its fleet spec {tmp_path / 'fleets' / 'small.yaml'} has errors "
        "(listed above)"
        for name in ("daily", "manual")
    ]


def test_a_broken_spec_outside_the_folder_is_listed_once_too(tmp_path: Path) -> None:
    broken_spec(tmp_path / "fleets" / "small.yaml")
    dags = tmp_path / "dags"
    dags.mkdir()
    (dags / "daily.py").write_text(DAG_FILE.format(spec="../fleets/small.yaml", dag_id="daily"))
    spec_errors, import_error = check_dag_folder(dags).problems
    assert spec_errors.startswith(f"{dags / '../fleets/small.yaml'}: 1 error(s) in fleet spec:")
    assert "'Bad-Name' is not valid" in spec_errors
    assert import_error.startswith(f"{dags / 'daily.py'}: import error: its fleet spec")


def test_another_import_error_keeps_its_traceback_and_is_no_safe_mode_skip(tmp_path: Path) -> None:
    (tmp_path / "daily.py").write_text(
        "# An Airflow DAG\nfrom airflow.sdk import DAG\nraise RuntimeError('boom')\nDAG('x')\n",
        encoding="utf-8",
    )
    (problem,) = check_dag_folder(tmp_path).problems
    assert problem.startswith(f"{tmp_path / 'daily.py'}: import error: Traceback")
    assert "RuntimeError: boom" in problem
