"""The simulated Model Registry over HTTP with boto3: groups, versioned packages, ClientToken, listing, approval,
the shapes botocore's model gives, and the faults a registry call can meet (throttling, a lost answer)."""

from __future__ import annotations

import datetime as dt
import types
from typing import TYPE_CHECKING, Any

import botocore.endpoint
import pytest
from botocore.config import Config
from botocore.exceptions import ClientError

if TYPE_CHECKING:
    from sagemaker_fleet.sim.client import SimClient

pytestmark = pytest.mark.integration

INFERENCE = {
    "Containers": [
        {
            "Image": "111122223333.dkr.ecr.us-east-1.amazonaws.com/demand-serve:2.1",
            "ModelDataUrl": "s3://acme-ml/models/seoul/model.tar.gz",
        }
    ],
    "SupportedContentTypes": ["text/csv"],
    "SupportedResponseMIMETypes": ["text/csv"],
}


@pytest.fixture(autouse=True)
def no_backoff(monkeypatch: pytest.MonkeyPatch) -> None:
    """botocore sleeps between retries; the retries themselves are what these tests check."""
    monkeypatch.setattr(botocore.endpoint, "time", types.SimpleNamespace(sleep=lambda seconds: None))


def package(sm: Any, group: str, **extra: Any) -> str:
    arn: str = sm.create_model_package(
        ModelPackageGroupName=group, InferenceSpecification=INFERENCE, **extra
    )["ModelPackageArn"]
    return arn


def test_a_group_is_created_described_and_refused_twice(sim: SimClient) -> None:
    sm = sim.boto3_client("sagemaker")
    with pytest.raises(ClientError) as missing:
        sm.describe_model_package_group(ModelPackageGroupName="demand-seoul")
    assert missing.value.response["Error"]["Code"] == "ValidationException"
    assert "does not exist" in missing.value.response["Error"]["Message"]
    arn = sm.create_model_package_group(
        ModelPackageGroupName="demand-seoul",
        ModelPackageGroupDescription="Seoul's models",
        Tags=[{"Key": "team", "Value": "forecasting"}],
    )["ModelPackageGroupArn"]
    assert arn == "arn:aws:sagemaker:us-east-1:123456789012:model-package-group/demand-seoul"
    described = sm.describe_model_package_group(ModelPackageGroupName="demand-seoul")
    assert described["ModelPackageGroupArn"] == arn
    assert described["ModelPackageGroupStatus"] == "Completed"
    assert described["ModelPackageGroupDescription"] == "Seoul's models"
    assert sm.list_tags(ResourceArn=arn)["Tags"] == [{"Key": "team", "Value": "forecasting"}]
    with pytest.raises(ClientError) as twice:
        sm.create_model_package_group(ModelPackageGroupName="demand-seoul")
    assert twice.value.response["Error"]["Code"] == "ValidationException"
    assert "already exists" in twice.value.response["Error"]["Message"]


def test_packages_are_versions_and_a_client_token_makes_one(sim: SimClient) -> None:
    sm = sim.boto3_client("sagemaker")
    sm.create_model_package_group(ModelPackageGroupName="demand-seoul")
    first = package(sm, "demand-seoul", ClientToken="demand-seoul-20261129", ModelApprovalStatus="Approved")
    again = package(sm, "demand-seoul", ClientToken="demand-seoul-20261129", ModelApprovalStatus="Rejected")
    second = package(
        sm,
        "demand-seoul",
        ClientToken="demand-seoul-20261130",
        ModelPackageDescription="trained by demand-seoul-20261130",
        CustomerMetadataProperties={
            "sagemaker-fleet:metric": "validation:rmse",
            "sagemaker-fleet:value": "0.41",
        },
    )
    assert first == again == "arn:aws:sagemaker:us-east-1:123456789012:model-package/demand-seoul/1"
    assert second.endswith("/demand-seoul/2")
    described = sm.describe_model_package(ModelPackageName=second)
    assert described["ModelPackageVersion"] == 2
    assert described["ModelPackageGroupName"] == "demand-seoul"
    assert described["ModelApprovalStatus"] == "PendingManualApproval"  # AWS's default
    assert described["ModelPackageStatus"] == "Completed"
    assert described["InferenceSpecification"] == INFERENCE
    assert described["CustomerMetadataProperties"]["sagemaker-fleet:value"] == "0.41"
    assert described["ModelPackageDescription"] == "trained by demand-seoul-20261130"
    assert sm.describe_model_package(ModelPackageName=first)["ModelApprovalStatus"] == "Approved"
    assert [p["client_token"] for p in sim.registry()["packages"]] == [
        "demand-seoul-20261129",
        "demand-seoul-20261130",
    ]


def test_a_package_needs_an_existing_group_and_an_inference_specification(sim: SimClient) -> None:
    sm = sim.boto3_client("sagemaker")
    with pytest.raises(ClientError) as no_group:
        package(sm, "nowhere")
    assert "ModelPackageGroup nowhere does not exist" in no_group.value.response["Error"]["Message"]
    sm.create_model_package_group(ModelPackageGroupName="g")
    with pytest.raises(ClientError) as no_inference:
        sm.create_model_package(ModelPackageGroupName="g")
    assert "InferenceSpecification is required" in no_inference.value.response["Error"]["Message"]


def test_botocore_s_shapes_are_checked_at_the_front_door(sim: SimClient) -> None:
    raw = sim.boto3_client("sagemaker", config=Config(parameter_validation=False))
    raw.create_model_package_group(ModelPackageGroupName="g")
    with pytest.raises(ClientError) as refused:
        raw.create_model_package(
            ModelPackageGroupName="g",
            InferenceSpecification={"Containers": []},
            ModelApprovalStatus="Maybe",
            ClientToken="x" * 37,
        )
    message = refused.value.response["Error"]["Message"]
    assert refused.value.response["Error"]["Code"] == "ValidationException"
    assert "3 validation errors detected" in message
    assert "'modelApprovalStatus' failed to satisfy constraint: Member must satisfy enum value set" in message
    assert (
        "'clientToken' failed to satisfy constraint: Member must have length less than or equal to 36"
        in message
    )
    assert "'inferenceSpecification.containers' failed" in message


def test_listing_filters_sorts_and_pages(sim: SimClient) -> None:
    sm = sim.boto3_client("sagemaker")
    for group in ("demand-seoul", "demand-lagos"):
        sm.create_model_package_group(ModelPackageGroupName=group)
    statuses = ["Approved", "Rejected", "Approved", "PendingManualApproval", "Rejected"]
    arns = []
    for status in statuses:
        arns.append(package(sm, "demand-seoul", ModelApprovalStatus=status))
        sim.advance(10)
    package(sm, "demand-lagos", ModelApprovalStatus="Approved")

    def listed(**kwargs: Any) -> list[str]:
        summaries = sm.list_model_packages(**kwargs)["ModelPackageSummaryList"]
        return [s["ModelPackageArn"] for s in summaries]

    assert listed(ModelPackageGroupName="demand-seoul", MaxResults=100) == arns  # oldest first by default
    newest_approved = listed(
        ModelPackageGroupName="demand-seoul",
        ModelApprovalStatus="Approved",
        SortBy="CreationTime",
        SortOrder="Descending",
        MaxResults=1,
    )
    assert newest_approved == [arns[2]]
    created = sm.describe_model_package(ModelPackageName=arns[2])["CreationTime"]
    # 5 s either side of the third package (10 s between packages): botocore 1.39 sends whole seconds only
    after, before = created + dt.timedelta(seconds=5), created - dt.timedelta(seconds=5)
    assert listed(ModelPackageGroupName="demand-seoul", CreationTimeAfter=after) == arns[3:]
    assert listed(ModelPackageGroupName="demand-seoul", CreationTimeBefore=before) == arns[:2]
    assert len(listed(ModelPackageType="Both", MaxResults=100)) == 6
    assert listed(ModelPackageType="Both", NameContains="lagos", MaxResults=100) == [
        "arn:aws:sagemaker:us-east-1:123456789012:model-package/demand-lagos/1"
    ]
    assert listed() == []  # unversioned packages only, by default: the simulator has none
    pages, token = [], None
    while True:
        page = sm.list_model_packages(
            ModelPackageGroupName="demand-seoul", MaxResults=2, **({"NextToken": token} if token else {})
        )
        pages.append([s["ModelPackageArn"] for s in page["ModelPackageSummaryList"]])
        token = page.get("NextToken")
        if not token:
            break
    assert pages == [arns[0:2], arns[2:4], arns[4:5]]
    paginator = sm.get_paginator("list_model_packages")
    walked = [
        s["ModelPackageArn"]
        for page in paginator.paginate(ModelPackageGroupName="demand-seoul", PaginationConfig={"PageSize": 2})
        for s in page["ModelPackageSummaryList"]
    ]
    assert walked == arns
    with pytest.raises(ClientError) as foreign:
        sm.list_model_packages(ModelPackageGroupName="demand-lagos", NextToken=page_token_of(sm))
    assert "Invalid pagination token" in foreign.value.response["Error"]["Message"]


def page_token_of(sm: Any) -> str:
    token: str = sm.list_model_packages(ModelPackageGroupName="demand-seoul", MaxResults=1)["NextToken"]
    return token


def test_a_person_approves_and_rejects_through_update_model_package(sim: SimClient) -> None:
    sm = sim.boto3_client("sagemaker")
    sm.create_model_package_group(ModelPackageGroupName="g")
    arn = package(sm, "g", CustomerMetadataProperties={"a": "1", "b": "2"})
    before = sm.describe_model_package(ModelPackageName=arn)["LastModifiedTime"]
    sim.advance(60)
    sm.update_model_package(
        ModelPackageArn=arn,
        ModelApprovalStatus="Rejected",
        ApprovalDescription="drifted in production",
        CustomerMetadataProperties={"c": "3"},
        CustomerMetadataPropertiesToRemove=["a"],
    )
    described = sm.describe_model_package(ModelPackageName=arn)
    assert described["ModelApprovalStatus"] == "Rejected"
    assert described["ApprovalDescription"] == "drifted in production"
    assert described["CustomerMetadataProperties"] == {"b": "2", "c": "3"}
    assert described["LastModifiedTime"] > before
    with pytest.raises(ClientError) as unknown:
        sm.update_model_package(ModelPackageArn=arn.replace("/1", "/9"), ModelApprovalStatus="Approved")
    assert "does not exist" in unknown.value.response["Error"]["Message"]


def test_throttled_registry_calls_are_retried_by_botocore(sim: SimClient) -> None:
    sm = sim.boto3_client("sagemaker", config=Config(retries={"mode": "standard", "max_attempts": 10}))
    sm.create_model_package_group(ModelPackageGroupName="g")
    sim.throttle(0.5, ["CreateModelPackage", "ListModelPackages"])
    for index in range(10):
        package(sm, "g", ClientToken=f"job-{index}")
    listed = sm.list_model_packages(ModelPackageGroupName="g", MaxResults=100)["ModelPackageSummaryList"]
    assert len(listed) == 10
    assert sim.calls()["throttled"]["CreateModelPackage"] > 0


def test_a_lost_answer_retried_with_its_client_token_makes_one_package(sim: SimClient) -> None:
    """The call takes effect and its answer is lost (HTTP 500): botocore retries it, and the token gives back the
    package the first try made."""
    sm = sim.boto3_client("sagemaker", config=Config(retries={"mode": "standard", "max_attempts": 10}))
    sm.create_model_package_group(ModelPackageGroupName="g")
    sim.api_errors(1.0, ["CreateModelPackage"], after_commit=True)
    with pytest.raises(ClientError) as lost:
        package(sm, "g", ClientToken="demand-seoul-20261129")
    assert lost.value.response["Error"]["Code"] == "InternalFailure"
    sim.api_errors(0.5, ["CreateModelPackage"], after_commit=True)
    arn = package(sm, "g", ClientToken="demand-seoul-20261129")
    assert [p["arn"] for p in sim.registry()["packages"]] == [arn]
    errors = sim.calls()["errors"]
    assert errors["CreateModelPackage:InternalFailure"] >= 10


def test_an_error_before_the_call_acts_leaves_nothing(sim: SimClient) -> None:
    sm = sim.boto3_client("sagemaker", config=Config(retries={"mode": "standard", "total_max_attempts": 2}))
    sim.api_errors(1.0, ["CreateModelPackageGroup"])
    with pytest.raises(ClientError):
        sm.create_model_package_group(ModelPackageGroupName="g")
    assert sim.registry()["groups"] == []
    assert sim.state()["config"]["api_errors"] == {
        "share": 1.0,
        "operations": ["CreateModelPackageGroup"],
        "after_commit": False,
    }
