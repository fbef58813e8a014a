"""Lanes come from the compiled request: cities whose templates differ in a warm-pool matching field never share a
lane; cities that differ only in channels, hyperparameters, image or metrics do."""

from __future__ import annotations

from typing import Any

import pytest

from sagemaker_fleet.jobs.keys import city_key, warm_pool_key
from sagemaker_fleet.jobs.request import Submission, compile_training_request
from sagemaker_fleet.plan import plan_fleet
from unit.fleetspec.job_specs import RUN_KEY, load, spec_data

OTHER_IMAGE = "111122223333.dkr.ecr.us-east-1.amazonaws.com/demand:2.0"


def groups_of(jobs: dict[str, dict[str, Any]], **top: Any) -> dict[str, str]:
    """Each city's plan group; ``jobs``: each city's ``job:`` (``top``: top-level keys to replace)."""
    data = spec_data(**top)
    data["cities"] = [
        {"name": name, "train_s3_uri": f"s3://acme-ml/data/{name}/", **({"job": job} if job else {})}
        for name, job in jobs.items()
    ]
    spec = load(data)
    for city in spec.cities:  # the key the planner groups by is the key of the request sent
        request = compile_training_request(spec, city, Submission(city.name, RUN_KEY, keep_alive_seconds=60))
        assert warm_pool_key(request) == city_key(city)
    plan = plan_fleet(spec, RUN_KEY)
    return {job.city: job.group for job in plan.jobs}


def test_cities_differing_only_in_channels_hyperparameters_image_or_metrics_share_a_group() -> None:
    groups = groups_of(
        {
            "a": {},
            "b": {"HyperParameters": {"epochs": "9"}},
            "c": {
                "InputDataConfig": [
                    {
                        "ChannelName": "extra",
                        "DataSource": {"S3DataSource": {"S3DataType": "S3Prefix", "S3Uri": "s3://b/e/"}},
                    }
                ]
            },
            "d": {"AlgorithmSpecification": {"MetricDefinitions": [{"Name": "m", "Regex": "m=(.*)"}]}},
            "e": {"Environment": {"X": "1"}, "RetryStrategy": {"MaximumRetryAttempts": 1}},
        }
    )
    assert len(set(groups.values())) == 1


def test_the_image_written_per_city_in_job_is_no_matching_field() -> None:
    image = {
        "AlgorithmSpecification": {"TrainingImage": "111122223333.dkr.ecr.us-east-1.amazonaws.com/demand:1.4"}
    }
    other = {"AlgorithmSpecification": {"TrainingImage": OTHER_IMAGE}}
    assert len(set(groups_of({"a": image, "b": image, "c": other}, image_uri=None).values())) == 1


@pytest.mark.parametrize(
    "job",
    [
        {"RoleArn": "arn:aws:iam::111122223333:role/TeamB"},
        {"ResourceConfig": {"VolumeSizeInGB": 99}},
        {"ResourceConfig": {"VolumeKmsKeyId": "alias/other"}},
        {"ResourceConfig": {"InstanceCount": 2}},
        {"VpcConfig": {"Subnets": ["subnet-0ffff"], "SecurityGroupIds": ["sg-0a1b2c3d"]}},
        {"EnableNetworkIsolation": True},
        {"EnableInterContainerTrafficEncryption": True},
        {"SessionChainingConfig": {"EnableSessionTagChaining": True}},
    ],
    ids=lambda job: (
        next(iter(job))
        + (
            "." + next(iter(job.values())).__iter__().__next__()
            if isinstance(next(iter(job.values())), dict)
            else ""
        )
    ),
)
def test_a_city_differing_in_a_matching_field_gets_its_own_group(job: dict[str, Any]) -> None:
    role = {"RoleArn": "arn:aws:iam::111122223333:role/FleetTraining"}
    groups = groups_of({"a": role, "b": role, "odd": {**role, **job}}, role_arn=None)
    assert groups["a"] == groups["b"] != groups["odd"]


def test_session_tag_chaining_shows_in_the_plan_key_only_where_it_is_on() -> None:
    data = spec_data()
    data["cities"][1]["job"] = {"SessionChainingConfig": {"EnableSessionTagChaining": True}}
    plan = plan_fleet(load(data), RUN_KEY)
    keys = [group.key.to_json() for group in plan.groups]
    assert sorted("enable_session_tag_chaining" in key for key in keys) == [False, True]
