"""aiobotocore against the endpoint, in a real asyncio loop (moto's in-process mock cannot serve aiobotocore)."""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING, Any

import pytest
from botocore.exceptions import ClientError

from sim_fixtures import make_request

if TYPE_CHECKING:
    from sagemaker_fleet.sim.client import SimClient

pytestmark = pytest.mark.integration


def test_create_describe_and_list_with_aiobotocore(sim: SimClient) -> None:
    async def scenario() -> tuple[dict[str, Any], dict[str, Any]]:
        async with sim.aio_client("sagemaker") as sm:
            await sm.create_training_job(**make_request("async-a", keep_alive=300))
            described = await sm.describe_training_job(TrainingJobName="async-a")
            listed = await sm.list_training_jobs(NameContains="async")
            return described, listed

    described, listed = asyncio.run(scenario())
    assert described["TrainingJobStatus"] == "InProgress"
    assert described["ResourceConfig"]["KeepAlivePeriodInSeconds"] == 300
    assert [s["TrainingJobName"] for s in listed["TrainingJobSummaries"]] == ["async-a"]


def test_many_concurrent_describes_poll_a_fleet_to_completion(sim: SimClient) -> None:
    names = [f"async-{i:02d}" for i in range(20)]
    sim.set_speed(500)

    async def poll_until_done(sm: Any, name: str) -> str:
        while True:
            described = await sm.describe_training_job(TrainingJobName=name)
            if described["TrainingJobStatus"] in ("Completed", "Failed", "Stopped"):
                return str(described["TrainingJobStatus"])
            await asyncio.sleep(0.1)

    async def scenario() -> list[str]:
        async with sim.aio_client("sagemaker") as sm:
            await asyncio.gather(*(sm.create_training_job(**make_request(n)) for n in names))
            return await asyncio.wait_for(
                asyncio.gather(*(poll_until_done(sm, n) for n in names)), timeout=30
            )

    assert asyncio.run(scenario()) == ["Completed"] * len(names)
    assert sim.calls()["calls"]["CreateTrainingJob"] == len(names)


def test_errors_surface_as_client_errors_in_aiobotocore(sim: SimClient) -> None:
    async def scenario() -> dict[str, Any]:
        async with sim.aio_client("sagemaker") as sm:
            await sm.create_training_job(**make_request("dup"))
            try:
                await sm.create_training_job(**make_request("dup"))
            except ClientError as exc:
                return dict(exc.response["Error"])
        raise AssertionError("the duplicate was accepted")

    error = asyncio.run(scenario())
    assert error["Code"] == "ResourceInUse"


def test_s3_through_aiobotocore(sim: SimClient) -> None:
    async def scenario() -> bytes:
        async with sim.aio_client("s3") as s3:
            await s3.create_bucket(Bucket="acme-ml")
            await s3.put_object(Bucket="acme-ml", Key="k", Body=b"payload")
            response = await s3.get_object(Bucket="acme-ml", Key="k")
            async with response["Body"] as stream:
                data: bytes = await stream.read()
                return data

    assert asyncio.run(scenario()) == b"payload"
