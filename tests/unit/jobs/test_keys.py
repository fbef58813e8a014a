"""The warm-pool matching key (docs/sagemaker-behaviour.md, matching criteria): every AWS criterion counts, nothing else does."""

from __future__ import annotations

import dataclasses
from pathlib import Path
from typing import Any

import pytest

from sagemaker_fleet.fleetspec import CitySpec, FleetSpec, SpotSettings, VpcSettings, load_fleet_spec
from sagemaker_fleet.jobs.keys import WarmPoolKey, city_key, warm_pool_key
from sagemaker_fleet.jobs.request import Submission, compile_training_request

FLEETS_DIR = Path(__file__).resolve().parents[3] / "dags" / "fleets"
FLEET_FILES = sorted(FLEETS_DIR.glob("*.yaml"))

FLEET = FleetSpec(
    fleet="citydemand",
    region="us-east-1",
    role_arn="arn:aws:iam::111122223333:role/FleetTraining",
    image_uri="111122223333.dkr.ecr.us-east-1.amazonaws.com/demand:1.4",
    output_s3_uri="s3://acme-ml/fleets/citydemand",
    cities=(),
)
BASE = CitySpec(
    name="oslo",
    train_s3_uri="s3://acme-ml/data/oslo/",
    role_arn="arn:aws:iam::111122223333:role/FleetTraining",
    image_uri="111122223333.dkr.ecr.us-east-1.amazonaws.com/demand:1.4",
    instance_type="ml.m5.xlarge",
    vpc=VpcSettings(("subnet-0a", "subnet-0b"), ("sg-01",)),
)


def request_key(city: CitySpec, **submission: Any) -> WarmPoolKey:
    return warm_pool_key(
        compile_training_request(FLEET, city, Submission(city.name, "20261129", **submission))
    )


@pytest.mark.parametrize("path", FLEET_FILES, ids=lambda p: p.name)
def test_city_key_is_the_key_of_its_compiled_request(path: Path) -> None:
    fleet = load_fleet_spec(path)
    for city in fleet.cities:
        expected = city_key(city)
        for submission in (
            Submission(city.name, "20261129", keep_alive_seconds=600),
            Submission(city.name, "20261129", attempt=2, spot=False, keep_alive_seconds=300),
        ):
            assert warm_pool_key(compile_training_request(fleet, city, submission)) == expected, city.name


def test_demo_fleet_has_one_key_per_role_and_instance_type() -> None:
    fleet = load_fleet_spec(FLEETS_DIR / "demo.yaml")
    keys = {city_key(city) for city in fleet.cities}
    assert {(key.role_arn.rsplit("/", 1)[-1], key.instance_type) for key in keys} == {
        ("FleetTraining", "ml.m5.xlarge"),
        ("FleetTraining", "ml.c5.xlarge"),
        ("TeamB", "ml.m5.xlarge"),
        ("TeamB", "ml.c5.xlarge"),
    }


CRITERIA = {
    "role": {"role_arn": "arn:aws:iam::111122223333:role/TeamB"},
    "instance type": {"instance_type": "ml.c5.xlarge"},
    "instance count": {"instance_count": 2},
    "volume size": {"volume_size_gb": 31},
    "volume KMS key": {"volume_kms_key_id": "alias/training"},
    "no VPC": {"vpc": None},
    "another subnet": {"vpc": VpcSettings(("subnet-0a", "subnet-0c"), ("sg-01",))},
    "one subnet fewer": {"vpc": VpcSettings(("subnet-0a",), ("sg-01",))},
    "another security group": {"vpc": VpcSettings(("subnet-0a", "subnet-0b"), ("sg-02",))},
    "network isolation": {"enable_network_isolation": True},
    "inter-container encryption": {"enable_inter_container_traffic_encryption": True},
}


@pytest.mark.parametrize("change", CRITERIA.values(), ids=CRITERIA.keys())
def test_every_matching_criterion_changes_the_key(change: dict[str, Any]) -> None:
    other = dataclasses.replace(BASE, **change)
    assert city_key(other) != city_key(BASE)
    assert request_key(other) != request_key(BASE)


NOT_CRITERIA = {
    "image": {"image_uri": "111122223333.dkr.ecr.us-east-1.amazonaws.com/demand:2.0"},
    "hyperparameters": {"hyperparameters": (("epochs", "50"),)},
    "environment": {"environment": (("STAGE", "test"),)},
    "name": {"name": "bergen"},
    "training data": {"train_s3_uri": "s3://acme-ml/data/bergen/"},
    "runtime": {"max_runtime_seconds": 600},
    "expected duration": {"expected_seconds": 60},
    "keep-alive": {"keep_alive": 3600},
    "spot": {"spot": SpotSettings(max_wait_seconds=14400)},
    "subnet order": {"vpc": VpcSettings(("subnet-0b", "subnet-0a"), ("sg-01",))},
}


@pytest.mark.parametrize("change", NOT_CRITERIA.values(), ids=NOT_CRITERIA.keys())
def test_other_fields_do_not_change_the_key(change: dict[str, Any]) -> None:
    other = dataclasses.replace(BASE, **change)
    assert city_key(other) == city_key(BASE)
    assert request_key(other) == request_key(BASE)


def test_order_of_subnets_and_security_groups_does_not_matter() -> None:
    one = dataclasses.replace(
        BASE, vpc=VpcSettings(("subnet-0b", "subnet-0a", "subnet-0c"), ("sg-02", "sg-01"))
    )
    two = dataclasses.replace(
        BASE, vpc=VpcSettings(("subnet-0c", "subnet-0a", "subnet-0b"), ("sg-01", "sg-02"))
    )
    assert city_key(one) == city_key(two)
    assert city_key(one).subnets == ("subnet-0a", "subnet-0b", "subnet-0c")


def test_keep_alive_and_spot_in_the_request_do_not_change_the_key() -> None:
    assert request_key(BASE, keep_alive_seconds=900) == request_key(BASE, keep_alive_seconds=0)
    spot_city = dataclasses.replace(BASE, spot=SpotSettings(max_wait_seconds=14400))
    assert request_key(spot_city) == request_key(spot_city, spot=False) == city_key(BASE)


def test_key_of_a_describe_response_matches_the_request() -> None:
    """The simulator and the planner read DescribeTrainingJob with the same function: extra fields are ignored."""
    request = compile_training_request(FLEET, BASE, Submission("oslo", "20261129", keep_alive_seconds=600))
    response = {
        **request,
        "TrainingJobArn": "arn:aws:sagemaker:us-east-1:111122223333:training-job/citydemand-oslo-20261129",
        "TrainingJobStatus": "Completed",
        "WarmPoolStatus": {"Status": "Available", "ResourceRetainedBillableTimeInSeconds": 0},
        "ResourceConfig": {**request["ResourceConfig"], "VolumeKmsKeyId": ""},  # AWS may echo an empty id
    }
    assert warm_pool_key(response) == city_key(BASE)


def test_key_json_follows_the_plan_contract() -> None:
    key = city_key(dataclasses.replace(BASE, volume_kms_key_id="alias/training"))
    assert list(key.to_json()) == [
        "role_arn",
        "instance_type",
        "instance_count",
        "volume_size_gb",
        "volume_kms_key_id",
        "subnets",
        "security_group_ids",
        "enable_network_isolation",
        "enable_inter_container_traffic_encryption",
    ]
    assert key.to_json()["subnets"] == ["subnet-0a", "subnet-0b"]
    assert city_key(dataclasses.replace(BASE, vpc=None)).to_json()["subnets"] == []


def test_keys_are_hashable_and_ordered() -> None:
    keys = sorted({city_key(BASE), city_key(dataclasses.replace(BASE, instance_type="ml.c5.xlarge"))})
    assert [key.instance_type for key in keys] == ["ml.c5.xlarge", "ml.m5.xlarge"]
