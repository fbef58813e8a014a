"""``sagemaker-fleet preflight`` over HTTP against the simulator: the account's quotas from Service Quotas, the
role from IAM, the buckets and data from S3 and the image from ECR (moto behind the endpoint), and the exit code
the findings make: 0 when the run can work, 2 when it cannot."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

from sagemaker_fleet.cli.main import main
from sagemaker_fleet.fleetspec import load_fleet_spec
from sagemaker_fleet.sim.provision import provision_fleet

if TYPE_CHECKING:
    from sagemaker_fleet.sim.client import SimClient

pytestmark = pytest.mark.integration

SPEC = """
fleet: pre
region: us-east-1
role_arn: arn:aws:iam::123456789012:role/FleetTraining
image_uri: 123456789012.dkr.ecr.us-east-1.amazonaws.com/demand:1.4
output_s3_uri: s3://pre-out/fleets/pre
quotas:
  ml.m5.xlarge: {instances: 4, warm_pools: 2, spot_instances: 1}
defaults: {instance_type: ml.m5.xlarge, expected_seconds: 600}
cities:
  - {name: tokyo, train_s3_uri: "s3://pre-data/data/tokyo/"}
  - {name: lima, train_s3_uri: "s3://pre-data/data/lima/"}
  - {name: oslo, train_s3_uri: "s3://pre-data/data/oslo/"}
  - {name: cairo, train_s3_uri: "s3://pre-data/data/cairo/"}
  - {name: seoul, train_s3_uri: "s3://pre-data/data/seoul/"}
  - {name: quito, train_s3_uri: "s3://pre-data/data/quito/", spot: {max_wait_seconds: 14400}}
"""


@pytest.fixture
def account(sim: SimClient, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The spec file, with everything it names created in the simulator and its quotas set to the spec's."""
    for name in ("AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY"):
        monkeypatch.setenv(name, "testing")
    monkeypatch.delenv("AWS_PROFILE", raising=False)
    monkeypatch.delenv("AWS_ENDPOINT_URL", raising=False)
    path = tmp_path / "pre.yaml"
    path.write_text(SPEC)
    assert provision_fleet(sim, load_fleet_spec(path)) == []
    sim.set_quota("ml.m5.xlarge", instances=4, warm_pools=2, spot_instances=1)
    return path


def preflight(sim: SimClient, spec: Path, capsys: pytest.CaptureFixture[str]) -> tuple[int, list[str]]:
    code = main(["preflight", str(spec), "--endpoint-url", sim.url])
    return code, capsys.readouterr().out.splitlines()


def lines_of(lines: list[str], level: str) -> list[str]:
    return [line for line in lines if line.startswith(level + " ")]


def test_happy_path_exits_0_with_every_check_ok(
    sim: SimClient, account: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, lines = preflight(sim, account, capsys)
    assert code == 0, lines
    assert lines_of(lines, "WARNING") == lines_of(lines, "ERROR") == []
    assert "OK      account: 123456789012 in us-east-1, as arn:aws:sts::123456789012:user/moto" in lines
    assert (
        "OK      quota ml.m5.xlarge warm pools: the account allows 2; the plan holds at most 2 at once"
        in lines
    )
    assert "OK      role FleetTraining: exists and SageMaker may assume it (6 cities)" in lines
    assert "OK      data: training data found for 6 of 6 cities" in lines
    assert any(
        line.startswith("OK      board s3://pre-out/sagemaker-fleet/board/: readable") for line in lines
    )
    assert "OK      image 123456789012.dkr.ecr.us-east-1.amazonaws.com/demand:1.4: exists (6 cities)" in lines
    assert lines[-1].startswith("preflight pre: ")
    assert lines[-1].endswith("the run can go ahead")


def test_a_warm_pool_quota_of_0_is_a_loud_warning_and_the_run_still_goes(
    sim: SimClient, account: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    sim.set_quota("ml.m5.xlarge", instances=4, warm_pools=0, spot_instances=1)
    code, lines = preflight(sim, account, capsys)
    assert code == 0
    (warning,) = lines_of(lines, "WARNING")
    assert warning.startswith("WARNING quota ml.m5.xlarge warm pools: NO WARM POOLS")
    assert "EVERY START IS COLD" in warning


def test_an_account_below_the_spec_warns_and_the_lower_wins(
    sim: SimClient, account: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    sim.set_quota("ml.m5.xlarge", instances=2, warm_pools=2, spot_instances=1)
    code, lines = preflight(sim, account, capsys)
    assert code == 0
    (warning,) = lines_of(lines, "WARNING")
    assert "the plan holds up to 3 at once, the account allows 2: the lower wins" in warning


def test_a_missing_output_bucket_exits_2(
    sim: SimClient, account: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    sim.boto3_client("s3").delete_bucket(Bucket="pre-out")
    code, lines = preflight(sim, account, capsys)
    assert code == 2
    (error,) = lines_of(lines, "ERROR")
    assert error.startswith("ERROR   bucket pre-out: the bucket of output_s3_uri does not exist")
    assert lines[-1].endswith("the run cannot work as specified: fix the ERROR lines")


def test_a_board_that_cannot_be_read_warns_and_the_run_still_goes(
    sim: SimClient, account: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    account.write_text(account.read_text() + "sharing: {board: s3://no-such-board-bucket/board/}\n")
    code, lines = preflight(sim, account, capsys)
    assert code == 0, lines
    (warning,) = lines_of(lines, "WARNING")
    assert warning.startswith("WARNING board s3://no-such-board-bucket/board/: cannot be read (NoSuchBucket")
    assert "runs that start together may both take the free room" in warning


def test_a_fleet_that_takes_no_part_is_a_note(
    sim: SimClient, account: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    account.write_text(account.read_text() + "sharing: false\n")
    code, lines = preflight(sim, account, capsys)
    assert code == 0, lines
    assert "NOTE    board: sharing: false: the run posts nothing on the account's board" in lines


def test_a_missing_role_exits_2(sim: SimClient, account: Path, capsys: pytest.CaptureFixture[str]) -> None:
    sim.boto3_client("iam").delete_role(RoleName="FleetTraining")
    code, lines = preflight(sim, account, capsys)
    assert code == 2
    (error,) = lines_of(lines, "ERROR")
    assert error.startswith(
        "ERROR   role FleetTraining: arn:aws:iam::123456789012:role/FleetTraining does not exist"
    )
    assert "tokyo, lima, oslo, cairo, seoul and 1 more" in error


def test_a_city_without_data_and_a_missing_image_exit_2_naming_them(
    sim: SimClient, account: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    sim.boto3_client("s3").delete_object(Bucket="pre-data", Key="data/oslo/train.csv")
    sim.boto3_client("ecr").batch_delete_image(repositoryName="demand", imageIds=[{"imageTag": "1.4"}])
    code, lines = preflight(sim, account, capsys)
    assert code == 2
    errors = lines_of(lines, "ERROR")
    assert errors[0].startswith("ERROR   data oslo: no object under s3://pre-data/data/oslo/")
    assert errors[1].startswith(
        "ERROR   image 123456789012.dkr.ecr.us-east-1.amazonaws.com/demand:1.4: no image"
    )
    assert "OK      data: training data found for 5 of 6 cities" in lines


def test_no_instance_quota_exits_2(sim: SimClient, account: Path, capsys: pytest.CaptureFixture[str]) -> None:
    sim.set_quota("ml.m5.xlarge", instances=0, warm_pools=0, spot_instances=1)
    code, lines = preflight(sim, account, capsys)
    assert code == 2
    assert any(
        line.startswith("ERROR   quota ml.m5.xlarge instances: the account allows 0") for line in lines
    )


def test_without_credentials_it_exits_1_not_with_a_finding(
    sim: SimClient, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    for name in ("AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY", "AWS_SESSION_TOKEN", "AWS_PROFILE"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("AWS_SHARED_CREDENTIALS_FILE", str(tmp_path / "none"))
    monkeypatch.setenv("AWS_CONFIG_FILE", str(tmp_path / "none"))
    monkeypatch.setenv("AWS_EC2_METADATA_DISABLED", "true")
    spec = tmp_path / "pre.yaml"
    spec.write_text(SPEC)
    assert main(["preflight", str(spec), "--endpoint-url", sim.url]) == 1
    captured = capsys.readouterr()
    assert captured.out == ""
    assert "cannot ask the account" in captured.err
    assert "credentials" in captured.err


def test_the_demo_fleet_against_a_real_sim_serve_is_clean(fleets_dir: Path) -> None:
    """The documented way: ``sim serve --fleet demo.yaml --provision --account-id 111122223333``, then preflight."""
    demo = str(fleets_dir / "demo.yaml")
    command = [sys.executable, "-m", "sagemaker_fleet.cli.main"]
    server = subprocess.Popen(
        [*command, "sim", "serve", "--fleet", demo, "--provision", "--account-id", "111122223333"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        assert server.stdout is not None
        url = server.stdout.readline().strip()
        assert url.startswith("http://127.0.0.1:")
        env = {**os.environ, "AWS_ACCESS_KEY_ID": "testing", "AWS_SECRET_ACCESS_KEY": "testing"}
        env.pop("AWS_ENDPOINT_URL", None)
        result = subprocess.run(
            [*command, "preflight", demo, "--endpoint-url", url],
            capture_output=True,
            text=True,
            env=env,
            timeout=120,
        )
    finally:
        server.send_signal(signal.SIGTERM)
        assert server.wait(timeout=15) == 0
    assert result.returncode == 0, result.stdout + result.stderr
    installation = installation_lines()
    everything = result.stdout.splitlines()
    assert everything[: len(installation)] == installation  # first what this installation is and gives
    lines = everything[len(installation) :]
    assert [line for line in lines if not line.startswith("OK ")] == [lines[-1]], lines
    assert "OK      role TeamB: exists and SageMaker may assume it (50 cities)" in lines
    assert "OK      data: training data found for 200 of 200 cities" in lines
    assert any(
        line.startswith("OK      board s3://sagemaker-fleet-demo/sagemaker-fleet/board/: ") for line in lines
    )
    assert lines[-1] == "preflight citydemand: 13 OK, 0 notes, 0 warnings, 0 errors — the run can go ahead"


def installation_lines() -> list[str]:
    """What preflight says first of the installation it runs in (versions, version-bound features)."""
    from sagemaker_fleet.cli.preflight import installation_findings

    return [finding.line() for finding in installation_findings()]


REGISTER = """
job:
  AlgorithmSpecification:
    MetricDefinitions: [{Name: "validation:rmse", Regex: "rmse=([0-9.]+)"}]
register:
  group: "{fleet}-{city}"
  metric: validation:rmse
  direction: minimize
  margin: 0.02
  inference: {Containers: [{Image: 123456789012.dkr.ecr.us-east-1.amazonaws.com/serve:1}]}
"""


def test_a_fleet_with_register_has_its_registry_probed(
    sim: SimClient, account: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """No group yet: OK (the first run makes it); once it exists, OK with its status; a refused probe is a warning
    naming the permission; and a note lists what register_models needs that a read cannot probe."""
    account.write_text(SPEC + REGISTER)
    code, lines = preflight(sim, account, capsys)
    assert code == 0, lines
    assert (
        "OK      registry pre-tokyo: no group pre-tokyo yet: the first run makes it (and its city's others)"
        in lines
    )
    (note,) = [line for line in lines if line.startswith("NOTE    registry pre-tokyo:")]
    assert "sagemaker:CreateModelPackage" in note
    assert "sagemaker:UpdateModelPackage" in note
    sim.boto3_client("sagemaker").create_model_package_group(ModelPackageGroupName="pre-tokyo")
    code, lines = preflight(sim, account, capsys)
    assert "OK      registry pre-tokyo: group pre-tokyo exists (Completed)" in lines
    sim.throttle(0.0)
    sim.api_errors(1.0, ["ListModelPackages"])
    code, lines = preflight(sim, account, capsys)
    sim.api_errors(0.0)
    assert code == 0, lines
    assert any(line.startswith("WARNING registry pre-tokyo: not checked: InternalFailure") for line in lines)
