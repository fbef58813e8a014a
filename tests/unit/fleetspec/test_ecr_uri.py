"""ECR image URIs taken apart as DescribeImages names them, in every AWS partition; anything else is not an ECR
image."""

from __future__ import annotations

import botocore.session
import pytest

from sagemaker_fleet.fleetspec.ecr import ECR_DNS_SUFFIXES, EcrImage, ecr_image

DIGEST = "sha256:" + "ab" * 32


@pytest.mark.parametrize(
    ("uri", "image"),
    [
        (
            "111122223333.dkr.ecr.us-east-1.amazonaws.com/demand:1.4",
            EcrImage("111122223333", "us-east-1", "demand", tag="1.4"),
        ),
        (
            "111122223333.dkr.ecr.eu-west-1.amazonaws.com/team/demand",
            EcrImage("111122223333", "eu-west-1", "team/demand"),
        ),
        (
            f"763104351884.dkr.ecr.us-west-2.amazonaws.com/pytorch-training@{DIGEST}",
            EcrImage("763104351884", "us-west-2", "pytorch-training", digest=DIGEST),
        ),
        (
            "111122223333.dkr.ecr-fips.us-gov-west-1.amazonaws.com/demand:v2_rc.1",
            EcrImage("111122223333", "us-gov-west-1", "demand", tag="v2_rc.1"),
        ),
        (
            "111122223333.dkr.ecr.cn-north-1.amazonaws.com.cn/demand:1",
            EcrImage("111122223333", "cn-north-1", "demand", tag="1"),
        ),
        (  # the isolated partitions have hosts of their own
            "833128469047.dkr.ecr.us-iso-east-1.c2s.ic.gov/sagemaker-xgboost:1.7-1",
            EcrImage("833128469047", "us-iso-east-1", "sagemaker-xgboost", tag="1.7-1"),
        ),
        (
            "108575199400.dkr.ecr.us-isof-south-1.csp.hci.ic.gov/sagemaker-xgboost:1.7-1",
            EcrImage("108575199400", "us-isof-south-1", "sagemaker-xgboost", tag="1.7-1"),
        ),
    ],
)
def test_ecr_uris(uri: str, image: EcrImage) -> None:
    assert ecr_image(uri) == image


@pytest.mark.parametrize(
    "uri",
    [
        "docker.io/library/python:3.12",
        "ghcr.io/acme/demand:1.4",
        "public.ecr.aws/acme/demand:1.4",
        "12345.dkr.ecr.us-east-1.amazonaws.com/demand:1.4",  # an account id is 12 digits
        "111122223333.dkr.ecr.us-east-1.amazonaws.com/Demand:1.4",  # repositories are lower case
        "111122223333.dkr.ecr.us-east-1.example.com/demand:1.4",  # no AWS partition's host
    ],
)
def test_anything_else_is_not_ecr(uri: str) -> None:
    assert ecr_image(uri) is None


def test_image_ids_and_references() -> None:
    assert EcrImage("1", "r", "demand", tag="1.4").image_id == {"imageTag": "1.4"}
    assert EcrImage("1", "r", "demand").image_id == {"imageTag": "latest"}
    assert EcrImage("1", "r", "demand").reference == "demand:latest"
    pinned = EcrImage("1", "r", "demand", tag="1.4", digest=DIGEST)
    assert pinned.image_id == {"imageDigest": DIGEST}
    assert pinned.reference == f"demand@{DIGEST}"


def test_the_parser_knows_every_partitions_dns_suffix() -> None:
    """An ECR host ends in its partition's DNS suffix: the installed botocore's partitions and the parser's agree."""
    partitions = botocore.session.get_session().get_data("endpoints")["partitions"]
    assert {partition["dnsSuffix"] for partition in partitions} == set(ECR_DNS_SUFFIXES)
