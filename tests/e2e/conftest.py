"""End-to-end harness: the simulator in-process, real Airflow components as subprocesses, Postgres and Redis.

Time: the simulator runs ``SPEED``× faster than the wall clock, so every real second Airflow spends between a
job's end and its successor's CreateTrainingJob costs ``SPEED`` simulated seconds. The e2e fleet's
``orchestration_latency_seconds`` (1800) gives every handed-over pool the 3600 s keep-alive cap: 90 s of real
time at ``SPEED`` 40, enough to ride over a killed and restarted scheduler or triggerer.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path
from types import MappingProxyType

import pytest

from sagemaker_fleet.fleetspec import FleetSpec, load_fleet_spec
from sagemaker_fleet.sim import SimConfig, SpotMarketConfig
from sagemaker_fleet.sim.client import SimClient
from sagemaker_fleet.sim.server import ServerSettings, SimulatorServer
from sagemaker_fleet.sim.workload import WorkModel

E2E_DIR = Path(__file__).resolve().parent
SPEED = 40.0
PG = {"host": "127.0.0.1", "port": 5432, "user": "postgres"}


@pytest.fixture(scope="module")
def e2e_spec() -> FleetSpec:
    return load_fleet_spec(E2E_DIR / "fleets" / "e2e.yaml")


@pytest.fixture(scope="module")
def twice_spec() -> FleetSpec:
    return load_fleet_spec(E2E_DIR / "fleets" / "twice.yaml")


@pytest.fixture(scope="module")
def registry_spec() -> FleetSpec:
    return load_fleet_spec(E2E_DIR / "fleets" / "registry.yaml")


@pytest.fixture(scope="module")
def e2e_server(
    e2e_spec: FleetSpec, twice_spec: FleetSpec, registry_spec: FleetSpec
) -> Iterator[SimulatorServer]:
    """The simulator, in-process: the tests take it off the network (``outage``) and read its admin API."""
    config = SimConfig(
        seed=11,
        work=WorkModel.from_fleets([e2e_spec, twice_spec, registry_spec]),
        # the registry fleet runs on the e2e fleet's instance type, after it: the e2e fleet's quota stands
        quotas=MappingProxyType({**registry_spec.quotas, **e2e_spec.quotas, **twice_spec.quotas}),
        spot=SpotMarketConfig(interruptions_per_hour=0.5, capacity_wait_mean_seconds=30.0),
    )
    with SimulatorServer(ServerSettings(speed=SPEED, config=config)) as server:
        yield server


@pytest.fixture(scope="module")
def e2e_sim(e2e_server: SimulatorServer) -> SimClient:
    client = SimClient(e2e_server.url)
    client.boto3_client("s3").create_bucket(Bucket="sagemaker-fleet-e2e")
    return client


@pytest.fixture
def postgres_url(request: pytest.FixtureRequest) -> Iterator[str]:
    """A fresh database for one Airflow stack, dropped afterwards."""
    import psycopg2

    name = f"sf_e2e_{request.node.name.split('[')[0][-20:]}_{os.getpid()}".lower()
    admin = psycopg2.connect(dbname="postgres", **PG)
    admin.autocommit = True
    with admin.cursor() as cursor:
        cursor.execute(f'DROP DATABASE IF EXISTS "{name}"')
        cursor.execute(f'CREATE DATABASE "{name}"')
    try:
        yield f"postgresql+psycopg2://{PG['user']}@{PG['host']}:{PG['port']}/{name}"
    finally:
        with admin.cursor() as cursor:
            cursor.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
        admin.close()
