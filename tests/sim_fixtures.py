"""Pytest fixtures that start the simulated SageMaker endpoint, and a request builder for simulator tests.

- ``sim_server`` (session): one :class:`SimulatorServer` on a free loopback port, real-time clock (speed 1);
  tests move time with ``sim.advance(seconds)`` (deterministic) or raise the speed.
- ``sim`` (function): resets the engine and moto, yields a :class:`SimClient` (``.url``, ``.boto3_client(...)``,
  ``.aio_client(...)``, admin helpers).
- ``sim_engine`` (function): an engine on a :class:`VirtualClock`, no HTTP (unit tests, drivers).
- :func:`make_request`: a valid CreateTrainingJob request, every warm-pool matching field overridable.

Spot interruptions and capacity waits are off in the fixtures' base configuration so outcomes are exact; tests
that need them switch them on (``sim.spot(...)``, or ``SpotMarketConfig``).
"""

from __future__ import annotations

import copy
from collections.abc import Callable, Iterator
from typing import Any

import pytest

from sagemaker_fleet.sim import SimConfig, SimEngine, SpotMarketConfig, VirtualClock
from sagemaker_fleet.sim.client import SimClient
from sagemaker_fleet.sim.server import ServerSettings, SimulatorServer

ROLE = "arn:aws:iam::111122223333:role/FleetTraining"
IMAGE = "111122223333.dkr.ecr.us-east-1.amazonaws.com/demand:1.4"
#: Spot without random interruptions or capacity waits; the discount stays seeded around 70 %.
QUIET_SPOT = SpotMarketConfig(interruptions_per_hour=0.0, capacity_wait_mean_seconds=0.0)
TEST_CONFIG = SimConfig(seed=7, spot=QUIET_SPOT)


def make_request(
    name: str,
    *,
    keep_alive: int = 0,
    spot: bool = False,
    max_runtime: int = 7200,
    max_wait: int | None = None,
    input_mode: str = "FastFile",
    checkpoint_uri: str | None = None,
    city: str | None = None,
    **overrides: Any,
) -> dict[str, Any]:
    """A CreateTrainingJob request; ``overrides`` replace top-level members, ``ResourceConfig`` is merged."""
    request: dict[str, Any] = {
        "TrainingJobName": name,
        "AlgorithmSpecification": {"TrainingImage": IMAGE, "TrainingInputMode": input_mode},
        "RoleArn": ROLE,
        "InputDataConfig": [
            {
                "ChannelName": "train",
                "DataSource": {
                    "S3DataSource": {
                        "S3DataType": "S3Prefix",
                        "S3Uri": "s3://acme-ml/data/seoul/",
                        "S3DataDistributionType": "FullyReplicated",
                    }
                },
            }
        ],
        "OutputDataConfig": {"S3OutputPath": "s3://acme-ml/fleets/test/models/"},
        "ResourceConfig": {"InstanceType": "ml.m5.xlarge", "InstanceCount": 1, "VolumeSizeInGB": 30},
        "StoppingCondition": {"MaxRuntimeInSeconds": max_runtime},
    }
    if keep_alive:
        request["ResourceConfig"]["KeepAlivePeriodInSeconds"] = keep_alive
    if spot:
        request["EnableManagedSpotTraining"] = True
        request["StoppingCondition"]["MaxWaitTimeInSeconds"] = max_wait or max_runtime * 2
    elif max_wait is not None:
        request["StoppingCondition"]["MaxWaitTimeInSeconds"] = max_wait
    if checkpoint_uri is not None:
        request["CheckpointConfig"] = {"S3Uri": checkpoint_uri, "LocalPath": "/opt/ml/checkpoints"}
    if city is not None:
        request["Tags"] = [{"Key": "sagemaker-fleet:city", "Value": city}]
    for key, value in overrides.items():
        if key == "ResourceConfig":
            request["ResourceConfig"].update(value)
        else:
            request[key] = copy.deepcopy(value)
    return request


@pytest.fixture(scope="session")
def sim_server() -> Iterator[SimulatorServer]:
    with SimulatorServer(ServerSettings(speed=1.0, config=TEST_CONFIG)) as server:
        yield server


@pytest.fixture
def sim(sim_server: SimulatorServer) -> SimClient:
    client = SimClient(sim_server.url)
    client.reset()
    return client


@pytest.fixture
def sim_engine() -> SimEngine:
    return SimEngine(TEST_CONFIG, VirtualClock())


def run_for(engine: SimEngine, seconds: float) -> float:
    """Advance an engine on a VirtualClock by ``seconds``, processing everything due."""
    return engine.run_until(engine.now() + seconds)


def run_until_ended(engine: SimEngine, name: str, horizon: float = 30 * 24 * 3600) -> dict[str, Any]:
    """Jump from event to event until job ``name`` is Completed, Failed or Stopped; returns its description."""
    limit = engine.now() + horizon
    while True:
        described = engine.describe_training_job(name)
        if described["TrainingJobStatus"] in ("Completed", "Failed", "Stopped"):
            return described
        upcoming = engine.next_event_time()
        if upcoming is None or upcoming > limit:
            raise AssertionError(f"{name} never ended; it is {described['SecondaryStatus']}")
        engine.run_until(upcoming)


def run_until_status(
    engine: SimEngine, name: str, secondary: str, horizon: float = 24 * 3600
) -> dict[str, Any]:
    """Jump from event to event until job ``name`` reaches SecondaryStatus ``secondary``."""
    limit = engine.now() + horizon
    while True:
        described = engine.describe_training_job(name)
        if described["SecondaryStatus"] == secondary:
            return described
        upcoming = engine.next_event_time()
        if upcoming is None or upcoming > limit:
            raise AssertionError(f"{name} never reached {secondary}; it is {described['SecondaryStatus']}")
        engine.run_until(upcoming)


def advance_until(
    sim: SimClient, client: Any, name: str, statuses: set[str], step: float = 60.0
) -> dict[str, Any]:
    """Poll DescribeTrainingJob over HTTP, moving the simulated clock ``step`` seconds between polls."""
    for _ in range(10_000):
        described: dict[str, Any] = client.describe_training_job(TrainingJobName=name)
        if described["TrainingJobStatus"] in statuses or described["SecondaryStatus"] in statuses:
            return described
        sim.advance(step)
    raise AssertionError(f"{name} never reached {statuses}")


def advance_clock_until(
    sim: SimClient, done: Callable[[], bool], step: float = 60.0, limit: float = 6 * 3600
) -> None:
    """Move the simulated clock ``step`` seconds at a time until ``done()``; fail after ``limit`` seconds."""
    moved = 0.0
    while not done():
        assert moved < limit, "the simulator never reached the awaited state"
        sim.advance(step)
        moved += step


async def first_event(trigger: Any) -> dict[str, Any]:
    """The payload of the first event a trigger fires (it must fire one)."""
    async for event in trigger.run():
        return dict(event.payload)
    raise AssertionError("trigger ended without an event")
