"""The fleet's region against its AWS connection's: the page hard-coded us-east-1 in the connection, the spec said
eu-west-3, and nothing complained — the jobs would have gone to us-east-1."""

from __future__ import annotations

import json

import pytest

from sagemaker_fleet.fleetspec.regions import KnownRegion, environment_region, region_mismatch


def conn(region: str | None, extra_as_text: bool = False) -> str:
    extra: dict[str, str] = {"endpoint_url": "http://127.0.0.1:4566"}
    if region:
        extra["region_name"] = region
    return json.dumps({"conn_type": "aws", "extra": json.dumps(extra) if extra_as_text else extra})


@pytest.mark.parametrize(
    ("environ", "known"),
    [
        ({}, None),
        (
            {"AIRFLOW_CONN_AWS_DEFAULT": conn("eu-west-3")},
            KnownRegion("eu-west-3", "the aws_default connection (AIRFLOW_CONN_AWS_DEFAULT)"),
        ),
        (
            {"AIRFLOW_CONN_AWS_DEFAULT": conn("eu-west-3", extra_as_text=True)},
            KnownRegion("eu-west-3", "the aws_default connection (AIRFLOW_CONN_AWS_DEFAULT)"),
        ),
        (
            {"AIRFLOW_CONN_AWS_DEFAULT": "aws://AKIA:secret@/?region_name=ap-south-1"},
            KnownRegion("ap-south-1", "the aws_default connection (AIRFLOW_CONN_AWS_DEFAULT)"),
        ),
        # a connection without a region: boto3 falls back to the environment's
        (
            {"AIRFLOW_CONN_AWS_DEFAULT": conn(None), "AWS_DEFAULT_REGION": "us-west-2"},
            KnownRegion("us-west-2", "AWS_DEFAULT_REGION"),
        ),
        (
            {"AWS_REGION": "eu-central-1", "AWS_DEFAULT_REGION": "us-west-2"},
            KnownRegion("eu-central-1", "AWS_REGION"),
        ),
        ({"AIRFLOW_CONN_AWS_DEFAULT": "{not json"}, None),
    ],
)
def test_the_region_the_environment_gives_the_connection(
    environ: dict[str, str], known: KnownRegion | None
) -> None:
    assert environment_region(environ) == known


def test_another_connection_is_read_by_its_id() -> None:
    environ = {"AIRFLOW_CONN_FLEET_AWS": conn("eu-west-1"), "AIRFLOW_CONN_AWS_DEFAULT": conn("us-east-1")}
    found = environment_region(environ, "fleet_aws")
    assert found is not None
    assert found.region == "eu-west-1"


def test_a_mismatch_names_both_regions_and_the_fix() -> None:
    message = region_mismatch("eu-west-3", KnownRegion("us-east-1", "the aws_default connection"))
    assert message is not None
    assert "the fleet trains in eu-west-3 but the aws_default connection talks to us-east-1" in message
    assert "set the connection's region_name to eu-west-3" in message
    assert region_mismatch("eu-west-3", KnownRegion("eu-west-3", "x")) is None
    assert region_mismatch("eu-west-3", None) is None
