"""SageMakerFleetHook against the simulated endpoint over HTTP (boto3 and aiobotocore)."""

from __future__ import annotations

import asyncio

import pytest
from botocore.exceptions import ClientError

from sagemaker_fleet.errors import ForeignJobError
from sagemaker_fleet.fleetspec import load_fleet_spec
from sagemaker_fleet.hooks.fleet import CapacityUnavailableError, SageMakerFleetHook
from sagemaker_fleet.jobs.errors import error_code
from sagemaker_fleet.jobs.request import Submission, compile_training_request
from sagemaker_fleet.jobs.statuses import KEEP_ALIVE_REFUSALS

pytestmark = pytest.mark.integration


@pytest.fixture
def fleet(fleets_dir):
    return load_fleet_spec(fleets_dir / "small.yaml")


def request_for(fleet, city: str, attempt: int = 1, keep_alive: int = 0):
    return compile_training_request(
        fleet, fleet.city(city), Submission(city, "20261129", attempt, keep_alive_seconds=keep_alive)
    )


def test_create_or_attach_never_launches_twice(aws_sim, fleet) -> None:
    hook = SageMakerFleetHook()
    first = hook.create_or_attach(request_for(fleet, "seoul"))
    second = hook.create_or_attach(request_for(fleet, "seoul"))
    assert first.created
    assert not second.created
    assert first.job_name == second.job_name == "small-seoul-20261129"
    assert aws_sim.calls()["calls"].get("CreateTrainingJob") == 1
    assert len(aws_sim.state()["jobs"]) == 1


def test_describe_missing_is_none(aws_sim) -> None:
    assert SageMakerFleetHook().describe("small-nowhere-20261129") is None


def test_list_jobs_pages_through_everything(aws_sim, fleet) -> None:
    hook = SageMakerFleetHook()
    aws_sim.set_quota("ml.m5.xlarge", instances=200, warm_pools=0)
    cities = [c.name for c in fleet.cities if c.instance_type == "ml.m5.xlarge"]
    for i in range(105):  # a few submissions of each city: more than one page of 100
        request = request_for(fleet, cities[i % len(cities)], attempt=i // len(cities) + 1)
        hook.create_or_attach(request)
    names = {s["TrainingJobName"] for s in hook.list_jobs("small-")}
    assert len(names) == 105


def test_quota_exhaustion_is_capacity_unavailable(aws_sim, fleet) -> None:
    hook = SageMakerFleetHook()
    aws_sim.set_quota("ml.m5.xlarge", instances=1, warm_pools=0)
    hook.create_or_attach(request_for(fleet, "seoul"))
    with pytest.raises(CapacityUnavailableError):
        hook.create_or_attach(request_for(fleet, "tokyo"))


def test_throttling_is_absorbed_by_adaptive_retries(aws_sim, fleet) -> None:
    hook = SageMakerFleetHook()
    aws_sim.throttle(0.2)
    for city in ("seoul", "tokyo", "lagos", "lima"):
        hook.create_or_attach(request_for(fleet, city))
    aws_sim.throttle(0.0)
    assert aws_sim.calls()["throttled"], "the simulator throttled nothing: the test proves nothing"
    assert len(list(hook.list_jobs("small-"))) == 4


def test_update_keep_alive_and_async_describe(aws_sim, fleet) -> None:
    hook = SageMakerFleetHook()
    aws_sim.set_work(300, job="small-seoul-20261129")
    hook.create_or_attach(request_for(fleet, "seoul", keep_alive=600))
    aws_sim.advance(800)
    assert hook.describe("small-seoul-20261129")["WarmPoolStatus"]["Status"] == "Available"
    hook.update_keep_alive("small-seoul-20261129", 0)
    assert hook.describe("small-seoul-20261129")["WarmPoolStatus"]["Status"] == "Terminated"

    async def adescribe():
        async with await hook.get_async_conn() as client:
            return await hook.adescribe(client, "small-seoul-20261129"), await hook.adescribe(
                client, "nope-x-1"
            )

    found, missing = asyncio.run(adescribe())
    assert found["TrainingJobStatus"] == "Completed"
    assert missing is None


def test_a_keep_alive_change_refused_while_the_job_runs_is_a_refusal_to_the_dispatch(aws_sim, fleet) -> None:
    """Against an endpoint that refuses keep-alive changes of running jobs, the hook's UpdateTrainingJob raises the
    ClientError whose code the dispatch counts as a refusal (done, not sent again: KEEP_ALIVE_REFUSALS), both
    through boto3 and through aiobotocore (the run's poller)."""
    hook = SageMakerFleetHook()
    aws_sim.refuse_keep_alive_while_running()
    hook.create_or_attach(request_for(fleet, "seoul", keep_alive=600))
    with pytest.raises(ClientError) as sync:
        hook.update_keep_alive("small-seoul-20261129", 0)

    async def aupdate() -> ClientError:
        async with await hook.get_async_conn() as client:
            with pytest.raises(ClientError) as caught:
                await hook.aupdate_keep_alive(client, "small-seoul-20261129", 0)
            return caught.value

    for refusal in (sync.value, asyncio.run(aupdate())):
        assert error_code(refusal) == "ValidationException"
        assert error_code(refusal) in KEEP_ALIVE_REFUSALS
        assert "in status InProgress" in str(refusal)
    assert aws_sim.calls()["errors"]["UpdateTrainingJob:ValidationException"] == 2


def foreign_request(fleet, city: str = "seoul"):
    """A request of the same job name whose ownership tags say another fleet/city made it (a job made by hand, or
    by a fleet of the old naming rule where fleet ``city`` + city ``demand-paris`` = fleet ``city-demand`` +
    city ``paris``)."""
    request = request_for(fleet, city)
    request["Tags"] = [
        {"Key": "sagemaker-fleet:fleet", "Value": "other"} if t["Key"] == "sagemaker-fleet:fleet" else t
        for t in request["Tags"]
    ]
    return request


def test_an_existing_job_of_another_owner_is_never_attached_to(aws_sim, fleet) -> None:
    hook = SageMakerFleetHook()
    hook.create_or_attach(foreign_request(fleet))
    for known_absent in (False, True):  # found by the describe first, or through the duplicate-name answer
        with pytest.raises(
            ForeignJobError, match=r"small-seoul-20261129 already exists but is not this fleet's"
        ):
            hook.create_or_attach(request_for(fleet, "seoul"), known_absent=known_absent)

    async def acreate():
        async with await hook.get_async_conn() as client:
            return await hook.acreate_or_attach(client, request_for(fleet, "seoul"))

    with pytest.raises(ForeignJobError, match="'sagemaker-fleet:fleet': 'other'"):
        asyncio.run(acreate())
    assert aws_sim.calls()["calls"].get("CreateTrainingJob") == 3  # refused as duplicates: still one job
    assert len(aws_sim.state()["jobs"]) == 1


def test_a_job_of_this_owner_is_attached_to_on_both_paths(aws_sim, fleet) -> None:
    hook = SageMakerFleetHook()
    hook.create_or_attach(request_for(fleet, "seoul"))

    async def acreate():
        async with await hook.get_async_conn() as client:
            return await hook.acreate_or_attach(client, request_for(fleet, "seoul"))

    assert not hook.create_or_attach(request_for(fleet, "seoul")).created
    assert not asyncio.run(acreate()).created
    assert len(aws_sim.state()["jobs"]) == 1
