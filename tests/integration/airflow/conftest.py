"""Point the Airflow ``aws_default`` connection at the simulator for the Airflow-component tests."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING

import pytest

if TYPE_CHECKING:
    from sagemaker_fleet.sim.client import SimClient


def sim_connection_uri(url: str) -> str:
    return json.dumps(
        {
            "conn_type": "aws",
            "login": "testing",
            "password": "testing",
            "extra": {"endpoint_url": url, "region_name": "us-east-1"},
        }
    )


@pytest.fixture
def aws_sim(sim: SimClient, monkeypatch: pytest.MonkeyPatch) -> SimClient:
    """The simulator, reset, with ``aws_default`` pointing at it through AIRFLOW_CONN_AWS_DEFAULT."""
    monkeypatch.setenv("AIRFLOW_CONN_AWS_DEFAULT", sim_connection_uri(sim.url))
    monkeypatch.setenv("AWS_DEFAULT_REGION", "us-east-1")
    return sim
