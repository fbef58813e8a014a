"""Throttling injection returns real ThrottlingException responses that botocore retries."""

from __future__ import annotations

import types
from typing import TYPE_CHECKING

import botocore.endpoint
import pytest
from botocore.config import Config
from botocore.exceptions import ClientError

from sim_fixtures import make_request

if TYPE_CHECKING:
    from sagemaker_fleet.sim.client import SimClient

pytestmark = pytest.mark.integration


@pytest.fixture(autouse=True)
def no_backoff(monkeypatch: pytest.MonkeyPatch) -> None:
    """botocore sleeps between retries (up to 20 s); the retries themselves are what these tests check."""
    monkeypatch.setattr(botocore.endpoint, "time", types.SimpleNamespace(sleep=lambda seconds: None))


def test_botocore_retries_throttled_calls(sim: SimClient) -> None:
    sm = sim.boto3_client("sagemaker", config=Config(retries={"mode": "standard", "max_attempts": 10}))
    sm.create_training_job(**make_request("job-a"))
    sim.throttle(0.4, ["DescribeTrainingJob"])

    retried = 0
    for _ in range(30):
        response = sm.describe_training_job(TrainingJobName="job-a")
        retried += response["ResponseMetadata"]["RetryAttempts"]

    calls = sim.calls()
    assert calls["throttled"]["DescribeTrainingJob"] == retried > 0
    assert calls["calls"]["DescribeTrainingJob"] == 30 + retried


def test_throttled_calls_surface_as_throttling_exception_when_retries_run_out(sim: SimClient) -> None:
    sm = sim.boto3_client("sagemaker", config=Config(retries={"mode": "standard", "total_max_attempts": 2}))
    sim.throttle(1.0)
    with pytest.raises(ClientError) as caught:
        sm.list_training_jobs()
    assert caught.value.response["Error"] == {"Code": "ThrottlingException", "Message": "Rate exceeded"}
    assert caught.value.response["ResponseMetadata"]["HTTPStatusCode"] == 400
    assert sim.calls()["throttled"]["ListTrainingJobs"] == 2
