"""The evaluator the policy tests trust, held to AWS's documented evaluation rules in the cases the generated
policies rely on ("Policy evaluation logic" and "Condition operators" in the IAM User Guide). A new evaluator
version that read them otherwise fails here first."""

from __future__ import annotations

from typing import Any

import pytest

from policy_check import IamRequest, PolicyChecker

pytestmark = pytest.mark.node

ACCOUNT = "111122223333"
JOB = f"arn:aws:sagemaker:us-east-1:{ACCOUNT}:training-job/citydemand-oslo-20261129"


def allow(condition: dict[str, Any], effect: str = "Allow") -> dict[str, Any]:
    statement = {"Effect": effect, "Action": "sagemaker:CreateTrainingJob", "Resource": "*"}
    if condition:
        statement["Condition"] = condition
    return {"Version": "2012-10-17", "Statement": [statement]}


def decide(checker: PolicyChecker, policies: dict[str, dict[str, Any]], **context: Any) -> str:
    request = IamRequest("sagemaker:CreateTrainingJob", JOB, context)
    return checker.decide(policies, [request], ACCOUNT)[0].result


TYPES = {"sagemaker:InstanceTypes": ["ml.m5.xlarge"]}


def test_for_all_values_is_true_of_a_request_without_the_key(policy_checker: PolicyChecker) -> None:
    """Why every ForAllValues condition of a generated policy has a Null false beside it."""
    only = allow({"ForAllValues:StringEquals": TYPES})
    assert decide(policy_checker, {"p": only}) == "Allowed"
    guarded = allow({"ForAllValues:StringEquals": TYPES, "Null": {"sagemaker:InstanceTypes": "false"}})
    assert decide(policy_checker, {"p": guarded}) == "ImplicitlyDenied"
    assert decide(policy_checker, {"p": guarded}, **TYPES) == "Allowed"
    both = {"sagemaker:InstanceTypes": ["ml.m5.xlarge", "ml.p4d.24xlarge"]}
    assert decide(policy_checker, {"p": guarded}, **both) == "ImplicitlyDenied"


def test_if_exists_is_true_of_a_request_without_the_key(policy_checker: PolicyChecker) -> None:
    policy = allow({"NumericLessThanEqualsIfExists": {"sagemaker:KeepAlivePeriod": "300"}})
    assert decide(policy_checker, {"p": policy}) == "Allowed"
    assert decide(policy_checker, {"p": policy}, **{"sagemaker:KeepAlivePeriod": "300"}) == "Allowed"
    assert decide(policy_checker, {"p": policy}, **{"sagemaker:KeepAlivePeriod": "301"}) == "ImplicitlyDenied"


def test_without_if_exists_a_missing_key_fails_the_condition(policy_checker: PolicyChecker) -> None:
    policy = allow({"NumericLessThanEquals": {"sagemaker:MaxRuntimeInSeconds": "7200"}})
    assert decide(policy_checker, {"p": policy}) == "ImplicitlyDenied"


def test_numeric_conditions_compare_numbers_not_text(policy_checker: PolicyChecker) -> None:
    policy = allow({"NumericLessThanEquals": {"sagemaker:MaxRuntimeInSeconds": "900"}})
    assert (
        decide(policy_checker, {"p": policy}, **{"sagemaker:MaxRuntimeInSeconds": "1000"})
        == "ImplicitlyDenied"
    )
    assert decide(policy_checker, {"p": policy}, **{"sagemaker:MaxRuntimeInSeconds": "90"}) == "Allowed"


def test_a_failed_condition_on_an_allow_is_an_implicit_deny_and_a_matching_deny_wins(
    policy_checker: PolicyChecker,
) -> None:
    allowed = allow({"NumericLessThanEquals": {"sagemaker:MaxRuntimeInSeconds": "900"}})
    anything = allow({})
    deny = allow({"NumericGreaterThan": {"sagemaker:MaxRuntimeInSeconds": "900"}}, effect="Deny")
    long = {"sagemaker:MaxRuntimeInSeconds": "1000"}
    assert decide(policy_checker, {"a": allowed, "b": anything}, **long) == "Allowed"
    assert decide(policy_checker, {"a": anything, "d": deny}, **long) == "ExplicitlyDenied"
