"""Whether what a spec names exists, from the answers of IAM, S3 and ECR (stub clients): a missing role, bucket,
data prefix or image is an ERROR naming its cities; a refused check is a WARNING naming the permission."""

from __future__ import annotations

from typing import Any

import pytest
from botocore.exceptions import ClientError

from sagemaker_fleet.fleetspec.builtin_images import builtin_xgboost
from sagemaker_fleet.preflight.resources import (
    data_findings,
    image_findings,
    output_findings,
    role_findings,
    trusts_sagemaker,
)

ROLE = "arn:aws:iam::111122223333:role/team/FleetTraining"
TRUST = {
    "Version": "2012-10-17",
    "Statement": [
        {"Effect": "Allow", "Principal": {"Service": "sagemaker.amazonaws.com"}, "Action": "sts:AssumeRole"}
    ],
}
IMAGE = "111122223333.dkr.ecr.eu-west-1.amazonaws.com/demand:1.4"


def refused(code: str, operation: str) -> ClientError:
    return ClientError({"Error": {"Code": code, "Message": f"{code} says no"}}, operation)


class Iam:
    def __init__(self, roles: dict[str, dict[str, Any]] | None = None, error: str = "NoSuchEntity") -> None:
        self.roles = roles or {}
        self.error = error
        self.asked: list[str] = []

    def get_role(self, RoleName: str) -> dict[str, Any]:  # noqa: N803 - boto3's keyword
        self.asked.append(RoleName)
        if RoleName not in self.roles:
            raise refused(self.error, "GetRole")
        return {"Role": self.roles[RoleName]}


def test_a_role_that_exists_and_trusts_sagemaker() -> None:
    iam = Iam({"FleetTraining": {"Arn": ROLE, "AssumeRolePolicyDocument": TRUST}})
    (finding,) = role_findings(iam, {ROLE: ["tokyo", "lima"]})
    assert iam.asked == ["FleetTraining"]  # GetRole takes the name, without the path
    assert (finding.level, finding.subject) == ("OK", "role FleetTraining")
    assert "2 cities" in finding.text


def test_a_missing_role_is_an_error_naming_its_cities() -> None:
    cities = ["tokyo", "lima", "oslo", "cairo", "seoul", "quito", "paris"]
    (finding,) = role_findings(Iam(), {ROLE: cities})
    assert finding.level == "ERROR"
    assert ROLE in finding.text
    assert "tokyo, lima, oslo, cairo, seoul and 2 more" in finding.text


def test_a_refused_role_check_names_the_permission() -> None:
    (finding,) = role_findings(Iam(error="AccessDenied"), {ROLE: ["tokyo"]})
    assert finding.level == "WARNING"
    assert "iam:GetRole" in finding.text


def test_a_role_of_the_same_name_in_another_account() -> None:
    other = "arn:aws:iam::999999999999:role/team/FleetTraining"
    (finding,) = role_findings(
        Iam({"FleetTraining": {"Arn": other, "AssumeRolePolicyDocument": TRUST}}), {ROLE: ["a"]}
    )
    assert finding.level == "WARNING"
    assert other in finding.text
    assert ROLE in finding.text


def test_a_role_sagemaker_may_not_assume() -> None:
    lambda_trust = {"Statement": [{"Effect": "Allow", "Principal": {"Service": "lambda.amazonaws.com"}}]}
    iam = Iam({"FleetTraining": {"Arn": ROLE, "AssumeRolePolicyDocument": lambda_trust}})
    (finding,) = role_findings(iam, {ROLE: ["tokyo"]})
    assert finding.level == "WARNING"
    assert "sagemaker.amazonaws.com" in finding.text


def test_trust_policies_as_iam_and_boto3_give_them() -> None:
    assert trusts_sagemaker(TRUST)
    assert trusts_sagemaker("%7B%22Principal%22%3A%7B%22Service%22%3A%22sagemaker.amazonaws.com%22%7D%7D")
    assert not trusts_sagemaker("")


class S3:
    """Buckets → keys; ``refuse``: bucket → error code for every listing of it."""

    def __init__(self, buckets: dict[str, list[str]], refuse: dict[str, str] | None = None) -> None:
        self.buckets = buckets
        self.refuse = refuse or {}

    def list_objects_v2(self, Bucket: str, Prefix: str, MaxKeys: int) -> dict[str, Any]:  # noqa: N803
        assert MaxKeys == 1
        if Bucket in self.refuse:
            raise refused(self.refuse[Bucket], "ListObjectsV2")
        if Bucket not in self.buckets:
            raise refused("NoSuchBucket", "ListObjectsV2")
        keys = [key for key in self.buckets[Bucket] if key.startswith(Prefix)][:1]
        return {"KeyCount": len(keys), **({"Contents": [{"Key": k} for k in keys]} if keys else {})}


def test_the_output_bucket() -> None:
    assert output_findings(S3({"acme": []}), "s3://acme/fleets/x", "us-east-1")[0].level == "OK"
    (missing,) = output_findings(S3({}), "s3://acme/fleets/x", "eu-west-1")
    assert (missing.level, missing.subject) == ("ERROR", "bucket acme")
    assert "create it in eu-west-1" in missing.text
    (denied,) = output_findings(S3({}, {"acme": "AccessDenied"}), "s3://acme/fleets/x", "us-east-1")
    assert denied.level == "WARNING"
    assert "s3:ListBucket" in denied.text


def test_data_one_error_per_city_without_data_and_one_per_missing_bucket() -> None:
    s3 = S3({"data": ["tokyo/train.csv", "lima/a/part-0", "limassol/x"]}, refuse={"locked": "AccessDenied"})
    cities = {
        "tokyo": "s3://data/tokyo/",
        "lima": "s3://data/lima/",
        "oslo": "s3://data/oslo/",
        "cairo": "s3://gone/cairo/",
        "seoul": "s3://gone/seoul/",
        "quito": "s3://locked/quito/",
    }
    findings = data_findings(s3, cities, workers=3)
    assert [(f.level, f.subject) for f in findings] == [
        ("OK", "data"),
        ("ERROR", "data bucket gone"),
        ("WARNING", "data bucket locked"),
        ("ERROR", "data oslo"),
    ]
    assert findings[0].text == "training data found for 2 of 6 cities"
    assert "cairo, seoul" in findings[1].text
    assert "s3:ListBucket" in findings[2].text
    assert "s3://data/oslo/" in findings[3].text


def test_data_all_there_is_one_line() -> None:
    findings = data_findings(S3({"data": ["a/1", "b/1"]}), {"a": "s3://data/a/", "b": "s3://data/b/"})
    assert [(f.level, f.text) for f in findings] == [("OK", "training data found for 2 of 2 cities")]


class Ecr:
    def __init__(
        self, images: set[tuple[str, str, str]], repositories: set[str], error: str | None = None
    ) -> None:
        self.images, self.repositories, self.error = images, repositories, error
        self.regions: list[str] = []

    def for_region(self, region: str) -> Ecr:
        self.regions.append(region)
        return self

    def describe_images(self, registryId: str, repositoryName: str, imageIds: list[dict[str, str]]) -> Any:  # noqa: N803
        if self.error:
            raise refused(self.error, "DescribeImages")
        if repositoryName not in self.repositories:
            raise refused("RepositoryNotFoundException", "DescribeImages")
        if (registryId, repositoryName, imageIds[0].get("imageTag", "")) not in self.images:
            raise refused("ImageNotFoundException", "DescribeImages")
        return {"imageDetails": [{}]}


@pytest.mark.parametrize(
    ("ecr", "level", "said"),
    [
        (Ecr({("111122223333", "demand", "1.4")}, {"demand"}), "OK", "exists (2 cities)"),
        (Ecr(set(), {"demand"}), "ERROR", "no image demand:1.4 in registry 111122223333 (eu-west-1)"),
        (Ecr(set(), set()), "ERROR", "no repository demand in registry 111122223333 (eu-west-1)"),
        (Ecr(set(), set(), error="AccessDeniedException"), "WARNING", "ecr:DescribeImages"),
    ],
)
def test_images_in_ecr(ecr: Ecr, level: str, said: str) -> None:
    (finding,) = image_findings(ecr.for_region, {IMAGE: ["tokyo", "lima"]})
    assert ecr.regions == ["eu-west-1"]  # the image's region, not the fleet's
    assert (finding.level, finding.subject) == (level, f"image {IMAGE}")
    assert said in finding.text
    if level == "ERROR":
        assert "tokyo, lima" in finding.text


def test_an_image_outside_ecr_is_a_note() -> None:
    ecr = Ecr(set(), set())
    (finding,) = image_findings(ecr.for_region, {"ghcr.io/acme/demand:1.4": ["tokyo"]})
    assert finding.level == "NOTE"
    assert ecr.regions == []


def test_sagemakers_builtin_image_is_not_looked_up_in_ecr() -> None:
    """AWS's registries are not the account's to describe: SageMaker pulls its built-in images itself."""
    ecr = Ecr(set(), set(), error="AccessDeniedException")
    uri = builtin_xgboost().image_uri("eu-west-3")
    assert uri is not None
    (finding,) = image_findings(ecr.for_region, {uri: ["store-1"]})
    assert (finding.level, finding.text) == (
        "OK",
        "SageMaker's built-in XGBoost image: SageMaker pulls it with its own credentials",
    )
    assert ecr.regions == []
