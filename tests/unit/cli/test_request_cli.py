"""``sagemaker-fleet request SPEC CITY``: the exact request the operator would send, or exit 2 with why not."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml

from sagemaker_fleet.cli.main import main
from sagemaker_fleet.jobs.request import Submission, compile_training_request
from sagemaker_fleet.plan import plan_fleet
from unit.fleetspec.job_specs import RUN_KEY, load, spec_data


@pytest.fixture
def spec_file(tmp_path: Path) -> Path:
    data = spec_data()
    data["cities"][1]["spot"] = {"max_wait_seconds": 14400}
    path = tmp_path / "demand.yaml"
    path.write_text(yaml.safe_dump(data, sort_keys=False))
    return path


def printed(capsys: pytest.CaptureFixture[str], *argv: str) -> dict[str, object]:
    assert main(["request", *argv]) == 0
    return json.loads(capsys.readouterr().out)  # type: ignore[no-any-return]


def test_it_prints_what_the_compiler_makes_with_the_plan_s_keep_alive(
    spec_file: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    spec = load(yaml.safe_load(spec_file.read_text()))
    keep_alive = plan_fleet(spec, RUN_KEY).job("seoul").keep_alive_seconds
    expected = compile_training_request(
        spec, spec.city("seoul"), Submission("seoul", RUN_KEY, keep_alive_seconds=keep_alive)
    )
    assert printed(capsys, str(spec_file), "seoul", "--run-key", RUN_KEY) == json.loads(json.dumps(expected))


def test_spot_the_on_demand_fallback_and_a_resubmission(
    spec_file: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    spot = printed(capsys, str(spec_file), "lagos", "--run-key", RUN_KEY)
    assert spot["EnableManagedSpotTraining"] is True
    fallback = printed(capsys, str(spec_file), "lagos", "--run-key", RUN_KEY, "--on-demand", "--attempt", "4")
    assert "EnableManagedSpotTraining" not in fallback
    assert fallback["TrainingJobName"] == f"demand-lagos-{RUN_KEY}-r4"


@pytest.mark.parametrize(
    ("argv", "words"),
    [
        (["nowhere"], "no city 'nowhere' in fleet demand"),
        (["seoul", "--spot"], "city seoul has no `spot:` settings"),
        (["seoul", "--attempt", "0"], "--attempt 0: use 1-32"),
        (["seoul", "--run-key", "Bad Key"], "run key 'Bad Key' is invalid"),
    ],
)
def test_what_it_cannot_print_exits_2_saying_why(
    spec_file: Path, capsys: pytest.CaptureFixture[str], argv: list[str], words: str
) -> None:
    assert main(["request", str(spec_file), *argv]) == 2
    assert words in capsys.readouterr().err
