"""``preflight``'s calls against the command line's policy (``--part pilot``): every call preflight makes for a
spec is allowed by the policy generated for that spec, and every permission preflight names when a check is
refused is one the policy grants."""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import pytest
from botocore.exceptions import ClientError

from policy_check import IamRequest, PolicyChecker
from sagemaker_fleet.iam import PolicyScope, policy_part
from sagemaker_fleet.plan import plan_fleet
from sagemaker_fleet.preflight.checks import AccountClients, preflight
from unit.iam.fleets import ACCOUNT, RUN_KEY, demo

if TYPE_CHECKING:
    from sagemaker_fleet.fleetspec.model import FleetSpec

TRUST = '{"Statement": [{"Effect": "Allow", "Principal": {"Service": "sagemaker.amazonaws.com"}}]}'


class Recorder:
    """Every client preflight is given: records each call as the IAM request it is, and answers it (or refuses
    it with AccessDenied when ``deny``)."""

    def __init__(self, spec: FleetSpec, *, deny: bool = False) -> None:
        self.deny = deny
        self.asked: list[IamRequest] = []
        self.roles = {
            role.rsplit("/", 1)[1]: role for role in {spec.role_arn, *(c.role_arn for c in spec.cities)}
        }
        self.region = spec.region

    def _call(self, request: IamRequest, answer: dict[str, Any], operation: str) -> dict[str, Any]:
        self.asked.append(request)
        if self.deny:
            raise ClientError({"Error": {"Code": "AccessDenied", "Message": "no"}}, operation)
        return answer

    # STS, Service Quotas, IAM, S3
    def get_caller_identity(self) -> dict[str, Any]:
        return {"Account": ACCOUNT, "Arn": f"arn:aws:iam::{ACCOUNT}:user/me"}  # needs no permission

    def list_service_quotas(self, **request: Any) -> dict[str, Any]:
        asked = IamRequest("servicequotas:ListServiceQuotas", "*", region=self.region)
        return self._call(asked, {"Quotas": []}, "ListServiceQuotas")

    def get_role(self, RoleName: str) -> dict[str, Any]:  # noqa: N803 - boto3's name
        arn = self.roles[RoleName]
        answer = {"Role": {"Arn": arn, "AssumeRolePolicyDocument": TRUST}}
        return self._call(IamRequest("iam:GetRole", arn, region=None), answer, "GetRole")

    def list_objects_v2(self, Bucket: str, Prefix: str = "", **request: Any) -> dict[str, Any]:  # noqa: N803
        asked = IamRequest(
            "s3:ListBucket", f"arn:aws:s3:::{Bucket}", {"s3:prefix": Prefix}, region=self.region
        )
        return self._call(asked, {"Contents": [{"Key": f"{Prefix}x"}]}, "ListObjectsV2")

    def ecr(self, region: str) -> Any:
        recorder = self

        class Ecr:
            def describe_images(self, registryId: str, repositoryName: str, **request: Any) -> dict[str, Any]:  # noqa: N803
                arn = f"arn:aws:ecr:{region}:{registryId}:repository/{repositoryName}"
                asked = IamRequest("ecr:DescribeImages", arn, region=region)
                return recorder._call(asked, {"imageDetails": [{}]}, "DescribeImages")

        return Ecr()

    def clients(self) -> AccountClients:
        return AccountClients(sts=self, service_quotas=self, iam=self, s3=self, ecr=self.ecr)


def run_preflight(spec: FleetSpec, *, deny: bool = False) -> tuple[Recorder, list[str]]:
    recorder = Recorder(spec, deny=deny)
    findings = preflight(spec, plan_fleet(spec, RUN_KEY), recorder.clients())
    return recorder, [finding.line() for finding in findings]


MAKERS: list[Callable[[], FleetSpec]] = [demo]


@pytest.mark.node
@pytest.mark.parametrize("make", MAKERS)
def test_every_call_preflight_makes_is_allowed_by_the_command_lines_policy(
    policy_checker: PolicyChecker, make: Callable[[], FleetSpec]
) -> None:
    spec = make()
    recorder, lines = run_preflight(spec)
    assert not [line for line in lines if line.startswith("ERROR") or "the check needs" in line], lines
    kinds = {request.action for request in recorder.asked}
    assert kinds == {"servicequotas:ListServiceQuotas", "iam:GetRole", "s3:ListBucket", "ecr:DescribeImages"}
    pilot = policy_part("pilot", spec, PolicyScope.of(spec)).document()
    refused = [
        (d.request.action, d.request.resource, dict(d.request.context))
        for d in policy_checker.decide({"pilot": pilot}, recorder.asked, ACCOUNT)
        if not d.allowed
    ]
    assert refused == []


def test_every_permission_preflight_names_is_granted_by_the_command_lines_policy() -> None:
    spec = demo()
    _, lines = run_preflight(spec, deny=True)
    named = set()
    for line in lines:
        named |= set(re.findall(r"\b(?:servicequotas|iam|s3|ecr):[A-Za-z]+", line))
    assert named >= {"servicequotas:ListServiceQuotas", "iam:GetRole", "s3:ListBucket", "ecr:DescribeImages"}
    granted = policy_part("pilot", spec, PolicyScope.of(spec)).actions
    # the board's s3:GetObject (and s3:PutObject) are named for the runs, which read and post there; preflight only
    # lists the board (s3:PutObject is granted for `report`'s upload)
    assert named - granted == {"s3:GetObject"}
