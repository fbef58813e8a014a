"""The generated policies as values (no evaluator): the scope they are written for, what each part grants and
leaves out, and the errors that name their fix. Whether IAM allows or refuses a request under them:
test_policy_evaluation.py."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

from sagemaker_fleet.iam import PARTS, PolicyScope, PolicyScopeError, Statement, policy_part
from sagemaker_fleet.iam import parts as parts_module
from sagemaker_fleet.iam.launch import launch_statements
from unit.iam.fleets import ACCOUNT, demo, locked, small

if TYPE_CHECKING:
    from sagemaker_fleet.fleetspec.model import FleetSpec


def statements(name: str, spec: FleetSpec, **scope: object) -> dict[str, dict[str, object]]:
    part = policy_part(name, spec, PolicyScope.of(spec, **scope))  # type: ignore[arg-type]
    return {s["Sid"]: s for s in part.document()["Statement"]}


def test_the_account_is_the_roles_or_the_one_given() -> None:
    spec = demo()
    assert PolicyScope.of(spec).account == ACCOUNT
    assert PolicyScope.of(spec, "444455556666").jobs_arn() == (
        "arn:aws:sagemaker:us-east-1:444455556666:training-job/citydemand-*"
    )
    other = dataclasses.replace(
        spec, cities=(dataclasses.replace(spec.cities[0], role_arn="arn:aws:iam::444455556666:role/X"),)
    )
    with pytest.raises(PolicyScopeError, match="2 accounts .*--account-id"):
        PolicyScope.of(other)
    with pytest.raises(PolicyScopeError, match="12 digits"):
        PolicyScope.of(spec, "1234")


@pytest.mark.parametrize("name", ["citydemand", "week-ly", "Weekly", ""])
def test_describe_fleet_names_another_fleet(name: str) -> None:
    with pytest.raises(PolicyScopeError, match="--describe-fleet"):
        PolicyScope.of(demo(), describe_fleets=(name,))


def test_the_job_statements_name_the_fleets_prefix_only() -> None:
    granted = statements("airflow", demo())
    for statement in granted.values():
        for resource in (
            [statement["Resource"]] if isinstance(statement["Resource"], str) else statement["Resource"]
        ):
            assert ":training-job/" not in resource or resource.endswith(":training-job/citydemand-*")
    assert "sagemaker:DescribeTrainingJob" in granted["ReadTagAndStopTheFleetsJobsOnly"]["Action"]
    assert "DescribeTheseOtherFleetsJobs" not in granted
    with_weekly = statements("airflow", demo(), describe_fleets=("weekly",))
    assert with_weekly["DescribeTheseOtherFleetsJobs"]["Resource"] == (
        "arn:aws:sagemaker:us-east-1:111122223333:training-job/weekly-*"
    )


def test_one_launch_statement_per_instance_type_with_its_own_ceilings(tmp_path: Path) -> None:
    spec = locked(tmp_path)
    launches = {s.sid: s.conditions for s in launch_statements(spec, PolicyScope.of(spec))}
    assert set(launches) == {"LaunchTheFleetsJobsOnMlG5Xlarge", "LaunchTheFleetsJobsOnMlM5Xlarge"}
    gpu, cpu = launches["LaunchTheFleetsJobsOnMlG5Xlarge"], launches["LaunchTheFleetsJobsOnMlM5Xlarge"]
    assert gpu["NumericLessThanEquals"] == {"sagemaker:MaxRuntimeInSeconds": "1800"}
    assert cpu["NumericLessThanEquals"] == {"sagemaker:MaxRuntimeInSeconds": "5400"}
    assert gpu["NumericLessThanEqualsIfExists"] == {"sagemaker:KeepAlivePeriod": "1800"}
    assert cpu["NumericLessThanEqualsIfExists"] == {"sagemaker:KeepAlivePeriod": "3600"}  # auto's ceiling
    assert gpu["ForAllValues:StringEquals"]["sagemaker:VpcSubnets"] == ["subnet-0a3"]
    assert cpu["ForAllValues:StringEquals"]["sagemaker:VpcSubnets"] == ["subnet-0a1", "subnet-0a2"]
    assert cpu["Bool"] == {"sagemaker:NetworkIsolation": "true"}
    assert cpu["Null"]["sagemaker:VpcSubnets"] == "false"


def test_a_spot_only_type_keeps_no_pool() -> None:
    spec = small()
    spot_only = dataclasses.replace(
        spec,
        cities=tuple(
            dataclasses.replace(c, instance_type="ml.c5.xlarge") if c.spot is not None else c
            for c in spec.cities
        ),
    )
    launches = {s.sid: s.conditions for s in launch_statements(spot_only, PolicyScope.of(spot_only))}
    assert launches["LaunchTheFleetsJobsOnMlC5Xlarge"]["NumericLessThanEqualsIfExists"] == {
        "sagemaker:KeepAlivePeriod": "0"
    }


@pytest.mark.parametrize("key", ["alias/fleet", "0b6c5c1e-1111-4a4a-9d9d-000000000001"])
def test_a_kms_key_not_named_by_its_arn_is_refused_with_the_fix(key: str) -> None:
    spec = demo()
    spec = dataclasses.replace(spec, cities=(dataclasses.replace(spec.cities[0], volume_kms_key_id=key),))
    with pytest.raises(PolicyScopeError, match=r"city tokyo: volume_kms_key_id .*write the key's ARN"):
        launch_statements(spec, PolicyScope.of(spec))


def test_the_view_and_the_command_line_create_tag_end_and_stop_nothing() -> None:
    spec = demo()
    scope = PolicyScope.of(spec)
    writes = {
        "sagemaker:CreateTrainingJob",
        "sagemaker:AddTags",
        "sagemaker:UpdateTrainingJob",
        "sagemaker:StopTrainingJob",
        "iam:PassRole",
    }
    assert writes <= policy_part("airflow", spec, scope).actions
    assert not writes & policy_part("view", spec, scope).actions
    assert not writes & policy_part("pilot", spec, scope).actions


def test_without_sharing_there_is_no_board_statement() -> None:
    spec = demo()
    assert "ReadAndPostOnTheAccountsBoard" in statements("airflow", spec)
    alone = dataclasses.replace(spec, sharing=None)
    assert not [sid for sid in statements("airflow", alone) if "Board" in sid]


def test_every_part_is_a_valid_document_below_the_managed_policy_size() -> None:
    spec = demo()
    scope = PolicyScope.of(spec)
    for name in PARTS:
        part = policy_part(name, spec, scope)
        document = json.loads(json.dumps(part.document()))
        assert document["Version"] == "2012-10-17"
        assert len({s["Sid"] for s in document["Statement"]}) == len(document["Statement"])
        assert part.size() < 6144
        assert part.notes


def test_a_section_added_to_a_part_adds_its_statements(monkeypatch: pytest.MonkeyPatch) -> None:
    """How the Model Registry's statements (a ``register:`` section) join a part: one more section function."""

    def registry(spec: FleetSpec, scope: PolicyScope) -> list[Statement]:
        return [Statement("RegisterTheFleetsModels", ("sagemaker:CreateModelPackage",), ("*",))]

    principal, sections = PARTS["airflow"]
    monkeypatch.setitem(parts_module.PARTS, "airflow", (principal, (*sections, registry)))
    assert "RegisterTheFleetsModels" in statements("airflow", demo())


def test_a_statement_id_iam_would_refuse_is_an_error() -> None:
    with pytest.raises(ValueError, match="letters and digits"):
        Statement("Not-Allowed", ("s3:GetObject",), ("*",))
