"""``sagemaker-fleet simulate A.yaml B.yaml [--offset B.yaml=SECONDS]`` (docs/formats.md, simulate JSON of several
fleets): the new top-level shape, each run's simulate JSON, the account's totals, and exit 2 naming the argument."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from contract_fields import SIMULATE_FIELDS
from sagemaker_fleet.cli.main import main

ACCOUNT_FIELDS = [
    "runs",
    "jobs",
    "completed",
    "failed",
    "submissions",
    "warm_starts",
    "cold_starts",
    "makespan_seconds",
    "resource_limit_exceeded",
    "throttled",
    "api_calls",
    "cost_usd",
    "retained_cost_usd",
    "idle_share",
    "pools_across_runs",
    "lost",
    "duplicated",
    "quotas",
    "quota_notes",
]


@pytest.fixture
def small(fleets_dir: Path) -> str:
    return str(fleets_dir / "small.yaml")


@pytest.fixture
def other(tmp_path: Path, fleets_dir: Path) -> str:
    """The small fleet under another name, its ml.m5.xlarge quota lower: a second team's fleet."""
    text = (fleets_dir / "small.yaml").read_text(encoding="utf-8")
    text = text.replace("fleet: small", "fleet: other").replace("fleets/small", "fleets/other")
    text = text.replace("ml.m5.xlarge: {instances: 6,", "ml.m5.xlarge: {instances: 4,")
    path = tmp_path / "other.yaml"
    path.write_text(text, encoding="utf-8")
    return str(path)


def test_two_fleets_print_each_runs_simulate_json_and_the_accounts_totals(
    small: str, other: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["simulate", small, other, "--offset", f"{other}=30", "--run-key", "20261129", "--json"]) == 0
    captured = capsys.readouterr()
    doc = json.loads(captured.out)
    assert list(doc) == ["runs", "account"]
    assert list(doc["account"]) == ACCOUNT_FIELDS
    first, second = doc["runs"]
    for run in doc["runs"]:
        assert list(run)[: len(SIMULATE_FIELDS)] == list(SIMULATE_FIELDS)
        assert list(run)[-4:] == ["spec", "offset_seconds", "pools_to_other_runs", "pools_from_other_runs"]
    assert (first["fleet"], first["spec"], first["offset_seconds"]) == ("small", small, 0.0)
    assert (second["fleet"], second["spec"], second["offset_seconds"]) == ("other", other, 30.0)
    assert doc["account"]["jobs"] == 24
    assert doc["account"]["quotas"]["ml.m5.xlarge"] == {"instances": 6, "warm_pools": 3, "spot_instances": 4}
    # the specs disagree on instances: the account has the largest, and stderr says so, naming the field
    assert (
        "warning: quotas.ml.m5.xlarge.instances: the fleets declare different figures (small 6, other 4)"
        in (captured.err)
    )
    assert doc["account"]["quota_notes"] == [
        line.removeprefix("warning: ") for line in captured.err.splitlines()
    ]


def test_a_fleet_beside_a_copy_of_itself_under_another_run_key(
    small: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["simulate", small, f"{small}@manual1", "--run-key", "20261129", "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert [(run["fleet"], run["run_key"]) for run in doc["runs"]] == [
        ("small", "20261129"),
        ("small", "manual1"),
    ]
    assert (doc["account"]["lost"], doc["account"]["duplicated"]) == (0, 0)


def test_the_summary_has_each_run_and_the_account(
    small: str, other: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["simulate", small, other, "--run-key", "20261129"]) == 0
    out = capsys.readouterr().out
    assert out.count("cities     12: 12 completed") == 2
    assert f"account    {other} · starts at 0 s" in out
    assert (
        "account: 2 runs on one simulated account — ml.m5.xlarge 6 instances / 3 warm pools / 4 spot" in out
    )
    assert "quota      ResourceLimitExceeded " in out
    assert "lost 0 · duplicated 0" in out


def test_one_fleet_with_its_own_run_key_prints_todays_simulate_json(
    small: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["simulate", small, "--run-key", "20261129", "--json"]) == 0
    plain = json.loads(capsys.readouterr().out)
    assert main(["simulate", f"{small}@20261129", "--offset", f"{small}=600", "--json"]) == 0
    assert json.loads(capsys.readouterr().out) == plain


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (
            ["{small}", "{small}"],
            "{small} (fleet argument 2): fleet small with run key 20261129 is already fleet "
            "argument 1 ({small}); both runs would name the same jobs",
        ),
        (["{small}", "{small}@20261129"], "fleet small with run key 20261129 is already fleet argument 1"),
        (
            ["{small}", "{other}", "--offset", "nowhere.yaml=60"],
            "--offset nowhere.yaml=60: nowhere.yaml is not among the fleets given ({small}, {other})",
        ),
        (
            ["{small}", "{small}@manual1", "--offset", "{small}=60"],
            "--offset {small}=60: {small} names 2 runs ({small}@20261129, {small}@manual1); write FILE@RUN_KEY",
        ),
        (
            ["{small}", "{other}", "--offset", "{other}=-60"],
            "argument --offset: '{other}=-60': an offset is seconds ≥ 0",
        ),
        (
            ["{small}", "{other}", "--offset", "{other}"],
            "argument --offset: '{other}': write FLEET.yaml=SECONDS",
        ),
        (["{small}", "{other}", "--compare"], "--compare: with several fleets"),
        (["{small}", "{small}@Manual"], "{small}@Manual: run key 'Manual' is invalid"),
    ],
)
def test_bad_input_exits_2_naming_the_argument(
    argv: list[str], message: str, small: str, other: str, capsys: pytest.CaptureFixture[str]
) -> None:
    args = [arg.format(small=small, other=other) for arg in argv]
    assert main(["simulate", *args, "--run-key", "20261129"]) == 2
    assert message.format(small=small, other=other) in " ".join(capsys.readouterr().err.split())


def test_several_fleets_write_one_cost_report_per_run(
    small: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "reports"
    assert (
        main(["simulate", small, f"{small}@manual1", "--run-key", "20261129", "--report-dir", str(out)]) == 0
    )
    assert sorted(path.name for path in out.iterdir()) == ["small-20261129", "small-manual1"]
    assert (out / "small-manual1" / "report.json").exists()
