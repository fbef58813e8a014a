"""The account's quotas against the plan and the spec (pure): an instance quota of 0 stops the run, a warm-pool quota
of 0 is the loudest warning, the lower of spec and account wins, and each line names what to change."""

from __future__ import annotations

from pathlib import Path

import pytest

from sagemaker_fleet.fleetspec import load_fleet_spec
from sagemaker_fleet.fleetspec.model import FleetSpec, InstanceQuota
from sagemaker_fleet.plan import FleetPlan, plan_fleet
from sagemaker_fleet.preflight.findings import Finding, exit_code
from sagemaker_fleet.preflight.quota_checks import quota_findings

SPEC = """
fleet: pre
region: us-east-1
role_arn: arn:aws:iam::123456789012:role/FleetTraining
image_uri: 123456789012.dkr.ecr.us-east-1.amazonaws.com/demand:1.4
output_s3_uri: s3://pre-bucket/fleets/pre
{quotas}
defaults: {{instance_type: ml.m5.xlarge, expected_seconds: 600}}
cities:
  - {{name: tokyo, train_s3_uri: "s3://pre-bucket/data/tokyo/"}}
  - {{name: lima, train_s3_uri: "s3://pre-bucket/data/lima/"}}
  - {{name: oslo, train_s3_uri: "s3://pre-bucket/data/oslo/"}}
  - {{name: cairo, train_s3_uri: "s3://pre-bucket/data/cairo/"}}
  - {{name: seoul, train_s3_uri: "s3://pre-bucket/data/seoul/"}}
  - {{name: quito, train_s3_uri: "s3://pre-bucket/data/quito/", spot: {{max_wait_seconds: 14400}}}}
"""
QUOTAS = "quotas:\n  ml.m5.xlarge: {instances: 4, warm_pools: 2, spot_instances: 1}"


def planned(tmp_path: Path, quotas: str = QUOTAS) -> tuple[FleetSpec, FleetPlan]:
    path = tmp_path / "pre.yaml"
    path.write_text(SPEC.format(quotas=quotas))
    spec = load_fleet_spec(path)
    return spec, plan_fleet(spec, "20261129")


def by_subject(findings: list[Finding]) -> dict[str, Finding]:
    return {finding.subject: finding for finding in findings}


def test_the_plan_needs_what_the_checks_compare(tmp_path: Path) -> None:
    _, plan = planned(tmp_path)
    (request,) = plan.summary.quota_request
    assert (request.instances, request.warm_pools, request.spot_instances) == (3, 2, 1)


def test_an_account_matching_the_spec_is_all_ok(tmp_path: Path) -> None:
    spec, plan = planned(tmp_path)
    findings = quota_findings(spec, plan, {"ml.m5.xlarge": InstanceQuota(4, 2, 1)})
    assert [f.level for f in findings] == ["OK", "OK", "OK"]
    assert [f.subject for f in findings] == [
        "quota ml.m5.xlarge instances",
        "quota ml.m5.xlarge warm pools",
        "quota ml.m5.xlarge spot instances",
    ]
    assert by_subject(findings)["quota ml.m5.xlarge instances"].text == (
        "the account allows 4; the plan holds at most 3 at once"
    )


def test_no_warm_pool_quota_is_a_loud_warning_not_an_error(tmp_path: Path) -> None:
    spec, plan = planned(tmp_path)
    findings = quota_findings(spec, plan, {"ml.m5.xlarge": InstanceQuota(4, 0, 1)})
    pools = by_subject(findings)["quota ml.m5.xlarge warm pools"]
    assert pools.level == "WARNING"
    assert pools.text.startswith("NO WARM POOLS")
    assert "EVERY START IS COLD" in pools.text
    assert "'ml.m5.xlarge for training warm pool usage' is 0" in pools.text
    assert "Request at least 2" in pools.text
    assert exit_code(findings) == 0  # the run works, every start cold


def test_fewer_pools_than_the_plan_keeps(tmp_path: Path) -> None:
    spec, plan = planned(tmp_path)
    pools = by_subject(quota_findings(spec, plan, {"ml.m5.xlarge": InstanceQuota(4, 1, 1)}))[
        "quota ml.m5.xlarge warm pools"
    ]
    assert pools.level == "WARNING"
    assert "the plan keeps up to 2 pool instances at once, the account allows 1" in pools.text
    assert "set quotas.ml.m5.xlarge.warm_pools to 1" in pools.text


def test_no_instances_for_cities_that_need_them_is_an_error_naming_them(tmp_path: Path) -> None:
    spec, plan = planned(tmp_path)
    findings = quota_findings(spec, plan, {"ml.m5.xlarge": InstanceQuota(0, 0, 1)})
    instances = by_subject(findings)["quota ml.m5.xlarge instances"]
    assert instances.level == "ERROR"
    assert "tokyo, lima, oslo, cairo, seoul" in instances.text
    assert "quito" not in instances.text  # the spot city has its own quota
    assert exit_code(findings) == 2


def test_no_spot_quota_for_spot_cities_is_an_error(tmp_path: Path) -> None:
    spec, plan = planned(tmp_path)
    spot = by_subject(quota_findings(spec, plan, {"ml.m5.xlarge": InstanceQuota(4, 2, 0)}))[
        "quota ml.m5.xlarge spot instances"
    ]
    assert spot.level == "ERROR"
    assert "no spot job of quito can start" in spot.text


def test_an_account_below_the_plans_peak_wins(tmp_path: Path) -> None:
    spec, plan = planned(tmp_path)
    instances = by_subject(quota_findings(spec, plan, {"ml.m5.xlarge": InstanceQuota(2, 2, 1)}))[
        "quota ml.m5.xlarge instances"
    ]
    assert instances.level == "WARNING"
    assert "the plan holds up to 3 at once, the account allows 2: the lower wins" in instances.text
    assert "ResourceLimitExceeded" in instances.text
    assert "set quotas.ml.m5.xlarge.instances to 2" in instances.text


def test_a_spec_above_the_account_warns_even_when_this_plan_fits(tmp_path: Path) -> None:
    spec, plan = planned(tmp_path)  # the spec says 4 instances, the plan holds 3
    instances = by_subject(quota_findings(spec, plan, {"ml.m5.xlarge": InstanceQuota(3, 2, 1)}))[
        "quota ml.m5.xlarge instances"
    ]
    assert instances.level == "WARNING"
    assert "the spec says 4, the account allows 3: the lower wins. This plan fits" in instances.text


def test_an_account_above_the_spec_is_a_note(tmp_path: Path) -> None:
    spec, plan = planned(tmp_path)
    findings = by_subject(quota_findings(spec, plan, {"ml.m5.xlarge": InstanceQuota(40, 10, 5)}))
    assert findings["quota ml.m5.xlarge instances"].level == "NOTE"
    assert "the account allows 40, the spec says 4: the lower wins, so the plan uses 4" in (
        findings["quota ml.m5.xlarge instances"].text
    )
    assert findings["quota ml.m5.xlarge warm pools"].level == "NOTE"


def test_spot_sharing_the_instance_quota_when_the_account_lists_no_spot_quota(tmp_path: Path) -> None:
    spec, plan = planned(tmp_path)
    spot = by_subject(quota_findings(spec, plan, {"ml.m5.xlarge": InstanceQuota(4, 2, None)}))[
        "quota ml.m5.xlarge spot instances"
    ]
    assert spot.level == "NOTE"  # 4 allowed against the spec's 1
    assert "the account allows 4, the spec says 1" in spot.text


def test_a_type_the_account_does_not_list(tmp_path: Path) -> None:
    spec, plan = planned(tmp_path)
    (finding,) = quota_findings(spec, plan, {})
    assert finding.level == "WARNING"
    assert "lists no 'ml.m5.xlarge for training job usage' in us-east-1" in finding.text


def test_a_spec_without_quotas_is_told_the_accounts(tmp_path: Path) -> None:
    spec, plan = planned(tmp_path, quotas="")
    findings = quota_findings(spec, plan, {"ml.m5.xlarge": InstanceQuota(6, 3, 2)})
    note = findings[-1]
    assert note.level == "NOTE"
    assert note.text.endswith("quotas: {ml.m5.xlarge: {instances: 6, warm_pools: 3, spot_instances: 2}}")
    # the plan assumed no warm pools (AWS's default), so the account's 3 are more than it uses
    assert by_subject(findings)["quota ml.m5.xlarge warm pools"].level == "OK"


@pytest.mark.parametrize(
    ("pools", "said"),
    [(0, "every start of ml.m5.xlarge is cold"), (3, "raise quotas.ml.m5.xlarge.warm_pools to use more")],
)
def test_a_plan_keeping_no_pool_is_a_note(tmp_path: Path, pools: int, said: str) -> None:
    spec, plan = planned(tmp_path, quotas="quotas:\n  ml.m5.xlarge: {instances: 4, warm_pools: 0}")
    assert plan.summary.quota_request[0].warm_pools == 0
    finding = by_subject(quota_findings(spec, plan, {"ml.m5.xlarge": InstanceQuota(4, pools)}))[
        "quota ml.m5.xlarge warm pools"
    ]
    assert finding.level == "NOTE"
    assert said in finding.text
