"""``sagemaker-fleet validate FLEET.yaml``: exit 0 + one summary line, or exit 2 + every error."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from sagemaker_fleet.cli.main import main

FLEETS_DIR = Path(__file__).resolve().parents[3] / "dags" / "fleets"
FLEET_FILES = sorted(FLEETS_DIR.glob("*.yaml"))

BROKEN = """\
fleet: City_Demand
region: us-east-1
role_arn: arn:aws:iam::111122223333:role/FleetTraining
image_uri: 111122223333.dkr.ecr.us-east-1.amazonaws.com/demand:1.4
output_s3_uri: s3://acme-ml/fleets/citydemand
quotas:
  ml.m5.xlarge: {instances: 4, warm_pools: 2}
defaults:
  instance_type: ml.m5.xlarge
  keep_alive: 25000
cities:
  - {name: seoul, train_s3_uri: "s3://acme-ml/data/seoul/", colour: red}
  - {name: seoul, train_s3_uri: "https://acme-ml/data/seoul/"}
  - {name: perth, train_s3_uri: "s3://acme-ml/data/perth/", keep_alive: 0, spot: {max_wait_seconds: 60}}
"""
BROKEN_PATHS = {
    "fleet (line 1)",
    "defaults.keep_alive (line 10)",
    "cities[0] (seoul).colour (line 12)",
    "cities[1] (seoul).name (line 13)",
    "cities[1] (seoul).train_s3_uri (line 13)",
    "cities[2] (perth).spot.max_wait_seconds (line 14)",
}


@pytest.mark.parametrize("path", FLEET_FILES, ids=lambda p: p.name)
def test_valid_fleet_prints_one_summary_line(path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["validate", str(path)]) == 0
    out, err = capsys.readouterr()
    assert out.count("\n") == 1
    assert out.startswith(f"{path}: fleet ")
    assert " OK — " in out
    # no shipped fleet needs Airflow tuned, the 500-city weekly fleet neither
    assert "triggerer" not in err, err


def test_summary_of_the_demo_fleet(capsys: pytest.CaptureFixture[str]) -> None:
    path = FLEETS_DIR / "demo.yaml"
    assert main(["validate", str(path)]) == 0
    assert capsys.readouterr().out == (
        f"{path}: fleet citydemand OK — 200 cities (20 spot), 2 role(s), 40× ml.c5.xlarge, 160× ml.m5.xlarge\n"
    )


def test_broken_fleet_exits_2_with_every_error_on_stderr(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "broken.yaml"
    path.write_text(BROKEN, encoding="utf-8")
    assert main(["validate", str(path)]) == 2
    out, err = capsys.readouterr()
    assert out == ""
    assert err.startswith(f"{path}: {len(BROKEN_PATHS)} error(s) in fleet spec:\n")
    reported = {line.removeprefix("  - ").split(": ", 1)[0] for line in err.splitlines()[1:]}
    assert reported == BROKEN_PATHS
    assert "did you mean" not in err  # `colour` is nothing like a real key: the allowed ones are listed
    assert "allowed keys:" in err


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("fleet: [unclosed\n", "<root> (line 2): YAML syntax error"),
        ("", "<root>: the file is empty"),
        ("- a\n- b\n", "a fleet spec is a mapping"),
        ("fleet: x\nfleet: y\n", "fleet (line 2): key `fleet` appears twice (first at line 1)"),
    ],
    ids=["syntax", "empty", "list", "duplicate-key"],
)
def test_unparseable_files_exit_2(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], text: str, expected: str
) -> None:
    path = tmp_path / "fleet.yaml"
    path.write_text(text, encoding="utf-8")
    assert main(["validate", str(path)]) == 2
    out, err = capsys.readouterr()
    assert out == ""
    assert expected in err


def test_missing_file_exits_2(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["validate", str(tmp_path / "nowhere.yaml")]) == 2
    assert "cannot read the file" in capsys.readouterr().err


def test_warnings_go_to_stderr_and_still_exit_0(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    text = (
        (FLEETS_DIR / "small.yaml")
        .read_text(encoding="utf-8")
        .replace("  keep_alive: auto\n", "  keep_alive: 0\n")
    )
    text = text.replace("  - {name: seoul, ", "  - {name: seoul, keep_alive: 5400, ")
    path = tmp_path / "warned.yaml"
    path.write_text(text, encoding="utf-8")
    assert main(["validate", str(path)]) == 0
    out, err = capsys.readouterr()
    assert out.count("\n") == 1
    spec_warning, advice = err.splitlines()
    assert spec_warning == (
        "warning: cities[0] (seoul).keep_alive: 5400 s is above the 3600 s the developer guide documents; "
        "the API accepts it, your account may not"
    )
    assert advice.startswith("warning: keep_alive 5400 s of seoul is far above what a hand-off needs")


def test_validate_needs_a_file(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["validate"]) == 2  # argparse's exit, returned as the code
    assert "FLEET.yaml" in capsys.readouterr().err


def test_console_script_end_to_end(tmp_path: Path) -> None:
    command = [sys.executable, "-m", "sagemaker_fleet.cli.main", "validate"]
    good = subprocess.run(
        [*command, str(FLEETS_DIR / "small.yaml")], capture_output=True, text=True, timeout=120
    )
    assert good.returncode == 0, good.stderr
    assert good.stdout.count("\n") == 1
    assert "fleet small OK — 12 cities (3 spot)" in good.stdout
    broken = tmp_path / "broken.yaml"
    broken.write_text(BROKEN, encoding="utf-8")
    bad = subprocess.run([*command, str(broken)], capture_output=True, text=True, timeout=120)
    assert bad.returncode == 2
    assert bad.stdout == ""
    assert all(path in bad.stderr for path in BROKEN_PATHS)


ADVISED = """\
fleet: advised
region: us-east-1
role_arn: arn:aws:iam::111122223333:role/FleetTraining
image_uri: 111122223333.dkr.ecr.us-east-1.amazonaws.com/demand:1.4
output_s3_uri: s3://acme-ml/fleets/advised
input_mode: File
quotas:
  ml.m5.xlarge: {instances: 4, warm_pools: 4}
defaults:
  instance_type: ml.m5.xlarge
  keep_alive: 1800
cities:
  - {name: seoul, train_s3_uri: "s3://acme-ml/data/seoul/", image_uri: "111122223333.dkr.ecr.us-east-1.amazonaws.com/seoul:1"}
  - {name: tokyo, train_s3_uri: "s3://acme-ml/data/tokyo/", image_uri: "111122223333.dkr.ecr.us-east-1.amazonaws.com/tokyo:1"}
  - {name: lagos, train_s3_uri: "s3://acme-ml/data/lagos/"}
"""


@pytest.mark.parametrize("command", ["validate", "plan"])
def test_warm_pool_advice_is_a_warning_not_an_error(
    command: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    spec = tmp_path / "advised.yaml"
    spec.write_text(ADVISED)
    assert main([command, str(spec)]) == 0
    err = capsys.readouterr().err
    warnings = [line for line in err.splitlines() if line.startswith("warning: ")]
    assert any("input_mode File with warm pools" in line for line in warnings)
    assert any("3 distinct images among its 3 cities" in line for line in warnings)
    assert any("keep_alive 1800 s of lagos, seoul, tokyo" in line for line in warnings)


def test_the_shipped_fleets_get_no_advice(capsys: pytest.CaptureFixture[str]) -> None:
    for path in FLEET_FILES:
        assert main(["validate", str(path)]) == 0
    assert "distinct images" not in capsys.readouterr().err


@pytest.mark.parametrize("command", ["validate", "plan"])
def test_an_unpriced_type_is_a_warning_of_validate_and_plan(
    command: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    text = (FLEETS_DIR / "small.yaml").read_text(encoding="utf-8").replace("ml.m5.2xlarge", "ml.c5.2xlarge")
    path = tmp_path / "unpriced.yaml"
    path.write_text(text, encoding="utf-8")
    assert main([command, str(path)]) == 0
    err = capsys.readouterr().err
    assert (
        "warning: prices: no price for ml.c5.2xlarge in us-east-1 (used by tehran, cairo) in the price table "
        "shipped with the package (as of 2026-11-29, " in err
    )
    assert "run `sagemaker-fleet prices refresh`" in err
    assert "add its on-demand training price to the spec as `prices: {ml.c5.2xlarge: " in err


def test_a_mistyped_instance_type_is_an_error_with_the_nearest_type(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    text = (
        (FLEETS_DIR / "small.yaml")
        .read_text(encoding="utf-8")
        .replace("  ml.m5.2xlarge: {", "  ml.m5.2xlarg: {")
    )
    text = text.replace("  instance_type: ml.m5.xlarge\n", "  instance_type: ml.m5.xlarg\n")
    path = tmp_path / "typo.yaml"
    path.write_text(text, encoding="utf-8")
    assert main(["validate", str(path)]) == 2
    err = capsys.readouterr().err
    assert (
        "quotas[ml.m5.2xlarg] (line 11): 'ml.m5.2xlarg' is not a SageMaker training instance type; did you mean ml.m5.2xlarge?"
        in err
    )
    assert (
        "defaults.instance_type (line 13): 'ml.m5.xlarg' is not a SageMaker training instance type; did you mean ml.m5.xlarge?"
        in err
    )
    assert "add a quota" not in err
    assert "no quota for ml.m5.xlarg" not in err


@pytest.mark.parametrize("command", ["validate", "plan"])
def test_a_connection_in_another_region_is_refused_naming_both(
    command: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """The first-run page hard-coded us-east-1 in the connection while the spec said eu-west-3: the jobs would have
    gone to us-east-1 without a word. The connection the environment defines is compared with the spec's region."""
    paris = tmp_path / "paris.yaml"
    paris.write_text(
        (FLEETS_DIR / "small.yaml").read_text().replace("region: us-east-1", "region: eu-west-3")
    )
    monkeypatch.delenv("AWS_REGION", raising=False)
    monkeypatch.setenv("AWS_DEFAULT_REGION", "eu-west-3")
    connection = (
        '{"conn_type": "aws", "extra": {"endpoint_url": "http://127.0.0.1:4566", "region_name": "us-east-1"}}'
    )
    monkeypatch.setenv("AIRFLOW_CONN_AWS_DEFAULT", connection)
    assert main([command, str(paris)]) == 2
    err = capsys.readouterr().err
    assert "region" in err
    assert (
        "the fleet trains in eu-west-3 but the aws_default connection (AIRFLOW_CONN_AWS_DEFAULT) talks to us-east-1"
        in err
    )
    # another connection id is named with --aws-conn-id; one the environment does not define leaves the environment's
    assert main([command, str(paris), "--aws-conn-id", "fleet_aws"]) == 0
    monkeypatch.setenv("AIRFLOW_CONN_AWS_DEFAULT", connection.replace("us-east-1", "eu-west-3"))
    assert main([command, str(paris)]) == 0
