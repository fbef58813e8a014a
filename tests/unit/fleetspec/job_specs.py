"""Fleet specs with ``job:`` templates for the tests: a base spec and a helper that loads a variant of it."""

from __future__ import annotations

import copy
from typing import Any

import pytest
import yaml

from sagemaker_fleet.fleetspec import FleetSpec, FleetSpecError, parse_fleet_spec
from sagemaker_fleet.fleetspec.render import render_issues
from sagemaker_fleet.hooks.request_model import BOTOCORE_MODEL

ROLE = "arn:aws:iam::111122223333:role/FleetTraining"
IMAGE = "111122223333.dkr.ecr.us-east-1.amazonaws.com/demand:1.4"
RUN_KEY = "20261129"

#: The fleet of the issue's "done when": two channels beyond train, metric definitions, user tags, an output KMS
#: key, an entrypoint with arguments, environment variables, a VPC and a retry strategy.
RICH_JOB: dict[str, Any] = {
    "AlgorithmSpecification": {
        "ContainerEntrypoint": ["python", "-m", "demand.train"],
        "ContainerArguments": ["--city", "{city}", "--run", "{run_key}"],
        "MetricDefinitions": [
            {"Name": "validation:rmse", "Regex": "val_rmse=([0-9.]+)"},
            {"Name": "validation:mape", "Regex": "val_mape=([0-9]{{1,3}}[.][0-9]+)"},
        ],
    },
    "InputDataConfig": [
        {
            "ChannelName": "validation",
            "DataSource": {
                "S3DataSource": {"S3DataType": "S3Prefix", "S3Uri": "s3://acme-ml/data/{city}/val/"}
            },
        },
        {
            "ChannelName": "features",
            "DataSource": {"S3DataSource": {"S3DataType": "S3Prefix", "S3Uri": "s3://acme-ml/features/"}},
        },
    ],
    "OutputDataConfig": {"KmsKeyId": "alias/ml-output"},
    "Environment": {"STAGE": "prod", "CITY": "{city}"},
    "VpcConfig": {"Subnets": ["subnet-0a1b2c3d"], "SecurityGroupIds": ["sg-0a1b2c3d"]},
    "RetryStrategy": {"MaximumRetryAttempts": 2},
    "Tags": [{"Key": "cost-center", "Value": "forecasting"}, {"Key": "fleet", "Value": "{fleet}"}],
}

BASE: dict[str, Any] = {
    "fleet": "demand",
    "region": "us-east-1",
    "role_arn": ROLE,
    "image_uri": IMAGE,
    "output_s3_uri": "s3://acme-ml/fleets/demand",
    "quotas": {
        "ml.m5.xlarge": {"instances": 4, "warm_pools": 4},
        "ml.c5.xlarge": {"instances": 2, "warm_pools": 2},
    },
    "defaults": {"instance_type": "ml.m5.xlarge"},
    "job": RICH_JOB,
    "cities": [
        {"name": "seoul", "train_s3_uri": "s3://acme-ml/data/seoul/train/"},
        {"name": "lagos", "train_s3_uri": "s3://acme-ml/data/lagos/train/"},
    ],
}


def spec_data(**changes: Any) -> dict[str, Any]:
    """A deep copy of :data:`BASE` with top-level keys replaced (``None`` removes one)."""
    data = copy.deepcopy(BASE)
    for key, value in changes.items():
        if value is None:
            data.pop(key, None)
        else:
            data[key] = value
    return data


def load(data: dict[str, Any], *, model: bool = True) -> FleetSpec:
    return parse_fleet_spec(
        yaml.safe_dump(data, sort_keys=False), "fleet.yaml", BOTOCORE_MODEL if model else None
    )


def errors(data: dict[str, Any], *, model: bool = True) -> list[str]:
    """The spec's errors as printed (``path (line N): message``), or a failed test if it loads."""
    with pytest.raises(FleetSpecError) as caught:
        load(data, model=model)
    return list(render_issues(caught.value.issues, caught.value.city_names))


def error_at(data: dict[str, Any], path: str, *, model: bool = True) -> str:
    """The one error printed at ``path``."""
    found = [line for line in errors(data, model=model) if line.lstrip("- ").startswith(path + " ")]
    assert len(found) == 1, errors(data, model=model)
    return found[0]
