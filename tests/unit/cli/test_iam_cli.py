"""``sagemaker-fleet iam FLEET.yaml``: the fleet's policies as text or as IAM's JSON, or exit 2 with the fix."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from sagemaker_fleet.cli.main import main
from sagemaker_fleet.iam import PARTS, PolicyScope, policy_part
from unit.iam.fleets import DEMO, demo


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(["iam", *argv])
    out, err = capsys.readouterr()
    return code, out, err


def test_json_of_one_part_is_the_policy_document_iam_takes(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run(capsys, str(DEMO), "--part", "airflow", "--format", "json")
    assert code == 0
    spec = demo()
    assert json.loads(out) == policy_part("airflow", spec, PolicyScope.of(spec)).document()


def test_json_of_all_parts_is_an_object_by_part(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, str(DEMO), "--format", "json", "--account-id", "444455556666")
    assert code == 0
    documents = json.loads(out)
    assert set(documents) == set(PARTS)
    assert "444455556666:training-job/citydemand-*" in json.dumps(documents["view"])


def test_text_says_what_each_part_is_for_and_what_it_cannot_narrow(
    capsys: pytest.CaptureFixture[str],
) -> None:
    code, out, _ = run(capsys, str(DEMO), "--describe-fleet", "weekly")
    assert code == 0
    for name in PARTS:
        assert f"# {name}: " in out
    assert "sagemaker:DescribeTrainingJob returns a job's Environment and HyperParameters" in out
    assert "sagemaker:KeepAlivePeriod" in out
    assert "training-job/weekly-*" in out


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--account-id", "12"], "--account-id '12': an AWS account id is 12 digits"),
        (["--describe-fleet", "city-demand"], "--describe-fleet 'city-demand'"),
    ],
)
def test_a_bad_flag_is_exit_2_with_the_fix(
    capsys: pytest.CaptureFixture[str], argv: list[str], message: str
) -> None:
    code, out, err = run(capsys, str(DEMO), *argv)
    assert (code, out) == (2, "")
    assert message in err


def test_a_kms_key_without_its_arn_is_exit_2_naming_the_city(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    text = DEMO.read_text().replace(
        "  volume_size_gb: 30\n", "  volume_size_gb: 30\n  volume_kms_key_id: alias/fleet\n"
    )
    spec = tmp_path / "demo.yaml"
    spec.write_text(text)
    code, out, err = run(capsys, str(spec))
    assert (code, out) == (2, "")
    assert "city tokyo: volume_kms_key_id (ResourceConfig.VolumeKmsKeyId) is 'alias/fleet'" in err
    assert "write the key's ARN" in err


def test_a_policy_longer_than_a_managed_policy_is_a_warning(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    import sagemaker_fleet.cli.iam as command

    spec = demo()
    sizes = {name: policy_part(name, spec, PolicyScope.of(spec)).size() for name in PARTS}
    monkeypatch.setattr(command, "MANAGED_POLICY_MAX_CHARS", sizes["airflow"] - 1)
    code, out, err = run(capsys, str(DEMO), "--format", "json")
    assert code == 0
    assert json.loads(out)
    assert err.count("warning: ") == sum(size > sizes["airflow"] - 1 for size in sizes.values()) == 1
    assert f"warning: the airflow policy has {sizes['airflow']:,} characters" in err
