"""``job:`` at fleet level, in ``defaults`` and per city: merged in that order, checked against botocore's model, with
placeholders, shorthands and the provider's own fields (docs/guides/job-template.md)."""

from __future__ import annotations

import copy
from typing import Any

import pytest

from sagemaker_fleet.fleetspec import FleetSpecError
from sagemaker_fleet.fleetspec.job_fields import OWNED
from sagemaker_fleet.fleetspec.names import PROVIDER_TAGS_MAX, TAGS_MAX
from sagemaker_fleet.hooks.request_model import BOTOCORE_MODEL
from sagemaker_fleet.jobs.request import Submission, compile_training_request
from unit.fleetspec.job_specs import BASE, IMAGE, RUN_KEY, error_at, errors, load, spec_data


def request_of(data: dict[str, Any], city: str, **submission: Any) -> dict[str, Any]:
    spec = load(data)
    compiled: dict[str, Any] = dict(
        compile_training_request(spec, spec.city(city), Submission(city, RUN_KEY, **submission))
    )
    return compiled


def with_city_job(job: dict[str, Any], index: int = 0, **city: Any) -> dict[str, Any]:
    data = spec_data()
    data["cities"][index] = {**data["cities"][index], "job": job, **city}
    return data


# ---------------------------------------------------------------------------------------------- merge order


def test_fleet_then_defaults_then_city_lists_replace_channels_and_tags_merge_by_name() -> None:
    data = spec_data(
        defaults={"instance_type": "ml.m5.xlarge", "job": {"RetryStrategy": {"MaximumRetryAttempts": 5}}}
    )
    data["cities"][1]["job"] = {
        "AlgorithmSpecification": {"ContainerArguments": ["--fast"]},
        "InputDataConfig": [
            {"ChannelName": "validation", "ContentType": "text/csv"},
            {
                "ChannelName": "extra",
                "DataSource": {"S3DataSource": {"S3DataType": "S3Prefix", "S3Uri": "s3://b/x/"}},
            },
        ],
        "Tags": [{"Key": "cost-center", "Value": "lagos-budget"}, {"Key": "team", "Value": "b"}],
    }
    lagos = request_of(data, "lagos")
    assert lagos["AlgorithmSpecification"]["ContainerArguments"] == [
        "--fast"
    ]  # a list replaces the one before
    assert lagos["RetryStrategy"] == {"MaximumRetryAttempts": 5}  # defaults over the fleet
    assert [c["ChannelName"] for c in lagos["InputDataConfig"]] == [
        "train",
        "validation",
        "features",
        "extra",
    ]
    validation = lagos["InputDataConfig"][1]
    assert validation["ContentType"] == "text/csv"
    assert validation["DataSource"]["S3DataSource"]["S3Uri"] == "s3://acme-ml/data/lagos/val/"
    user_tags = {t["Key"]: t["Value"] for t in lagos["Tags"] if not t["Key"].startswith("sagemaker-fleet:")}
    assert user_tags == {"cost-center": "lagos-budget", "fleet": "demand", "team": "b"}
    seoul = request_of(data, "seoul")
    assert seoul["AlgorithmSpecification"]["ContainerArguments"] == ["--city", "seoul", "--run", RUN_KEY]


def test_the_rich_template_lands_whole_in_the_request_after_the_provider_s_fields() -> None:
    request = request_of(spec_data(), "seoul", keep_alive_seconds=300)
    algorithm = request["AlgorithmSpecification"]
    assert algorithm["TrainingImage"] == IMAGE
    assert algorithm["ContainerEntrypoint"] == ["python", "-m", "demand.train"]
    assert algorithm["MetricDefinitions"][1]["Regex"] == "val_mape=([0-9]{1,3}[.][0-9]+)"  # {{ }} are braces
    assert request["OutputDataConfig"] == {
        "S3OutputPath": "s3://acme-ml/fleets/demand/models/seoul/20261129/",
        "KmsKeyId": "alias/ml-output",
    }
    assert request["Environment"] == {"STAGE": "prod", "CITY": "seoul"}
    assert request["VpcConfig"] == {"Subnets": ["subnet-0a1b2c3d"], "SecurityGroupIds": ["sg-0a1b2c3d"]}
    assert request["RetryStrategy"] == {"MaximumRetryAttempts": 2}
    assert request["ResourceConfig"]["KeepAlivePeriodInSeconds"] == 300
    tags = [t["Key"] for t in request["Tags"]]
    assert tags[:4] == [
        "sagemaker-fleet:fleet",
        "sagemaker-fleet:city",
        "sagemaker-fleet:run-key",
        "sagemaker-fleet:attempt",
    ]
    assert tags[4:] == ["cost-center", "fleet"]  # the user's after ours


# ---------------------------------------------------------------------------------------------- shorthands


def test_a_field_written_in_job_moves_into_the_city_the_planner_reads() -> None:
    data = with_city_job({"ResourceConfig": {"InstanceType": "ml.c5.xlarge", "VolumeSizeInGB": 80}}, 1)
    data["defaults"] = {}
    data["job"] = {**BASE["job"], "ResourceConfig": {"InstanceType": "ml.m5.xlarge"}}
    spec = load(data)
    assert (spec.city("seoul").instance_type, spec.city("seoul").volume_size_gb) == ("ml.m5.xlarge", 30)
    assert (spec.city("lagos").instance_type, spec.city("lagos").volume_size_gb) == ("ml.c5.xlarge", 80)
    assert spec.city("seoul").vpc is not None
    assert spec.city("seoul").vpc.subnets == ("subnet-0a1b2c3d",)


def test_the_train_channel_s_uri_is_train_s3_uri_and_needs_writing_once() -> None:
    data = spec_data()
    data["job"] = copy.deepcopy(BASE["job"])
    data["job"]["InputDataConfig"].append(
        {
            "ChannelName": "train",
            "DataSource": {"S3DataSource": {"S3DataType": "S3Prefix", "S3Uri": "s3://acme-ml/{city}/t/"}},
        }
    )
    for city in data["cities"]:
        del city["train_s3_uri"]
    spec = load(data)
    assert spec.city("lagos").train_s3_uri == "s3://acme-ml/lagos/t/"
    data["cities"][0]["train_s3_uri"] = "s3://acme-ml/seoul/"
    message = error_at(data, "job.InputDataConfig[2].DataSource.S3DataSource.S3Uri")
    assert "also set by `cities[0] (seoul).train_s3_uri`" in message


@pytest.mark.parametrize(
    ("written", "job", "path"),
    [
        ({"instance_count": 2}, {"ResourceConfig": {"InstanceCount": 3}}, "ResourceConfig.InstanceCount"),
        ({"hyperparameters": {"epochs": 3}}, {"HyperParameters": {"epochs": "4"}}, "HyperParameters[epochs]"),
        (
            {"vpc": {"subnets": ["subnet-1"], "security_group_ids": ["sg-1"]}},
            {"VpcConfig": {"Subnets": ["subnet-2"], "SecurityGroupIds": ["sg-2"]}},
            "VpcConfig",
        ),
        (
            {"max_runtime_seconds": 600},
            {"StoppingCondition": {"MaxRuntimeInSeconds": 900}},
            "StoppingCondition.MaxRuntimeInSeconds",
        ),
    ],
)
def test_one_field_written_both_ways_is_refused_naming_both(
    written: dict[str, Any], job: dict[str, Any], path: str
) -> None:
    data = with_city_job(job, 0, **written)
    data["job"] = {k: v for k, v in BASE["job"].items() if k != "VpcConfig"}
    key = next(iter(written))
    lines = [line for line in errors(data) if f".{key}" in line and "set it one way" in line]
    assert len(lines) == 1, errors(data)
    assert f"cities[0] (seoul).job.{path}" in lines[0]
    assert "set it one way" in lines[0]


def test_across_layers_too_but_a_shorthand_left_at_its_default_gives_way() -> None:
    data = with_city_job({"ResourceConfig": {"InstanceType": "ml.c5.xlarge"}})
    assert "also set by `defaults.instance_type`" in error_at(
        data, "cities[0] (seoul).job.ResourceConfig.InstanceType"
    )
    data = with_city_job(
        {"ResourceConfig": {"InstanceCount": 2}, "AlgorithmSpecification": {"TrainingInputMode": "File"}}
    )
    spec = load(data)  # instance_count and input_mode were never written: their defaults give way
    assert spec.city("seoul").instance_count == 2
    request = request_of(data, "seoul")
    assert request["AlgorithmSpecification"]["TrainingInputMode"] == "File"
    assert request_of(data, "lagos")["AlgorithmSpecification"]["TrainingInputMode"] == "FastFile"


def test_role_and_image_may_come_from_the_fleet_level_job_instead() -> None:
    data = spec_data(role_arn=None, image_uri=None)
    data["job"] = {**BASE["job"], "RoleArn": "arn:aws:iam::111122223333:role/TeamB"}
    data["job"]["AlgorithmSpecification"] = {**BASE["job"]["AlgorithmSpecification"], "TrainingImage": IMAGE}
    spec = load(data)
    assert spec.role_arn == spec.city("seoul").role_arn == "arn:aws:iam::111122223333:role/TeamB"
    data = spec_data(role_arn=None)
    assert "required field is missing; add it" in error_at(data, "role_arn")


# ---------------------------------------------------------------------------------------------- owned fields


@pytest.mark.parametrize("path", sorted(OWNED))
def test_a_field_the_provider_owns_is_refused_with_the_key_to_use(path: str) -> None:
    value: Any = {"ResourceConfig.InstanceGroups": [], "EnableManagedSpotTraining": True}.get(path, 1)
    if path in ("TrainingJobName", "CheckpointConfig.S3Uri", "OutputDataConfig.S3OutputPath"):
        value = "s3://x/y" if "S3" in path else "mine"
    if path == "AlgorithmSpecification.AlgorithmName":
        value = "my-algorithm"
    job: dict[str, Any] = {}
    *parents, last = path.split(".")
    inner = job
    for part in parents:
        inner = inner.setdefault(part, {})
    inner[last] = value
    message = error_at(with_city_job(job), f"cities[0] (seoul).job.{path}")
    assert "the provider's" in message
    assert f"set {OWNED[path].use} instead" in message


def test_our_tags_are_refused_local_path_honoured_and_tags_counted_with_ours() -> None:
    data = with_city_job({"Tags": [{"Key": "sagemaker-fleet:city", "Value": "x"}]})
    assert "use another key" in error_at(data, "cities[0] (seoul).job.Tags[0].Key")
    data = with_city_job({"CheckpointConfig": {"LocalPath": "/opt/ml/ckpt"}})
    checkpoint = request_of(data, "seoul")["CheckpointConfig"]
    assert checkpoint == {
        "S3Uri": "s3://acme-ml/fleets/demand/checkpoints/seoul/20261129/",
        "LocalPath": "/opt/ml/ckpt",
    }
    room = TAGS_MAX - PROVIDER_TAGS_MAX - len(BASE["job"]["Tags"])
    data = with_city_job({"Tags": [{"Key": f"k{i}", "Value": "v"} for i in range(room)]})
    load(data)
    data = with_city_job({"Tags": [{"Key": f"k{i}", "Value": "v"} for i in range(room + 1)]})
    message = error_at(data, "cities[0] (seoul).job.Tags")
    assert f"SageMaker allows {TAGS_MAX} on a job; keep at most {TAGS_MAX - PROVIDER_TAGS_MAX}" in message


# ---------------------------------------------------------------------------------------------- placeholders


def test_placeholders_unknown_ones_and_lone_braces() -> None:
    data = with_city_job({"Environment": {"WHERE": "{town}"}})
    message = error_at(data, "cities[0] (seoul).job.Environment[WHERE]")
    assert "unknown placeholder `{town}`" in message
    assert "`{{`" in message
    data = with_city_job({"Environment": {"JSON": '{"a": 1}'}})
    assert """unknown placeholder `{"a": 1}`""" in error_at(data, "cities[0] (seoul).job.Environment[JSON]")
    data = with_city_job({"Environment": {"SET": "a } b"}})
    assert "lone `}`" in error_at(data, "cities[0] (seoul).job.Environment[SET]")
    data = with_city_job({"Environment": {"JSON": '{{"a": 1}}'}})
    assert request_of(data, "seoul")["Environment"]["JSON"] == '{"a": 1}'
    data = with_city_job({"ResourceConfig": {"VolumeKmsKeyId": "key-{run_key}"}})
    assert "`{run_key}` is not known before a run" in error_at(
        data, "cities[0] (seoul).job.ResourceConfig.VolumeKmsKeyId"
    )


def test_a_shared_string_too_long_once_rendered_names_its_cities() -> None:
    data = spec_data()
    data["job"] = {**BASE["job"], "ExperimentConfig": {"ExperimentName": "demand-{city}-{run_key}"}}
    data["cities"].append({"name": "x" * 110, "train_s3_uri": "s3://acme-ml/x/"})
    message = error_at(data, "job.ExperimentConfig.ExperimentName")
    assert f"rendered for city {'x' * 110}: 134 characters; SageMaker accepts at most 120" in message


# ---------------------------------------------------------------------------------------------- the model


@pytest.mark.parametrize(
    ("job", "path", "words"),
    [
        ({"ResourceConfg": {}}, "ResourceConfg", "did you mean `ResourceConfig`?"),
        (
            {"RetryStrategy": {"MaximumRetryAttempts": 99}},
            "RetryStrategy.MaximumRetryAttempts",
            "above SageMaker's maximum 30",
        ),
        (
            {"RetryStrategy": {"MaximumRetryAttempts": "2"}},
            "RetryStrategy.MaximumRetryAttempts",
            "integer expected",
        ),
        (
            {"OutputDataConfig": {"CompressionType": "ZIP"}},
            "OutputDataConfig.CompressionType",
            "did you mean 'GZIP'?",
        ),
        (
            {"OutputDataConfig": {"KmsKeyId": "not a key!"}},
            "OutputDataConfig.KmsKeyId",
            "does not match SageMaker's pattern",
        ),
        (
            {"AlgorithmSpecification": {"ContainerArguments": []}},
            "AlgorithmSpecification.ContainerArguments",
            "at least 1",
        ),
        ({"TensorBoardOutputConfig": {}}, "TensorBoardOutputConfig", "`S3OutputPath` is required here"),
        (
            {
                "InputDataConfig": [
                    {
                        "ChannelName": "a",
                        "DataSource": {"S3DataSource": {"S3DataType": "S3Prefix", "S3Uri": "s3://b/"}},
                    }
                ]
                * 2
            },
            "InputDataConfig[1].ChannelName",
            "channel 'a' is written twice",
        ),
    ],
)
def test_what_botocore_s_model_refuses_names_the_city_and_the_field(
    job: dict[str, Any], path: str, words: str
) -> None:
    assert words in error_at(with_city_job(job, 1), f"cities[1] (lagos).job.{path}")


def test_a_field_newer_than_the_installed_botocore_says_which_boto3_knows_it() -> None:
    data = spec_data()
    data["job"] = {
        **BASE["job"],
        "MlflowConfig": {
            "MlflowResourceArn": "arn:aws:sagemaker:us-east-1:111122223333:mlflow-tracking-server/demand",
            "MlflowRunName": "{city}-{run_key}",
        },
    }
    model = BOTOCORE_MODEL.load()
    if (
        "MlflowConfig" in model.request.members
    ):  # botocore ≥ 1.42.2: the field passes and lands in the request
        assert request_of(data, "seoul")["MlflowConfig"]["MlflowRunName"] == f"seoul-{RUN_KEY}"
    else:
        message = error_at(data, "job.MlflowConfig")
        assert f"`MlflowConfig` needs boto3 ≥ 1.42.2 (installed {model.version})" in message


def test_without_a_model_the_checks_that_need_none_still_hold() -> None:
    spec = load(with_city_job({"ResourceConfg": {}}), model=False)  # botocore checks it at CreateTrainingJob
    assert spec.city("seoul").job is not None
    assert "the provider's" in error_at(
        with_city_job({"TrainingJobName": "x"}), "cities[0] (seoul).job.TrainingJobName", model=False
    )


def test_a_spec_without_job_never_loads_the_model() -> None:
    class Refusing:
        version = "0"

        def load(self) -> Any:
            raise AssertionError("loaded")

    import yaml

    from sagemaker_fleet.fleetspec import parse_fleet_spec

    spec = parse_fleet_spec(yaml.safe_dump(spec_data(job=None)), "fleet.yaml", Refusing())
    assert all(city.job is None for city in spec.cities)
    with pytest.raises(FleetSpecError):
        load(spec_data(job={"Nope": 1}))


def test_a_city_whose_channels_have_no_train_one_needs_no_train_s3_uri() -> None:
    data = spec_data()
    del data["cities"][1]["train_s3_uri"]
    spec = load(data)
    assert spec.city("lagos").train_s3_uri == ""
    request = request_of(data, "lagos")
    assert [c["ChannelName"] for c in request["InputDataConfig"]] == ["validation", "features"]
    data["job"] = {key: value for key, value in BASE["job"].items() if key != "InputDataConfig"}
    assert "required field is missing; add the city's data URI" in error_at(
        data, "cities[1] (lagos).train_s3_uri"
    )
