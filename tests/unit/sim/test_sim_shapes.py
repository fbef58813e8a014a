"""The front-door check against the botocore model: AWS-shaped ValidationException messages."""

from __future__ import annotations

from typing import Any

import pytest

from sagemaker_fleet.fleetspec import load_fleet_spec
from sagemaker_fleet.jobs.request import Submission, compile_training_request
from sagemaker_fleet.sim import SimApiError
from sagemaker_fleet.sim.server.shapes import ShapeChecker
from sim_fixtures import make_request


@pytest.fixture(scope="module")
def checker() -> ShapeChecker:
    return ShapeChecker()


def message(checker: ShapeChecker, operation: str, params: dict[str, Any]) -> str:
    with pytest.raises(SimApiError) as caught:
        checker.check(operation, params)
    assert caught.value.code == "ValidationException"
    return caught.value.message


def test_compiled_fleet_requests_pass(checker: ShapeChecker, fleets_dir: Any) -> None:
    fleet = load_fleet_spec(fleets_dir / "small.yaml")
    for city in fleet.cities:
        checker.check(
            "CreateTrainingJob", compile_training_request(fleet, city, Submission(city.name, "20261129"))
        )


def test_enum_violations_name_the_member(checker: ShapeChecker) -> None:
    text = message(
        checker, "CreateTrainingJob", make_request("a", ResourceConfig={"InstanceType": "ml.huge"})
    )
    assert text.startswith("1 validation error detected: Value 'ml.huge' at 'resourceConfig.instanceType'")
    assert "Member must satisfy enum value set: [" in text


def test_range_and_type_violations(checker: ShapeChecker) -> None:
    text = message(
        checker,
        "CreateTrainingJob",
        make_request("a", ResourceConfig={"KeepAlivePeriodInSeconds": 99999, "InstanceCount": "two"}),
    )
    assert "Value '99999' at 'resourceConfig.keepAlivePeriodInSeconds'" in text
    assert "Member must have value less than or equal to 21600" in text
    assert (
        "Value 'two' at 'resourceConfig.instanceCount' failed to satisfy constraint: Member must be of type"
        in text
    )


def test_list_members_are_addressed_like_aws(checker: ShapeChecker) -> None:
    request = make_request("a")
    request["InputDataConfig"][0]["ChannelName"] = "bad name!"
    assert "'inputDataConfig.1.member.channelName'" in message(checker, "CreateTrainingJob", request)


def test_structures_and_required_members(checker: ShapeChecker) -> None:
    assert "Member must be a structure" in message(
        checker, "CreateTrainingJob", {**make_request("a"), "ResourceConfig": 3}
    )
    assert "Value null at 'trainingJobName'" in message(checker, "DescribeTrainingJob", {})


def test_list_training_jobs_max_results(checker: ShapeChecker) -> None:
    assert "less than or equal to 100" in message(checker, "ListTrainingJobs", {"MaxResults": 500})


def test_unknown_members_are_ignored(checker: ShapeChecker) -> None:
    checker.check("DescribeTrainingJob", {"TrainingJobName": "a", "Extra": {"x": 1}})


def test_the_model_knows_every_sagemaker_operation(checker: ShapeChecker) -> None:
    assert {"CreateTrainingJob", "CreateModel", "ListEndpoints"} <= checker.operations
