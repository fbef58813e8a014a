"""The registry probes of preflight: a refused read is a warning naming the permission register_models needs."""

from __future__ import annotations

from typing import Any

import yaml
from botocore.exceptions import ClientError

from sagemaker_fleet.fleetspec import parse_fleet_spec
from sagemaker_fleet.hooks.request_model import BOTOCORE_MODEL
from sagemaker_fleet.preflight.registry_checks import registry_findings

SPEC = {
    "fleet": "pre",
    "region": "us-east-1",
    "role_arn": "arn:aws:iam::123456789012:role/FleetTraining",
    "image_uri": "123456789012.dkr.ecr.us-east-1.amazonaws.com/demand:1.4",
    "output_s3_uri": "s3://pre-out/fleets/pre",
    "defaults": {"instance_type": "ml.m5.xlarge"},
    "job": {"AlgorithmSpecification": {"MetricDefinitions": [{"Name": "m", "Regex": "m=(.*)"}]}},
    "register": {
        "group": "{fleet}-{city}",
        "metric": "m",
        "direction": "minimize",
        "margin": 0.02,
        "inference": {"Containers": [{"Image": "123456789012.dkr.ecr.us-east-1.amazonaws.com/s:1"}]},
    },
    "cities": [
        {"name": "tokyo", "train_s3_uri": "s3://pre-data/tokyo/"},
        {
            "name": "lima",
            "train_s3_uri": "s3://pre-data/lima/",
            "register": {"group": "{city}-{fleet}-models"},
        },
        {"name": "oslo", "train_s3_uri": "s3://pre-data/oslo/", "register": None},
    ],
}


class Denied:
    def __init__(self) -> None:
        self.asked: list[str] = []

    def _deny(self, operation: str) -> Any:
        self.asked.append(operation)
        raise ClientError({"Error": {"Code": "AccessDeniedException", "Message": "no"}}, operation)

    def describe_model_package_group(self, **kwargs: Any) -> Any:
        return self._deny("DescribeModelPackageGroup")

    def list_model_packages(self, **kwargs: Any) -> Any:
        return self._deny("ListModelPackages")


def test_a_refused_probe_names_the_permission_for_each_group_pattern() -> None:
    spec = parse_fleet_spec(yaml.safe_dump(SPEC), model=BOTOCORE_MODEL)
    client = Denied()
    lines = [finding.line() for finding in registry_findings(client, spec)]
    assert client.asked == ["DescribeModelPackageGroup", "ListModelPackages"] * 2
    assert lines[0] == (
        "WARNING registry pre-tokyo: not checked: AccessDeniedException — register_models needs "
        "sagemaker:DescribeModelPackageGroup"
    )
    assert lines[1].endswith("register_models needs sagemaker:ListModelPackages")
    assert lines[2].startswith("NOTE    registry pre-tokyo: register_models also creates")
    assert lines[3].startswith("WARNING registry lima-pre-models:")
    no_register = {key: value for key, value in SPEC.items() if key != "register"}
    no_register["cities"] = [c for c in SPEC["cities"] if c["name"] == "tokyo"]  # type: ignore[attr-defined]
    assert (
        registry_findings(client, parse_fleet_spec(yaml.safe_dump(no_register), model=BOTOCORE_MODEL)) == []
    )
