"""Drafting a fleet spec from requests you already run: shared fields in the fleet's ``job:``, differences per
city with ``{city}`` put back, the provider's fields and the read-only ones left out with why."""

from __future__ import annotations

from typing import Any

import yaml

from sagemaker_fleet.fleetspec.draft import ImportedJob, draft_spec, request_of_description, strip_defaults

ROLE = "arn:aws:iam::111122223333:role/FleetTraining"


def request(city: str, **extra: Any) -> dict[str, Any]:
    return {
        "TrainingJobName": f"demand-{city}-2026",
        "RoleArn": ROLE,
        "AlgorithmSpecification": {
            "TrainingImage": "img:1",
            "TrainingInputMode": "File",
            "MetricDefinitions": [{"Name": "rmse", "Regex": "rmse=([0-9]{1,3})"}],
        },
        "InputDataConfig": [
            {
                "ChannelName": "train",
                "DataSource": {
                    "S3DataSource": {
                        "S3DataType": "S3Prefix",
                        "S3Uri": f"s3://b/{city}/",
                        "S3DataDistributionType": "FullyReplicated",
                    }
                },
            }
        ],
        "OutputDataConfig": {"S3OutputPath": f"s3://b/models/{city}/", "CompressionType": "GZIP"},
        "ResourceConfig": {
            "InstanceType": "ml.m5.xlarge",
            "InstanceCount": 1,
            "VolumeSizeInGB": 30,
            "KeepAlivePeriodInSeconds": 600,
        },
        "StoppingCondition": {"MaxRuntimeInSeconds": 86400},
        "EnableNetworkIsolation": False,
        "Tags": [{"Key": "team", "Value": "forecast"}, {"Key": "sagemaker-fleet:city", "Value": city}],
        **extra,
    }


def test_what_the_jobs_share_goes_to_the_fleet_and_the_rest_to_each_city() -> None:
    jobs = [
        ImportedJob("seoul", request("seoul"), "job a"),
        ImportedJob(
            "lagos",
            request(
                "lagos",
                RoleArn="arn:aws:iam::111122223333:role/TeamB",
                EnableManagedSpotTraining=True,
                StoppingCondition={"MaxRuntimeInSeconds": 86400, "MaxWaitTimeInSeconds": 90000},
            ),
            "job b",
        ),
        ImportedJob("lima", request("lima"), "job c"),
    ]
    draft = draft_spec(jobs, "demand", "us-east-1")
    spec = draft.spec
    assert spec["output_s3_uri"] == "s3://b/models"
    assert spec["job"]["RoleArn"] == ROLE  # the most common role; lagos keeps its own
    assert spec["job"]["InputDataConfig"][0]["DataSource"]["S3DataSource"]["S3Uri"] == "s3://b/{city}/"
    assert spec["job"]["AlgorithmSpecification"]["MetricDefinitions"][0]["Regex"] == "rmse=([0-9]{{1,3}})"
    assert spec["job"]["StoppingCondition"] == {
        "MaxRuntimeInSeconds": 86400
    }  # the provider's default differs
    assert "EnableNetworkIsolation" not in spec["job"]
    assert "OutputDataConfig" not in spec["job"]
    assert spec["job"]["Tags"] == [{"Key": "team", "Value": "forecast"}]
    assert spec["cities"][0] == {"name": "seoul"}
    assert spec["cities"][1] == {
        "name": "lagos",
        "job": {"RoleArn": "arn:aws:iam::111122223333:role/TeamB"},
        "spot": {"max_wait_seconds": 90000},
    }
    left = {(d.source, d.field) for d in draft.dropped}
    assert {
        ("job a", "TrainingJobName"),
        ("job b", "EnableManagedSpotTraining"),
        ("job b", "StoppingCondition.MaxWaitTimeInSeconds"),
    } <= left
    assert ("job a", "ResourceConfig.KeepAlivePeriodInSeconds") in left
    assert (
        "job a",
        "Tags[sagemaker-fleet:city]",
    ) in left
    text = draft.yaml(["drafted for a test"])
    assert text.startswith("# drafted for a test\n")
    assert "# Left out:\n#   TrainingJobName — the provider's" in text
    assert "Tags[sagemaker-fleet:city] — the provider's" in text
    # a field both jobs lose for one reason is one line naming them together
    (names,) = [line for line in draft.left_out_lines() if line.startswith("TrainingJobName ")]
    assert names.endswith(": every job (3)")
    assert yaml.safe_load(text) == spec


def test_what_was_left_out_before_drafting_and_the_defaults_are_listed() -> None:
    b = {key: value for key, value in request("lagos").items() if key != "EnableNetworkIsolation"}
    jobs = [
        ImportedJob("seoul", request("seoul"), "job a", (("TrainingJobStatus", "read-only"),)),
        ImportedJob("lagos", b, "job b"),
    ]
    draft = draft_spec(jobs, "demand", "us-east-1")
    lines = draft.left_out_lines()
    assert "TrainingJobStatus — read-only: job a" in lines
    assert "EnableNetworkIsolation — SageMaker's default (False): it is filled in again: job a" in lines
    assert (
        "OutputDataConfig.CompressionType — SageMaker's default ('GZIP'): it is filled in again: every job (2)"
        in lines
    )
    assert "EnableNetworkIsolation" not in draft.spec["job"]
    assert "#   TrainingJobStatus — read-only: job a\n" in draft.yaml()


def test_a_description_becomes_the_request_that_made_it() -> None:
    described = {
        **request("seoul"),
        "TrainingJobStatus": "Completed",
        "ModelArtifacts": {},
        "ResponseMetadata": {},
    }
    del described["Tags"]
    made, read_only = request_of_description(described, [{"Key": "team", "Value": "x"}], request("x").keys())
    assert made["Tags"] == [{"Key": "team", "Value": "x"}]
    assert "TrainingJobStatus" not in made
    assert [name for name, _ in read_only] == ["TrainingJobStatus", "ModelArtifacts"]


def test_strip_defaults_keeps_what_the_provider_defaults_otherwise() -> None:
    assert strip_defaults(
        {"EnableNetworkIsolation": False, "StoppingCondition": {"MaxRuntimeInSeconds": 86400}, "X": ""}
    ) == {"StoppingCondition": {"MaxRuntimeInSeconds": 86400}}


def test_every_job_means_every_job_drafted_not_every_job_that_lost_a_field() -> None:
    """A job that lost nothing (a request file with only its own fields) keeps a field the others lost from reading
    as dropped from "every job"."""
    bare = {
        "RoleArn": ROLE,
        "AlgorithmSpecification": {"TrainingImage": "img:1", "TrainingInputMode": "File"},
        "ResourceConfig": {"InstanceType": "ml.m5.xlarge", "InstanceCount": 1, "VolumeSizeInGB": 30},
        "StoppingCondition": {"MaxRuntimeInSeconds": 3600},
    }
    jobs = [
        ImportedJob("seoul", request("seoul"), "job a"),
        ImportedJob("lagos", request("lagos"), "job b"),
        ImportedJob("lima", bare, "request lima.json"),
    ]
    lines = draft_spec(jobs, "demand", "us-east-1").left_out_lines()
    (name,) = [line for line in lines if line.startswith("TrainingJobName ")]
    assert name.endswith(": job a, job b")
