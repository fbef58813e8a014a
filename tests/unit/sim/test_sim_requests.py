"""CreateTrainingJob validation in the engine: SageMaker's own rules, with AWS-shaped messages."""

from __future__ import annotations

import re
from typing import Any

import pytest

from sagemaker_fleet.jobs.keys import warm_pool_key
from sagemaker_fleet.sim import SimApiError, SimEngine
from sagemaker_fleet.sim.request import parse_training_request
from sim_fixtures import make_request


def rejected(engine: SimEngine, request: dict[str, Any]) -> SimApiError:
    with pytest.raises(SimApiError) as caught:
        engine.create_training_job(request)
    assert caught.value.http_status == 400
    return caught.value


def test_max_wait_without_spot_is_rejected(sim_engine: SimEngine) -> None:
    error = rejected(sim_engine, make_request("a", max_wait=7200))
    assert error.code == "ValidationException"
    assert error.message == (
        "Invalid MaxWaitTimeInSeconds. It is only supported when EnableManagedSpotTraining is set to true"
    )


@pytest.mark.parametrize("max_wait", [None, 3599])
def test_spot_needs_max_wait_at_least_max_runtime(sim_engine: SimEngine, max_wait: int | None) -> None:
    request = make_request("a", spot=True, max_runtime=3600)
    if max_wait is None:
        del request["StoppingCondition"]["MaxWaitTimeInSeconds"]
    else:
        request["StoppingCondition"]["MaxWaitTimeInSeconds"] = max_wait
    error = rejected(sim_engine, request)
    assert "greater than or equal to MaxRuntimeInSeconds" in error.message


def test_max_wait_equal_to_max_runtime_is_accepted(sim_engine: SimEngine) -> None:
    sim_engine.create_training_job(make_request("a", spot=True, max_runtime=3600, max_wait=3600))


def test_keep_alive_with_spot_is_rejected(sim_engine: SimEngine) -> None:
    error = rejected(sim_engine, make_request("a", spot=True, keep_alive=300))
    assert "Warm pools are not supported with managed spot training" in error.message


@pytest.mark.parametrize(
    ("keep_alive", "bound"), [(21601, "less than or equal to 21600"), (-1, "greater than")]
)
def test_keep_alive_outside_0_to_21600_is_rejected(
    sim_engine: SimEngine, keep_alive: int, bound: str
) -> None:
    error = rejected(sim_engine, make_request("a", ResourceConfig={"KeepAlivePeriodInSeconds": keep_alive}))
    assert f"Value '{keep_alive}' at 'resourceConfig.keepAlivePeriodInSeconds'" in error.message
    assert bound in error.message


def test_keep_alive_above_the_guide_limit_is_accepted(sim_engine: SimEngine) -> None:
    sim_engine.create_training_job(make_request("a", keep_alive=21600))


@pytest.mark.parametrize("name", ["a_b", "-a", "a" * 64, "a--", ""])
def test_job_names_follow_the_sagemaker_pattern(sim_engine: SimEngine, name: str) -> None:
    error = rejected(sim_engine, make_request(name))
    assert re.match(r"^[12] validation errors? detected: Value", error.message)
    assert "'trainingJobName'" in error.message


def test_required_members_are_reported_together(sim_engine: SimEngine) -> None:
    request = make_request("a")
    del request["RoleArn"], request["OutputDataConfig"]
    error = rejected(sim_engine, request)
    assert error.message.startswith("2 validation errors detected:")
    assert "Value null at 'roleArn' failed to satisfy constraint: Member must not be null" in error.message
    assert "'outputDataConfig.s3OutputPath'" in error.message


def test_heterogeneous_clusters_are_out_of_scope(sim_engine: SimEngine) -> None:
    request = make_request("a", ResourceConfig={"InstanceGroups": [{"InstanceGroupName": "g"}]})
    assert "Heterogeneous clusters" in rejected(sim_engine, request).message


def test_max_runtime_is_at_most_28_days(sim_engine: SimEngine) -> None:
    assert (
        "MaxRuntimeInSeconds" in rejected(sim_engine, make_request("a", max_runtime=28 * 86400 + 1)).message
    )


def test_a_rejected_request_leaves_no_job(sim_engine: SimEngine) -> None:
    rejected(sim_engine, make_request("a", max_wait=7200))
    sim_engine.create_training_job(make_request("a"))


def test_the_parsed_request_uses_the_one_matching_key_function() -> None:
    request = make_request("a", keep_alive=300, checkpoint_uri="s3://b/ckpt", city="seoul")
    parsed = parse_training_request(request)
    assert parsed.key == warm_pool_key(request)
    assert parsed.checkpoint_uri == "s3://b/ckpt/"
    assert parsed.tags == {"sagemaker-fleet:city": "seoul"}
    assert (parsed.keep_alive, parsed.spot, parsed.max_runtime, parsed.max_wait) == (300, False, 7200, None)


def test_the_startup_row_follows_the_input_mode_and_fsx() -> None:
    assert parse_training_request(make_request("a", input_mode="File")).input_mode == "File"
    fsx = make_request("a", input_mode="File")
    fsx["InputDataConfig"][0]["DataSource"] = {
        "FileSystemDataSource": {
            "FileSystemId": "fs-1",
            "FileSystemAccessMode": "ro",
            "FileSystemType": "FSxLustre",
            "DirectoryPath": "/fsx/data",
        }
    }
    assert parse_training_request(fsx).input_mode == "FSx"


def test_missing_max_runtime_defaults_to_one_day(sim_engine: SimEngine) -> None:
    request = make_request("a")
    del request["StoppingCondition"]
    sim_engine.create_training_job(request)
    assert sim_engine.describe_training_job("a")["StoppingCondition"] == {"MaxRuntimeInSeconds": 86400}
