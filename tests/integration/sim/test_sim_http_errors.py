"""Malformed requests get AWS-shaped errors (``__type``, ``message``, 400): never a 500, never a hang."""

from __future__ import annotations

import json
import math
import urllib.error
import urllib.request
from typing import TYPE_CHECKING, Any

import pytest
from botocore.config import Config
from botocore.exceptions import ClientError
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from sim_fixtures import make_request

if TYPE_CHECKING:
    from sagemaker_fleet.sim.client import SimClient
    from sagemaker_fleet.sim.server import SimulatorServer

pytestmark = pytest.mark.integration


def post(url: str, target: str, body: bytes) -> tuple[int, dict[str, Any]]:
    request = urllib.request.Request(
        url,
        data=body,
        method="POST",
        headers={"X-Amz-Target": target, "Content-Type": "application/x-amz-json-1.1"},
    )
    try:
        with urllib.request.urlopen(request, timeout=10) as response:
            return response.status, json.loads(response.read() or b"{}")
    except urllib.error.HTTPError as exc:
        return exc.code, json.loads(exc.read())


@pytest.mark.parametrize(
    "body",
    [
        b"not json",
        b"[1, 2]",
        b'"text"',
        b"\xff\xfe",
        b'{"TrainingJobName": 5}',
        b"{}",
        b'{"TrainingJobName": null}',
    ],
)
def test_garbage_bodies_are_validation_errors(sim: SimClient, body: bytes) -> None:
    status, error = post(sim.url, "SageMaker.CreateTrainingJob", body)
    assert status == 400
    assert error["__type"] == "ValidationException"
    assert error["message"]


def test_an_unknown_sagemaker_operation(sim: SimClient) -> None:
    status, error = post(sim.url, "SageMaker.LaunchRockets", b"{}")
    assert (status, error["__type"]) == (400, "UnknownOperationException")


INVALID = {
    "max wait without spot": (
        make_request("a", max_wait=7200),
        "only supported when EnableManagedSpotTraining",
    ),
    "spot without max wait": (
        {**make_request("a"), "EnableManagedSpotTraining": True},
        "greater than or equal to MaxRuntimeInSeconds",
    ),
    "max wait below max runtime": (
        make_request("a", spot=True, max_runtime=3600, max_wait=1800),
        "greater than or equal to MaxRuntimeInSeconds",
    ),
    "keep-alive with spot": (make_request("a", spot=True, keep_alive=60), "not supported with managed spot"),
    "keep-alive too long": (make_request("a", keep_alive=21601), "less than or equal to 21600"),
    "bad name": (make_request("bad_name"), "regular expression pattern"),
    "unknown instance type": (
        make_request("a", ResourceConfig={"InstanceType": "ml.nope.xlarge"}),
        "enum value set",
    ),
    "string for an integer": (
        make_request("a", ResourceConfig={"InstanceCount": "1"}),
        "must be of type integer",
    ),
}


@pytest.mark.parametrize(("request_", "expected"), INVALID.values(), ids=INVALID.keys())
def test_invalid_requests_are_rejected_like_aws(
    sim: SimClient, request_: dict[str, Any], expected: str
) -> None:
    sm = sim.boto3_client("sagemaker", config=Config(parameter_validation=False))
    with pytest.raises(ClientError) as caught:
        sm.create_training_job(**request_)
    error = caught.value.response["Error"]
    assert error["Code"] == "ValidationException"
    assert expected in error["Message"]
    assert caught.value.response["ResponseMetadata"]["HTTPStatusCode"] == 400


json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=20),
    lambda children: (
        st.lists(children, max_size=3) | st.dictionaries(st.text(max_size=12), children, max_size=4)
    ),
    max_leaves=12,
)
fields = st.sampled_from(
    [
        "TrainingJobName",
        "RoleArn",
        "ResourceConfig",
        "StoppingCondition",
        "OutputDataConfig",
        "MaxResults",
        "NextToken",
        "EnableManagedSpotTraining",
        "CheckpointConfig",
        "SortBy",
        "CreationTimeAfter",
        "Tags",
    ]
)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    operation=st.sampled_from(
        [
            "CreateTrainingJob",
            "DescribeTrainingJob",
            "ListTrainingJobs",
            "StopTrainingJob",
            "UpdateTrainingJob",
        ]
    ),
    body=st.dictionaries(fields, json_values, max_size=6),
)
def test_fuzzed_requests_never_cause_a_server_error(
    sim_server: SimulatorServer, operation: str, body: dict[str, Any]
) -> None:
    status, answer = post(sim_server.url, f"SageMaker.{operation}", json.dumps(body).encode())
    assert status in (200, 400), answer
    if status == 400:
        assert answer["__type"] in {
            "ValidationException",
            "ResourceNotFound",
            "ResourceInUse",
            "ResourceLimitExceeded",
        }


@pytest.mark.parametrize(
    ("path", "body", "says"),
    [
        ("/_sim/clock", b"speed=5", "not valid JSON"),
        ("/_sim/clock", b'{"speed": NaN}', "not valid JSON"),
        ("/_sim/clock", b'{"speed": Infinity}', "not valid JSON"),
        ("/_sim/clock", b'{"speed": "nan"}', "speed must be a finite number"),
        ("/_sim/clock", b'{"speed": 1e999}', "speed must be a finite number"),  # parses to inf
        ("/_sim/clock", b'{"speed": 0}', "speed must be > 0"),
        ("/_sim/clock", b'{"speed": true}', "speed must be a finite number"),
        ("/_sim/clock", b'{"advance": -5}', "advance must be ≥ 0"),
        ("/_sim/reset", b'{"speed": -1}', "speed must be > 0"),
        ("/_sim/throttle", b'{"share": NaN}', "not valid JSON"),
        ("/_sim/faults/spot", b'{"discount": "x"}', "discount must be a finite number"),
    ],
)
def test_the_admin_api_refuses_non_json_and_non_finite_numbers(
    sim: SimClient, path: str, body: bytes, says: str
) -> None:
    before = sim.advance(0)
    request = urllib.request.Request(
        sim.url + path, data=body, method="POST", headers={"Content-Type": "application/json"}
    )
    with pytest.raises(urllib.error.HTTPError) as refused:
        urllib.request.urlopen(request, timeout=10)
    assert refused.value.code == 400
    assert says in json.loads(refused.value.read())["error"]
    after = sim.advance(1)
    assert math.isfinite(after)
    assert after >= before + 1  # the clock still runs
