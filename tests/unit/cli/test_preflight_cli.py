"""``sagemaker-fleet preflight``: a spec that allows no plan is refused (exit 2) before the account is asked, and
the findings print one a line with the exit code they make (the checks themselves: tests/unit/account and
tests/integration/preflight)."""

from __future__ import annotations

import logging
from pathlib import Path
from typing import Any

import pytest

import sagemaker_fleet.cli.preflight as preflight_cli
from sagemaker_fleet.cli.main import main
from sagemaker_fleet.preflight.findings import Finding

SMALL = str(Path(__file__).resolve().parents[3] / "dags" / "fleets" / "small.yaml")


def test_a_bad_spec_exits_2_without_asking_the_account(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    def no_aws(*args: Any) -> list[Finding]:
        raise AssertionError("the account was asked")

    monkeypatch.setattr(preflight_cli, "preflight", no_aws)
    spec = tmp_path / "bad.yaml"
    spec.write_text("fleet: Bad-Name\n")
    assert main(["preflight", str(spec)]) == 2
    assert "fleet" in capsys.readouterr().err


@pytest.mark.parametrize(
    ("levels", "code", "verdict"),
    [
        (["OK", "NOTE", "WARNING"], 0, "the run can go ahead"),
        (["OK", "ERROR", "WARNING"], 2, "the run cannot work as specified: fix the ERROR lines"),
    ],
)
def test_findings_print_one_a_line_and_make_the_exit_code(
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    levels: list[str],
    code: int,
    verdict: str,
) -> None:
    findings = [Finding(level, f"check {n}", "found") for n, level in enumerate(levels)]  # type: ignore[arg-type]
    monkeypatch.setattr(preflight_cli, "preflight", lambda spec, plan, clients: findings)
    # Airflow 3.0, once imported (the installation's lines import it), logs INFO to stdout from the root logger
    # (botocore's "Found credentials …")
    monkeypatch.setattr(logging.getLogger(), "handlers", [])
    monkeypatch.setattr(preflight_cli, "installation_findings", lambda: [Finding("NOTE", "installed", "x 1")])
    monkeypatch.setenv("AWS_ACCESS_KEY_ID", "testing")
    monkeypatch.setenv("AWS_SECRET_ACCESS_KEY", "testing")
    assert main(["preflight", SMALL, "--endpoint-url", "http://127.0.0.1:9"]) == code
    lines = capsys.readouterr().out.splitlines()
    assert lines[0] == "NOTE    installed: x 1"
    assert lines[1:-1] == [finding.line() for finding in findings]
    assert lines[-1].startswith("preflight small: ")
    assert lines[-1].endswith(verdict)


def test_the_clients_go_to_the_endpoint_and_ecr_to_the_images_region() -> None:
    import boto3

    session = boto3.session.Session(
        region_name="eu-west-1", aws_access_key_id="testing", aws_secret_access_key="testing"
    )
    clients = preflight_cli.clients(session, "http://127.0.0.1:4566")
    assert clients.iam.meta.endpoint_url == "http://127.0.0.1:4566"
    assert clients.service_quotas.meta.region_name == "eu-west-1"
    assert clients.ecr("us-east-1").meta.region_name == "us-east-1"


def test_it_says_which_versions_are_installed_and_what_each_feature_becomes(monkeypatch) -> None:
    from sagemaker_fleet import compat
    from sagemaker_fleet.cli.preflight import installation_findings

    monkeypatch.setattr(
        compat,
        "features",
        lambda: [
            compat.Feature("Fleet tab on a run's page", False, "the Fleet view is a page of its own"),
            compat.Feature("OpenLineage emission_policy", True, ""),
        ],
    )
    lines = [finding.line() for finding in installation_findings()]
    assert lines[0].startswith("NOTE    installed: apache-airflow 3.")
    assert "apache-airflow-providers-amazon 9." in lines[0]
    assert lines[1:] == [
        "NOTE    feature Fleet tab on a run's page: not on this installation; the Fleet view is a page of its own",
        "OK      feature OpenLineage emission_policy: available",
    ]
