"""Every compiled CreateTrainingJob request passes botocore's own validation, offline, from the service model.

botocore's ParamValidator checks types, required members, unknown members and minimums; it does not check
maximums, patterns or enums, so ``model_violations`` walks the shape metadata for those — with the bounds AWS has
raised since an older botocore's model (``SERVICE_NOW``: keep-alive up to 21600 s also with botocore 1.39).
"""

from __future__ import annotations

import dataclasses
import json
import re
from collections.abc import Iterator
from functools import cache
from pathlib import Path
from typing import Any

import botocore.session
import pytest
from botocore.model import ListShape, MapShape, Shape, StringShape, StructureShape
from botocore.validate import ParamValidator

from sagemaker_fleet.fleetspec import CitySpec, FleetSpec, SpotSettings, VpcSettings, load_fleet_spec
from sagemaker_fleet.fleetspec.job_fields import CHECKPOINT_LOCAL_PATH
from sagemaker_fleet.fleetspec.names import checkpoint_s3_uri, job_name, model_s3_uri
from sagemaker_fleet.jobs.request import Submission, compile_training_request
from sagemaker_fleet.sim.server.shapes import SERVICE_NOW

FLEETS_DIR = Path(__file__).resolve().parents[3] / "dags" / "fleets"
FLEET_FILES = sorted(FLEETS_DIR.glob("*.yaml"))
RUN_KEY = "20261129"


@cache
def create_training_job_shape() -> StructureShape:
    model = botocore.session.get_session().get_service_model("sagemaker")
    shape = model.operation_model("CreateTrainingJob").input_shape
    assert shape is not None
    return shape


def _java_pattern(pattern: str) -> re.Pattern[str]:
    """The model's patterns are Java regexes; Python's ``re`` lacks the Unicode classes used in tag patterns."""
    classes = {r"\p{L}": "a-zA-Z\u00c0-\uffff", r"\p{Z}": " \u00a0\u2000-\u200b", r"\p{N}": "0-9"}
    for java, python in classes.items():
        pattern = pattern.replace(java, python)
    return re.compile(pattern)


def model_violations(value: Any, shape: Shape, path: str = "") -> list[str]:
    """Maximums, minimums, patterns and enums of the service model that ParamValidator leaves unchecked."""
    meta = shape.metadata
    found: list[str] = []
    if isinstance(shape, StructureShape):
        for name, member in shape.members.items():
            if name in value:
                found += model_violations(value[name], member, f"{path}.{name}")
    elif isinstance(shape, ListShape):
        found += _length(len(value), meta, path)
        for index, item in enumerate(value):
            found += model_violations(item, shape.member, f"{path}[{index}]")
    elif isinstance(shape, MapShape):
        found += _length(len(value), meta, path)
        for key, item in value.items():
            found += model_violations(key, shape.key, f"{path}{{{key}}}")
            found += model_violations(item, shape.value, f"{path}[{key}]")
    elif isinstance(shape, StringShape):
        found += _length(len(value), meta, path)
        if "pattern" in meta and not _java_pattern(meta["pattern"]).fullmatch(value):
            found.append(f"{path}: {value!r} does not match {meta['pattern']}")
        if shape.enum and value not in shape.enum:
            found.append(f"{path}: {value!r} is not one of the model's {len(shape.enum)} values")
    elif shape.type_name in ("integer", "long"):
        if "max" in meta and shape.name in SERVICE_NOW:
            meta = {**meta, "max": max(meta["max"], SERVICE_NOW[shape.name])}
        found += _length(value, meta, path)
    return found


def _length(size: int, meta: dict[str, Any], path: str) -> list[str]:
    if "min" in meta and size < meta["min"]:
        return [f"{path}: {size} < min {meta['min']}"]
    if "max" in meta and size > meta["max"]:
        return [f"{path}: {size} > max {meta['max']}"]
    return []


def assert_valid_request(request: dict[str, Any]) -> None:
    shape = create_training_job_shape()
    report = ParamValidator().validate(request, shape)
    assert not report.has_errors(), report.generate_report()
    assert model_violations(request, shape) == []
    json.dumps(request)  # plain JSON: what boto3, aiobotocore and the simulator all accept


def submissions(city: CitySpec) -> Iterator[Submission]:
    """What a run may send for one city: the first try, a spot re-submission, the on-demand fallback."""
    yield Submission(city.name, RUN_KEY, attempt=1, keep_alive_seconds=900)
    if city.spot is not None:
        yield Submission(city.name, RUN_KEY, attempt=2, spot=True, keep_alive_seconds=900)
    yield Submission(
        city.name,
        RUN_KEY,
        attempt=city.spot.max_attempts + 1 if city.spot else 2,
        spot=False,
        keep_alive_seconds=300,
    )
    yield Submission(city.name, RUN_KEY, attempt=3, spot=False, keep_alive_seconds=0)


@pytest.mark.parametrize("path", FLEET_FILES, ids=lambda p: p.name)
def test_every_request_of_every_example_fleet_is_valid(path: Path) -> None:
    fleet = load_fleet_spec(path)
    count = 0
    for city in fleet.cities:
        for submission in submissions(city):
            assert_valid_request(compile_training_request(fleet, city, submission))
            count += 1
    assert count >= 3 * len(fleet.cities)


# ------------------------------------------------------------------------------------ a city using every field

FLEET = FleetSpec(
    fleet="citydemandforecast",
    region="us-east-1",
    role_arn="arn:aws:iam::111122223333:role/FleetTraining",
    image_uri="111122223333.dkr.ecr.us-east-1.amazonaws.com/demand:1.4",
    output_s3_uri="s3://acme-ml/fleets/citydemand",
    cities=(),
    input_mode="File",
)
RICH = CitySpec(
    name="santa-cruz-de-la-sierra-" + "x" * 60,  # long: the job name is shortened
    train_s3_uri="s3://acme-ml/data/santa-cruz/",
    role_arn="arn:aws:iam::111122223333:role/teams/b/TeamB",
    image_uri="111122223333.dkr.ecr.us-east-1.amazonaws.com/demand:2.0",
    instance_type="ml.c5.xlarge",
    instance_count=2,
    volume_size_gb=100,
    volume_kms_key_id="arn:aws:kms:us-east-1:111122223333:key/1234abcd-12ab-34cd-56ef-1234567890ab",
    vpc=VpcSettings(("subnet-0b", "subnet-0a"), ("sg-01", "sg-02")),
    enable_network_isolation=True,
    enable_inter_container_traffic_encryption=True,
    max_runtime_seconds=3600,
    hyperparameters=(("epochs", "20"), ("learning_rate", "0.05"), ("use_holidays", "true")),
    environment=(("STAGE", "prod"), ("LOG_LEVEL", "info")),
)
RICH_SPOT = dataclasses.replace(RICH, spot=SpotSettings(max_wait_seconds=3600))


@pytest.mark.parametrize("city", [RICH, RICH_SPOT], ids=["on-demand", "spot"])
def test_a_city_using_every_field_compiles_to_a_valid_request(city: CitySpec) -> None:
    for submission in submissions(city):
        request = compile_training_request(FLEET, city, submission)
        assert_valid_request(request)
    request = compile_training_request(FLEET, city, Submission(city.name, RUN_KEY))
    assert request["ResourceConfig"]["VolumeKmsKeyId"] == city.volume_kms_key_id
    assert request["VpcConfig"] == {
        "Subnets": ["subnet-0b", "subnet-0a"],
        "SecurityGroupIds": ["sg-01", "sg-02"],
    }
    assert request["EnableNetworkIsolation"] is True
    assert request["EnableInterContainerTrafficEncryption"] is True
    assert request["HyperParameters"] == {"epochs": "20", "learning_rate": "0.05", "use_holidays": "true"}
    assert request["Environment"] == {"STAGE": "prod", "LOG_LEVEL": "info"}
    assert request["AlgorithmSpecification"] == {"TrainingImage": city.image_uri, "TrainingInputMode": "File"}
    assert request["TrainingJobName"] == job_name(FLEET.fleet, city.name, RUN_KEY)  # shortened, hashed
    assert not request["TrainingJobName"].startswith(f"{FLEET.fleet}-{city.name}")


# ------------------------------------------------------------------------------------ spot and on-demand rules

SPOT_CITY = CitySpec(
    name="hanoi",
    train_s3_uri="s3://acme-ml/data/hanoi/",
    role_arn="arn:aws:iam::111122223333:role/FleetTraining",
    image_uri="111122223333.dkr.ecr.us-east-1.amazonaws.com/demand:1.4",
    instance_type="ml.m5.xlarge",
    max_runtime_seconds=7200,
    spot=SpotSettings(max_wait_seconds=14400),
)
ON_DEMAND_CITY = dataclasses.replace(
    SPOT_CITY, name="oslo", train_s3_uri="s3://acme-ml/data/oslo/", spot=None
)


@pytest.mark.parametrize("keep_alive", [0, 600])
def test_spot_request_has_max_wait_and_checkpoint_but_never_keep_alive(keep_alive: int) -> None:
    request = compile_training_request(
        FLEET, SPOT_CITY, Submission("hanoi", RUN_KEY, keep_alive_seconds=keep_alive)
    )
    assert_valid_request(request)
    assert request["EnableManagedSpotTraining"] is True
    stopping = request["StoppingCondition"]
    assert stopping == {"MaxRuntimeInSeconds": 7200, "MaxWaitTimeInSeconds": 14400}
    assert stopping["MaxWaitTimeInSeconds"] >= stopping["MaxRuntimeInSeconds"]
    assert request["CheckpointConfig"] == {
        "S3Uri": checkpoint_s3_uri(FLEET.output_s3_uri, "hanoi", RUN_KEY),
        "LocalPath": CHECKPOINT_LOCAL_PATH,
    }
    assert "KeepAlivePeriodInSeconds" not in request["ResourceConfig"]


def test_spot_fallback_is_an_on_demand_attempt_that_resumes_from_the_same_checkpoint() -> None:
    first = compile_training_request(FLEET, SPOT_CITY, Submission("hanoi", RUN_KEY))
    fallback = compile_training_request(
        FLEET, SPOT_CITY, Submission("hanoi", RUN_KEY, attempt=2, spot=False, keep_alive_seconds=300)
    )
    assert_valid_request(fallback)
    assert (
        fallback["TrainingJobName"]
        == job_name(FLEET.fleet, "hanoi", RUN_KEY, 2)
        == first["TrainingJobName"] + "-r2"
    )
    assert "EnableManagedSpotTraining" not in fallback
    assert fallback["StoppingCondition"] == {"MaxRuntimeInSeconds": 7200}  # MaxWait without spot is rejected
    assert fallback["ResourceConfig"]["KeepAlivePeriodInSeconds"] == 300
    assert fallback["CheckpointConfig"] == first["CheckpointConfig"]
    assert fallback["OutputDataConfig"] == first["OutputDataConfig"]


@pytest.mark.parametrize(
    ("keep_alive", "expected"), [(0, None), (1, 1), (600, 600), (3600, 3600), (21600, 21600)]
)
def test_on_demand_keep_alive_only_when_positive(keep_alive: int, expected: int | None) -> None:
    request = compile_training_request(
        FLEET, ON_DEMAND_CITY, Submission("oslo", RUN_KEY, keep_alive_seconds=keep_alive)
    )
    assert_valid_request(request)
    assert request["ResourceConfig"].get("KeepAlivePeriodInSeconds") == expected
    assert "EnableManagedSpotTraining" not in request
    assert "MaxWaitTimeInSeconds" not in request["StoppingCondition"]


def test_asking_for_spot_on_an_on_demand_city_stays_on_demand() -> None:
    request = compile_training_request(FLEET, ON_DEMAND_CITY, Submission("oslo", RUN_KEY, spot=True))
    assert "EnableManagedSpotTraining" not in request


def test_request_names_paths_and_tags() -> None:
    request = compile_training_request(FLEET, ON_DEMAND_CITY, Submission("oslo", RUN_KEY, attempt=4))
    assert request["TrainingJobName"] == "citydemandforecast-oslo-20261129-r4"
    assert request["RoleArn"] == ON_DEMAND_CITY.role_arn
    assert request["OutputDataConfig"] == {"S3OutputPath": model_s3_uri(FLEET.output_s3_uri, "oslo", RUN_KEY)}
    (channel,) = request["InputDataConfig"]
    assert channel["DataSource"]["S3DataSource"]["S3Uri"] == "s3://acme-ml/data/oslo/"
    assert {tag["Key"]: tag["Value"] for tag in request["Tags"]} == {
        "sagemaker-fleet:fleet": "citydemandforecast",
        "sagemaker-fleet:city": "oslo",
        "sagemaker-fleet:run-key": RUN_KEY,
        "sagemaker-fleet:attempt": "4",
    }
    assert request["ResourceConfig"] == {
        "InstanceType": "ml.m5.xlarge",
        "InstanceCount": 1,
        "VolumeSizeInGB": 30,
    }
    assert "VpcConfig" not in request
    assert "HyperParameters" not in request
    assert "Environment" not in request


def test_compiling_is_pure() -> None:
    submission = Submission("hanoi", RUN_KEY, keep_alive_seconds=600)
    first = compile_training_request(FLEET, SPOT_CITY, submission)
    first["StoppingCondition"]["MaxRuntimeInSeconds"] = 1
    assert (
        compile_training_request(FLEET, SPOT_CITY, submission)["StoppingCondition"]["MaxRuntimeInSeconds"]
        == 7200
    )


# ------------------------------------------------------------------------------------ the checker itself


@pytest.mark.parametrize(
    ("change", "complaint"),
    [
        (lambda r: r.update(TrainingJobName="bad_name"), "TrainingJobName"),
        (lambda r: r.update(TrainingJobName="x" * 64), "TrainingJobName: 64 > max 63"),
        (
            lambda r: r["ResourceConfig"].update(KeepAlivePeriodInSeconds=21601),
            "KeepAlivePeriodInSeconds: 21601 > max",
        ),
        (lambda r: r["ResourceConfig"].update(InstanceType="ml.m5.huge"), "InstanceType"),
        (lambda r: r["CheckpointConfig"].update(S3Uri="ftp://x/y"), "CheckpointConfig.S3Uri"),
        (lambda r: r["Tags"].append({"Key": "bad*key", "Value": "v"}), "Tags[4].Key"),
        (lambda r: r.update(Environment={"1BAD": "x"}), "Environment{1BAD}"),
    ],
)
def test_model_violations_catches_what_param_validator_misses(change: Any, complaint: str) -> None:
    request = compile_training_request(FLEET, ON_DEMAND_CITY, Submission("oslo", RUN_KEY))
    change(request)
    assert any(complaint in found for found in model_violations(request, create_training_job_shape()))


def test_param_validator_catches_unknown_and_missing_members() -> None:
    request = compile_training_request(FLEET, ON_DEMAND_CITY, Submission("oslo", RUN_KEY))
    request["KeepAlive"] = 5
    del request["RoleArn"]
    report = ParamValidator().validate(request, create_training_job_shape()).generate_report()
    assert 'Unknown parameter in input: "KeepAlive"' in report
    assert 'Missing required parameter in input: "RoleArn"' in report
