"""Drafting a fleet spec from requests you already run: shared fields in the fleet's ``job:``, differences per
city with ``{city}`` put back, the provider's fields and the read-only ones left out with why."""

from __future__ import annotations

import json
from typing import Any

import pytest
import yaml

from sagemaker_fleet.fleetspec import FleetSpecError, InstanceQuota, parse_fleet_spec
from sagemaker_fleet.fleetspec.draft import (
    ImportedJob,
    QuotaReading,
    draft_spec,
    request_of_description,
    strip_defaults,
)
from sagemaker_fleet.fleetspec.model import QUOTA_MAX
from sagemaker_fleet.fleetspec.names import model_s3_uri

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
    assert (
        spec["output_s3_uri"] == "s3://b"
    )  # the fleet writes s3://b/models/{city}/{run_key}/, as the jobs did
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


# ---------------------------------------------------------------------------------------- {city} in every string


def test_the_city_becomes_a_placeholder_as_a_word_of_its_own_only() -> None:
    """Lima's name in a path, an argument, an environment value and a tag becomes ``{city}``; inside ``climate``,
    or as a channel's or a tag's own name (layers merge by those), it stays as written."""

    def job(city: str) -> dict[str, Any]:
        base = request(city)
        base["AlgorithmSpecification"]["ContainerArguments"] = ["--city", city, "--extra", "climate"]
        base["HyperParameters"] = {
            "model": f"{city}_v2",
            "features": "climate,holidays",
            "note": f"{city}s",
            "Key": city,  # named like a tag's member, but a hyperparameter: its value is the city's
        }
        base["Environment"] = {"CITY": city}
        base["InputDataConfig"].append(
            {
                "ChannelName": city,
                "DataSource": {"S3DataSource": {"S3DataType": "S3Prefix", "S3Uri": "s3://b/x/"}},
            }
        )
        base["Tags"] = [{"Key": "team", "Value": f"forecast-{city}"}, {"Key": city, "Value": "yes"}]
        return base

    draft = draft_spec(
        [ImportedJob("lima", job("lima"), "job a"), ImportedJob("oslo", job("oslo"), "job b")],
        "demand",
        "us-east-1",
    )
    shared = draft.spec["job"]
    assert shared["AlgorithmSpecification"]["ContainerArguments"] == [
        "--city",
        "{city}",
        "--extra",
        "climate",
    ]
    assert shared["HyperParameters"] == {
        "model": "{city}_v2",
        "features": "climate,holidays",
        "Key": "{city}",
    }
    assert shared["Environment"] == {"CITY": "{city}"}
    assert {"Key": "team", "Value": "forecast-{city}"} in shared["Tags"]
    lima = draft.spec["cities"][0]["job"]
    assert lima["HyperParameters"] == {"note": "limas"}  # not a word of its own: each city keeps its value
    assert [c["ChannelName"] for c in lima["InputDataConfig"]] == ["lima"]
    assert {"Key": "lima", "Value": "yes"} in lima["Tags"]


# ---------------------------------------------------------------------------------------------- output_s3_uri


def with_output(city: str, path: str, name: str | None = None) -> ImportedJob:
    job = request(city, OutputDataConfig={"S3OutputPath": path})
    if name is not None:
        job["TrainingJobName"] = name
    return ImportedJob(city, job, f"job {city}")


@pytest.mark.parametrize(
    ("paths", "uri"),
    [
        # models/{city}/: the fleet's own models/ folder, so its models land where the jobs' did, never models/models
        (["s3://acme/models/{city}/", "s3://acme/models/{city}/"], "s3://acme"),
        (["s3://acme/ml/models/{city}", "s3://acme/ml/models/{city}"], "s3://acme/ml"),
        # one shared output path (SageMaker adds the job's name below it)
        (["s3://acme/output/", "s3://acme/output/"], "s3://acme/output"),
        # the city in the middle, and a folder of the job's name
        (["s3://acme/demand/{city}/models/", "s3://acme/demand/{city}/models/"], "s3://acme/demand"),
        (["s3://acme/runs/{job}/", "s3://acme/runs/{job}/"], "s3://acme/runs"),
        # what differs between the jobs (a date) ends the prefix
        (["s3://acme/models/2026-11-28/{city}/", "s3://acme/models/2026-11-29/{city}/"], "s3://acme"),
        (["s3://acme", "s3://acme/"], "s3://acme"),
    ],
)
def test_output_s3_uri_is_the_shared_prefix_without_the_city_or_the_job_name(
    paths: list[str], uri: str
) -> None:
    cities = ("lima", "oslo")
    jobs = [
        with_output(city, path.format(city=city, job=f"demand-{city}-2026-11-28-02-00-00"))
        for city, path in zip(cities, paths, strict=True)
    ]
    draft = draft_spec(jobs, "demand", "us-east-1")
    assert draft.spec["output_s3_uri"] == uri
    assert draft.notes == ()
    assert "models/models" not in model_s3_uri(uri, "lima", "20261129")


def test_one_job_named_after_its_whole_name_still_loses_its_own_folder() -> None:
    """One job alone keeps its whole name as the city: a folder of that name is still the job's own."""
    name = "demand-oslo-2026-11-28-02-00-00"
    job = with_output(name, f"s3://acme/models/{name}/", name)
    assert draft_spec([job], "demand", "us-east-1").spec["output_s3_uri"] == "s3://acme"


def test_jobs_writing_to_several_buckets_take_the_most_common_one_and_say_so() -> None:
    jobs = [
        with_output("lima", "s3://team-a/models/lima/"),
        with_output("oslo", "s3://team-b/models/oslo/"),
        with_output("caen", "s3://team-b/models/caen/"),
    ]
    draft = draft_spec(jobs, "demand", "us-east-1")
    assert draft.spec["output_s3_uri"] == "s3://team-b"
    assert draft.notes == (
        "output_s3_uri: the jobs wrote to 2 buckets (team-a, team-b); the draft uses team-b, where most did",
    )


# ------------------------------------------------------------------------------------------------------ quotas


def in_bucket(job: dict[str, Any]) -> dict[str, Any]:
    """``job`` with its S3 paths in a bucket of a valid name (``b`` is too short for a spec that validates)."""
    loaded: dict[str, Any] = json.loads(json.dumps(job).replace("s3://b/", "s3://acme-ml/"))
    return loaded


def test_quotas_are_the_account_s_for_each_instance_type_of_the_draft() -> None:
    spot = request(
        "lagos",
        EnableManagedSpotTraining=True,
        StoppingCondition={"MaxRuntimeInSeconds": 3600, "MaxWaitTimeInSeconds": 7200},
    )
    big = request(
        "lima", ResourceConfig={"InstanceType": "ml.c5.2xlarge", "InstanceCount": 1, "VolumeSizeInGB": 30}
    )
    jobs = [
        ImportedJob("seoul", in_bucket(request("seoul")), "a"),
        ImportedJob("lagos", in_bucket(spot), "b"),
        ImportedJob("lima", in_bucket(big), "c"),
    ]
    reading = QuotaReading(
        found={
            "ml.m5.xlarge": InstanceQuota(instances=20, warm_pools=8, spot_instances=10),
            "ml.c5.2xlarge": InstanceQuota(instances=1_000_000, warm_pools=0),
        }
    )
    draft = draft_spec(jobs, "demand", "us-east-1", reading)
    assert draft.spec["quotas"] == {
        "ml.c5.2xlarge": {"instances": QUOTA_MAX, "warm_pools": 0},
        "ml.m5.xlarge": {"instances": 20, "warm_pools": 8, "spot_instances": 10},  # a spot city: spot's own
    }
    assert draft.todo == ()
    assert (
        f"quotas[ml.c5.2xlarge]: the account's quotas over {QUOTA_MAX} are written as {QUOTA_MAX}"
        in draft.notes
    )
    assert any(
        note.startswith("quotas[ml.c5.2xlarge]: the account's warm-pool quota is 0") for note in draft.notes
    )
    spec = parse_fleet_spec(draft.yaml())
    assert spec.quota("ml.m5.xlarge") == InstanceQuota(20, 8, 10)
    assert spec.quotas_given


@pytest.mark.parametrize(
    ("reading", "why"),
    [
        (None, "Service Quotas was not read (not asked)"),
        (
            QuotaReading(why_not="AccessDenied: grant servicequotas:ListServiceQuotas"),
            "Service Quotas was not read (AccessDenied: grant servicequotas:ListServiceQuotas)",
        ),
        (QuotaReading(found={}), "Service Quotas lists no training quota for it in this region"),
        (
            QuotaReading(found={"ml.m5.xlarge": InstanceQuota(0, 0)}),
            "the account's training-instance quota is 0",
        ),
    ],
)
def test_quotas_not_read_are_a_todo_that_validate_refuses(reading: QuotaReading | None, why: str) -> None:
    draft = draft_spec(
        [ImportedJob("seoul", in_bucket(request("seoul")), "a")], "demand", "us-east-1", reading
    )
    assert draft.spec["quotas"] == {"ml.m5.xlarge": {"instances": "TODO", "warm_pools": "TODO"}}
    (todo,) = draft.todo
    assert todo.startswith(f"quotas[ml.m5.xlarge]: {why}")
    assert "`validate` refuses the draft until you do" in todo
    text = draft.yaml(["a header"])
    assert text.startswith(f"# a header\n# TODO: {todo}\n")
    with pytest.raises(FleetSpecError) as refused:
        parse_fleet_spec(text)
    issues = {issue.path: issue.message for issue in refused.value.issues}
    assert set(issues) == {"quotas[ml.m5.xlarge].instances", "quotas[ml.m5.xlarge].warm_pools"}
    assert issues["quotas[ml.m5.xlarge].instances"] == (
        "still TODO, a value to write in its place; give the account's quota of concurrent training instances "
        "of this type, e.g. `instances: 20`"
    )
    assert "e.g. `warm_pools: 4`" in issues["quotas[ml.m5.xlarge].warm_pools"]
