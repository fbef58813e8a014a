"""``sagemaker-fleet import``: inputs it refuses (exit 2) and where the spec goes."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from sagemaker_fleet.cli.main import main
from unit.fleetspec.test_draft import request


@pytest.fixture
def request_file(tmp_path: Path) -> Path:
    path = tmp_path / "seoul.json"
    path.write_text(json.dumps(request("seoul")))
    return path


@pytest.mark.parametrize(
    ("argv", "words"),
    [
        ([], "name at least one JOB or --request FILE"),
        (["--cities", "a,b"], "--cities names 2 cities for 1 jobs"),
        (["--cities", "Seoul!"], "not a city name: Seoul!"),
    ],
)
def test_refused_inputs_exit_2(
    request_file: Path, argv: list[str], words: str, capsys: pytest.CaptureFixture[str]
) -> None:
    base = ["import", "--request", str(request_file)] if argv or words.startswith("--") else ["import"]
    assert main(base + argv if argv else base) == 2
    assert words in capsys.readouterr().err


def test_a_request_file_that_is_no_request_is_refused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "r.yaml"
    path.write_text("Training: {}\n")
    assert main(["import", "--request", str(path)]) == 2
    assert "not CreateTrainingJob fields: Training" in capsys.readouterr().err


def test_the_spec_goes_to_out_never_over_a_file_without_force(
    request_file: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "fleet.yaml"
    assert main(["import", "--request", str(request_file), "--out", str(out)]) == 0
    assert "cities:\n- name: seoul\n" in out.read_text()  # the city from the sagemaker-fleet:city tag
    assert main(["import", "--request", str(request_file), "--out", str(out)]) == 2
    assert "exists; pass --force" in capsys.readouterr().err
    assert main(["import", "--request", str(request_file), "--out", str(out), "--force"]) == 0


def test_the_sdk_v2_upload_of_a_training_config_is_left_out_with_why(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """SDK v2's ``training_config`` adds ``S3Operations`` (its Airflow operator uploads the source directory first):
    not CreateTrainingJob's, so it is left out and said, not refused."""
    upload = {
        "S3Upload": [{"Path": "/src/train.py", "Bucket": "b", "Key": "code/sourcedir.tar.gz", "Tar": True}]
    }
    path = tmp_path / "training_config.json"
    path.write_text(json.dumps({**request("seoul"), "S3Operations": upload}))
    out = tmp_path / "fleet.yaml"
    assert main(["import", "--request", str(path), "--out", str(out)]) == 0
    err = capsys.readouterr().err
    assert "left out: S3Operations — the SageMaker SDK v2's upload of your source directory" in err
    text = out.read_text()
    assert "S3Upload" not in text.split("# Left out:")[0]
    assert "#   S3Operations — the SageMaker SDK v2's upload" in text
