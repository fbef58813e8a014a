"""The shipped table of SageMaker's built-in XGBoost images agrees with botocore and with the spec's ECR parser in
every region it lists: the host is the one botocore resolves for the region's ECR (as the SDK builds the URI), the
URI parses into the table's registry, region, repository and version, and a fleet spec in that region with that
image validates without the "not an Amazon ECR image" warning (the China and isolated partitions included)."""

from __future__ import annotations

import json
import re
from importlib import resources

import botocore.session
import pytest

from sagemaker_fleet.fleetspec import parse_fleet_spec
from sagemaker_fleet.fleetspec.builtin_images import builtin_xgboost
from sagemaker_fleet.fleetspec.ecr import ecr_image

TABLE = builtin_xgboost()
RAW = json.loads(resources.files("sagemaker_fleet").joinpath("data/builtin_images.json").read_text("utf-8"))


def resolved_ecr_host(region: str) -> str:
    resolver = botocore.session.get_session()._get_internal_component("endpoint_resolver")
    endpoint = resolver.construct_endpoint("ecr", region)
    assert endpoint, f"botocore knows no ECR endpoint in {region}"
    return str(endpoint["hostname"])


def test_the_table_names_its_source_and_covers_the_regions_sagemaker_trains_in() -> None:
    assert TABLE.source.repository == "aws/sagemaker-python-sdk"
    assert TABLE.source.path.endswith("image_uri_config/xgboost.json")
    assert re.fullmatch(r"[0-9a-f]{40}", TABLE.source.commit)
    assert re.fullmatch(r"\d{4}-\d{2}-\d{2}", TABLE.source.committed)
    assert (TABLE.algorithm, TABLE.repository) == ("xgboost", "sagemaker-xgboost")
    assert {
        "us-east-1",
        "eu-west-3",
        "ap-northeast-1",
        "cn-north-1",
        "us-gov-west-1",
        "us-iso-east-1",
    } <= set(TABLE.regions)
    assert len(TABLE.regions) == len(RAW["regions"]) >= 30


@pytest.mark.parametrize("region", TABLE.regions)
def test_each_regions_image_is_botocores_ecr_host_and_parses_back(region: str) -> None:
    uri = TABLE.image_uri(region)
    assert uri is not None
    registry = RAW["regions"][region]["registry"]
    assert uri == f"{registry}.dkr.{resolved_ecr_host(region)}/sagemaker-xgboost:{TABLE.version}"
    image = ecr_image(uri)
    assert image is not None, uri
    assert (image.registry_id, image.region, image.repository, image.tag) == (
        registry,
        region,
        "sagemaker-xgboost",
        TABLE.version,
    )
    assert TABLE.is_builtin(uri)


@pytest.mark.parametrize("region", TABLE.regions)
def test_a_spec_with_the_regions_builtin_image_validates_without_an_ecr_warning(region: str) -> None:
    spec = parse_fleet_spec(
        f"fleet: pilot\nregion: {region}\nrole_arn: arn:aws:iam::111122223333:role/Pilot\n"
        f"image_uri: {TABLE.image_uri(region)}\noutput_s3_uri: s3://acme-ml/pilot\n"
        "defaults: {instance_type: ml.m5.large}\n"
        "cities: [{name: store-1, train_s3_uri: 's3://acme-ml/pilot/data/store-1/'}]\n"
    )
    assert spec.city("store-1").image_uri == TABLE.image_uri(region)
    assert not [w for w in spec.warnings if "not an Amazon ECR image" in w], spec.warnings


def test_no_other_image_is_builtin() -> None:
    assert not TABLE.is_builtin("111122223333.dkr.ecr.us-east-1.amazonaws.com/sagemaker-xgboost:1.7-1")
    assert TABLE.image_uri("xx-nowhere-1") is None
