"""benchmarks/result_file.py: every benchmark's raw result, one dated JSON file per run under benchmarks/results/."""

from __future__ import annotations

import argparse
import datetime as dt
import importlib.util
import json
import re
import sys
from pathlib import Path

import pytest

BENCHMARKS = Path(__file__).resolve().parents[3] / "benchmarks"


def _load():
    # the scripts import it as a sibling (their folder is on sys.path); the tests load it from its file
    spec = importlib.util.spec_from_file_location("benchmark_result_file", BENCHMARKS / "result_file.py")
    assert spec is not None
    assert spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


rf = _load()
STARTED = dt.datetime(2026, 12, 5, 19, 30, 12, tzinfo=dt.UTC)


def test_the_file_is_named_after_the_benchmark_and_the_utc_minute_of_the_start(tmp_path: Path) -> None:
    path = rf.write_result(
        "scale", {"rows": [1]}, STARTED, directory=tmp_path, argv=["scale.py", "--sizes", "200"]
    )
    assert path == tmp_path / "scale-2026-12-05T1930Z.json"
    local = STARTED.astimezone(dt.timezone(dt.timedelta(hours=-5)))
    assert rf.result_path("scale", local, tmp_path).name == "scale-2026-12-05T1930Z-2.json"


def test_the_document_holds_the_result_and_what_ran_it(tmp_path: Path) -> None:
    path = rf.write_result(
        "scale", {"p50": 1.1}, STARTED, directory=tmp_path, argv=["scale.py", "--sizes", "200"]
    )
    doc = json.loads(path.read_text())
    assert doc["format"] == 1
    assert doc["benchmark"] == "scale"
    assert doc["started"] == "2026-12-05T19:30:12+00:00"
    assert dt.datetime.fromisoformat(doc["finished"]).tzinfo == dt.UTC
    assert doc["result"] == {"p50": 1.1}
    env = doc["environment"]
    assert env["command"].endswith("scale.py --sizes 200")
    assert env["python"] == ".".join(map(str, sys.version_info[:3]))
    assert env["cpu_count"] >= 1
    assert env["platform"]
    assert set(env) >= {"airflow", "provider", "git_commit", "git_dirty", "machine"}
    assert env["git_commit"] is None or re.fullmatch(r"[0-9a-f]{40}", env["git_commit"])


def test_no_directory_writes_nothing(tmp_path: Path) -> None:
    assert rf.write_result("scale", {}, STARTED, directory=None) is None
    assert list(tmp_path.iterdir()) == []


def test_values_json_cannot_hold_are_written_as_text(tmp_path: Path) -> None:
    path = rf.write_result("x", {"where": Path("/tmp/a")}, STARTED, directory=tmp_path)
    assert json.loads(path.read_text())["result"] == {"where": "/tmp/a"}


@pytest.mark.parametrize("name", ["", "a/b", ".hidden"])
def test_a_name_is_a_plain_stem(name: str) -> None:
    with pytest.raises(ValueError, match="plain file-name stem"):
        rf.result_path(name, STARTED)


def test_the_results_dir_option() -> None:
    parser = argparse.ArgumentParser()
    rf.add_result_options(parser)
    assert parser.parse_args([]).results_dir == BENCHMARKS / "results"
    assert parser.parse_args(["--results-dir", "/tmp/r"]).results_dir == Path("/tmp/r")
    assert parser.parse_args(["--results-dir", ""]).results_dir is None


def test_printed_lines_copies_stdout(capsys: pytest.CaptureFixture[str]) -> None:
    with rf.printed_lines() as lines:
        print("a | b")
        print("c", end="")
    assert lines == ["a | b", "c"]
    assert capsys.readouterr().out == "a | b\nc"


SCRIPTS = sorted(p for p in BENCHMARKS.glob("*.py") if p.name != "result_file.py")


@pytest.mark.parametrize("script", SCRIPTS, ids=[p.stem for p in SCRIPTS])
def test_every_benchmark_writes_its_result(script: Path) -> None:
    text = script.read_text()
    assert "write_result(" in text, f"{script.name} writes no result file (benchmarks/result_file.py)"
    assert "add_result_options(" in text, f"{script.name} has no --results-dir"
