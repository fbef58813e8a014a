"""``sagemaker-fleet simulate`` (docs/formats.md, simulate JSON): simulate JSON or a summary, ``--compare``, exit 2 on bad input."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from contract_fields import SIMULATE_FIELDS
from sagemaker_fleet.cli.main import main
from sagemaker_fleet.fleetspec.names import today_run_key

STABLE_FIELDS = list(SIMULATE_FIELDS)


@pytest.fixture
def small(fleets_dir: Path) -> str:
    return str(fleets_dir / "small.yaml")


def test_json_defaults_to_planned_with_seed_7(small: str, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["simulate", small, "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)

    assert list(doc)[: len(STABLE_FIELDS)] == STABLE_FIELDS
    assert (doc["strategy"], doc["seed"], doc["run_key"]) == ("planned", 7, today_run_key())
    assert set(doc["api_calls"]) == {"CreateTrainingJob", "DescribeTrainingJob", "ListTrainingJobs"}
    assert doc["jobs"] == 12


def test_strategy_seed_and_run_key_are_honoured(small: str, capsys: pytest.CaptureFixture[str]) -> None:
    assert (
        main(["simulate", small, "--json", "--strategy", "naive", "--seed", "3", "--run-key", "20270101"])
        == 0
    )
    doc = json.loads(capsys.readouterr().out)

    assert (doc["strategy"], doc["seed"], doc["run_key"]) == ("naive", 3, "20270101")
    assert doc["api_calls"]["ListTrainingJobs"] == 0


def test_the_same_command_prints_the_same_json(small: str, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["simulate", small, "--json", "--seed", "11"]) == 0
    first = capsys.readouterr().out
    assert main(["simulate", small, "--json", "--seed", "11"]) == 0
    assert capsys.readouterr().out == first


def test_summary_without_json(small: str, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["simulate", small]) == 0
    out = capsys.readouterr().out

    assert "strategy planned · seed 7" in out
    assert "cities     12: 12 completed" in out
    assert "(plan: " in out
    assert "API calls  Create 12" in out


def test_refusing_keep_alive_changes_of_running_jobs_leaves_pools_idle_a_sweep_longer(
    small: str, capsys: pytest.CaptureFixture[str]
) -> None:
    """``--refuse-keep-alive-while-running`` reaches the engine: the group's last jobs keep their pools until the
    poller ends them, which bills idle seconds and changes nothing else."""
    assert main(["simulate", small, "--json", "--run-key", "20261203"]) == 0
    accepted = json.loads(capsys.readouterr().out)
    assert (
        main(["simulate", small, "--json", "--run-key", "20261203", "--refuse-keep-alive-while-running"]) == 0
    )
    refused = json.loads(capsys.readouterr().out)

    assert refused["retained_billable_seconds"] > accepted["retained_billable_seconds"]
    for same in ("warm_starts", "cold_starts", "makespan_seconds", "billable_seconds", "completed"):
        assert refused[same] == accepted[same], same


def test_compare_json_has_both_strategies_and_ratios(small: str, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["simulate", small, "--compare", "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)

    assert doc["planned"]["strategy"] == "planned"
    assert doc["naive"]["strategy"] == "naive"
    assert doc["planned"]["seed"] == doc["naive"]["seed"] == 7
    ratio = doc["ratios"]
    assert ratio["retained_billable_seconds"] == pytest.approx(
        doc["naive"]["retained_billable_seconds"] / doc["planned"]["retained_billable_seconds"], abs=0.001
    )
    assert ratio["api_calls.DescribeTrainingJob"] > 10
    assert ratio["failed"] is None  # nothing to divide by


def test_compare_table(small: str, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["simulate", small, "--compare"]) == 0
    out = capsys.readouterr().out

    assert "naive/planned" in out
    assert "retained pool s" in out
    assert "DescribeTrainingJob calls" in out


def test_a_bad_spec_exits_2_with_every_error(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    bad = tmp_path / "bad.yaml"
    bad.write_text("fleet: Bad_Name\nregion: us-east-1\nbogus: 1\ncities: []\n", encoding="utf-8")

    assert main(["simulate", str(bad), "--json"]) == 2
    captured = capsys.readouterr()
    assert captured.out == ""
    assert "bogus" in captured.err
    assert "fleet" in captured.err


@pytest.mark.parametrize(
    ("extra", "message"),
    [
        (["--run-key", "not a key!"], "run key"),
        (["--throttle-share", "1.5"], "--throttle-share"),
        (["--history", "/nonexistent/report.json"], "cannot read the history file"),
    ],
)
def test_bad_options_exit_2(
    small: str, extra: list[str], message: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["simulate", small, *extra]) == 2
    assert message in capsys.readouterr().err


def test_report_dir_gets_each_strategys_cost_report(
    small: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["simulate", small, "--compare", "--json", "--report-dir", str(tmp_path)]) == 0
    doc = json.loads(capsys.readouterr().out)

    for strategy in ("planned", "naive"):
        report = json.loads((tmp_path / strategy / "report.json").read_text(encoding="utf-8"))
        assert report["totals"]["cost_usd"] == doc[strategy]["cost_usd"]
        assert len(report["jobs"]) == doc[strategy]["jobs"] + doc[strategy]["resubmitted"]
        assert (tmp_path / strategy / "report.html").is_file()


def test_compare_counts_warm_image_re_pulls(capsys: pytest.CaptureFixture[str]) -> None:
    fleet = Path(__file__).resolve().parents[3] / "benchmarks" / "fleets" / "two_images.yaml"
    assert main(["simulate", str(fleet), "--compare"]) == 0
    rows = {line[:24].strip(): line[24:].split() for line in capsys.readouterr().out.splitlines()[2:]}
    planned, naive, _ = rows["warm image re-pulls"]
    assert int(planned) < int(naive)


def test_an_unpriced_type_is_refused_with_the_fix_validate_already_gave(
    small: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """`validate` warned about the type; `simulate` refuses it with the same offline fix, not `report --price-list`
    (which needs a finished run and AWS)."""
    text = Path(small).read_text(encoding="utf-8").replace("ml.m5.2xlarge", "ml.c5.2xlarge")
    path = tmp_path / "unpriced.yaml"
    path.write_text(text, encoding="utf-8")

    assert main(["simulate", str(path), "--json"]) == 2
    err = capsys.readouterr().err
    assert "warning: prices: no price for ml.c5.2xlarge in us-east-1 (used by tehran, cairo)" in err
    refusal = err.splitlines()[-1]
    assert refusal.startswith(f"{path}: no price for ml.c5.2xlarge in us-east-1")
    assert "`prices: {ml.c5.2xlarge: <USD per instance-hour>}`" in refusal
    assert "--price-list" not in refusal
