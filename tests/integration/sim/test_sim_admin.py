"""The ``/_sim/`` admin paths: state, counters, reset, clock, quotas, work overrides and their errors."""

from __future__ import annotations

from typing import Any

import pytest
from botocore.exceptions import ClientError

from sagemaker_fleet.sim.client import SimAdminError, SimClient
from sim_fixtures import advance_until, make_request

pytestmark = pytest.mark.integration


def test_state_shows_jobs_pools_clock_and_quotas(sim: SimClient) -> None:
    sm = sim.boto3_client("sagemaker")
    sim.set_quota("ml.m5.xlarge", instances=5, warm_pools=2, spot_instances=3)
    sm.create_training_job(**make_request("job-a", keep_alive=300))

    state = sim.state()
    assert state["clock"]["kind"] == "WallClock"
    assert state["clock"]["speed"] == 1.0
    (job,) = state["jobs"]
    assert (job["name"], job["status"], job["secondary_status"]) == ("job-a", "InProgress", "Starting")
    assert state["quotas"]["ml.m5.xlarge"]["limit"] == {"instances": 5, "warm_pools": 2, "spot_instances": 3}
    assert state["quotas"]["ml.m5.xlarge"]["usage"]["on_demand"] == 1
    assert state["next_event_time"] is not None


def test_call_counters_per_operation(sim: SimClient) -> None:
    sm = sim.boto3_client("sagemaker")
    sm.create_training_job(**make_request("job-a"))
    for _ in range(3):
        sm.describe_training_job(TrainingJobName="job-a")
    sm.list_training_jobs()
    assert sim.calls()["calls"] == {"CreateTrainingJob": 1, "DescribeTrainingJob": 3, "ListTrainingJobs": 1}


def test_reset_forgets_everything_and_can_reseed(sim: SimClient) -> None:
    sm = sim.boto3_client("sagemaker")
    sm.create_training_job(**make_request("job-a"))
    sim.throttle(0.5)
    sim.reset(seed=99, speed=10)

    state = sim.state()
    assert state["jobs"] == []
    assert state["config"]["seed"] == 99
    assert state["config"]["throttle_share"] == 0.0
    assert state["clock"]["speed"] == 10
    assert sim.calls()["calls"] == {}


def test_a_city_work_override_applies_to_its_jobs(sim: SimClient) -> None:
    sm = sim.boto3_client("sagemaker")
    sim.set_work(4321, city="seoul")
    sm.create_training_job(**make_request("a-seoul-job", city="seoul"))
    facts = sim.job("a-seoul-job")
    assert (facts["work_seconds"], facts["work_source"]) == (4321, "city-override")


def test_admin_errors_are_clear(sim: SimClient) -> None:
    with pytest.raises(SimAdminError) as missing:
        sim.interrupt("nope")
    assert missing.value.status == 404
    sim.boto3_client("sagemaker").create_training_job(**make_request("od"))
    with pytest.raises(SimAdminError) as not_spot:
        sim.interrupt("od")
    assert not_spot.value.status == 400
    with pytest.raises(SimAdminError) as bad_share:
        sim.throttle(2.0)
    assert bad_share.value.status == 400
    with pytest.raises(SimAdminError) as unknown:
        sim._call("POST", "launch-rockets", {})
    assert unknown.value.status == 404
    with pytest.raises(SimAdminError) as bad_spot:
        sim.spot(colour="blue")
    assert "unknown spot settings" in str(bad_spot.value)


def test_a_server_without_moto_serves_only_the_training_apis() -> None:
    from sagemaker_fleet.sim.server import ServerSettings, SimulatorServer

    with SimulatorServer(ServerSettings(with_moto=False)) as server:
        client = SimClient(server.url)
        sm = client.boto3_client("sagemaker")
        sm.create_training_job(**make_request("job-a"))
        assert sm.describe_training_job(TrainingJobName="job-a")["TrainingJobStatus"] == "InProgress"
        with pytest.raises(ClientError):
            client.boto3_client("sts").get_caller_identity()
        with pytest.raises(ClientError) as s3_error:
            client.boto3_client("s3").list_buckets()
        assert s3_error.value.response["Error"]["Code"] == "UnknownOperationException"


def run_to_the_end(sim: SimClient, requests: dict[str, dict[str, Any]]) -> dict[str, dict[str, Any]]:
    """Each request created, then the clock advanced until each job ended: their descriptions by name."""
    sm = sim.boto3_client("sagemaker")
    for request in requests.values():
        sm.create_training_job(**request)
    return {name: advance_until(sim, sm, name, {"Completed", "Failed"}) for name in requests}


def test_a_failing_city_fails_every_job_and_only_its_own(sim: SimClient) -> None:
    assert sim.failures(cities=["seoul"]) == {"probability": 0.0, "cities": ["seoul"], "first_cities": []}
    ended = run_to_the_end(
        sim, {name: make_request(name, city=name.split("-")[0]) for name in ("seoul-1", "seoul-2", "lima-1")}
    )
    assert {n: d["TrainingJobStatus"] for n, d in ended.items()} == {
        "seoul-1": "Failed",
        "seoul-2": "Failed",
        "lima-1": "Completed",
    }
    assert ended["seoul-1"]["FailureReason"].startswith("AlgorithmError")
    assert sim.state()["config"]["failing_cities"] == ["seoul"]
    # a fleet-qualified entry does not match a job of another (here: no) fleet; [] clears the list
    assert sim.failures(cities=["otherfleet/lima"])["cities"] == ["otherfleet/lima"]
    (again,) = run_to_the_end(sim, {"lima-2": make_request("lima-2", city="lima")}).values()
    assert again["TrainingJobStatus"] == "Completed"
    assert sim.failures(cities=[])["cities"] == []
    with pytest.raises(SimAdminError, match="cities is a list"):
        sim.failures(cities="seoul")  # type: ignore[arg-type]
    with pytest.raises(SimAdminError, match="unknown failure settings"):
        sim._call("POST", "faults/failures", {"city": "seoul"})


def test_keep_alive_changes_of_running_jobs_are_refused_or_accepted_as_set(sim: SimClient) -> None:
    sm = sim.boto3_client("sagemaker")
    sm.create_training_job(**make_request("job-a", keep_alive=600))
    assert sim.state()["config"]["refuse_keep_alive_while_running"] is False

    assert sim.refuse_keep_alive_while_running() is True
    assert sim.state()["config"]["refuse_keep_alive_while_running"] is True
    with pytest.raises(ClientError, match="ValidationException"):
        sm.update_training_job(TrainingJobName="job-a", ResourceConfig={"KeepAlivePeriodInSeconds": 60})
    assert sim.refuse_keep_alive_while_running(False) is False
    sm.update_training_job(TrainingJobName="job-a", ResourceConfig={"KeepAlivePeriodInSeconds": 60})

    with pytest.raises(SimAdminError, match="must be true or false") as bad:
        sim._call("POST", "faults/keep-alive", {"refuse_while_running": "yes"})
    assert bad.value.status == 400
    with pytest.raises(SimAdminError, match="unknown keep-alive settings"):
        sim._call("POST", "faults/keep-alive", {"refuse": True})
    sim.refuse_keep_alive_while_running()
    sim.reset()  # back to the start-up setting: accepted
    assert sim.state()["config"]["refuse_keep_alive_while_running"] is False


def test_a_city_failing_once_fails_its_first_submission_and_trains_the_next(sim: SimClient) -> None:
    """``first_cities``: the submission tagged attempt 1 fails early; attempt 2 of the same city trains."""
    assert sim.failures(first_cities=["lima"])["first_cities"] == ["lima"]
    requests = {}
    for name, attempt in {"lima-1": "1", "lima-2": "2", "oslo-1": "1"}.items():
        requests[name] = make_request(name, city=name.split("-")[0])
        requests[name]["Tags"].append({"Key": "sagemaker-fleet:attempt", "Value": attempt})
    ended = run_to_the_end(sim, requests)
    assert {n: d["TrainingJobStatus"] for n, d in ended.items()} == {
        "lima-1": "Failed",
        "lima-2": "Completed",
        "oslo-1": "Completed",
    }
    assert ended["lima-1"]["FailureReason"].startswith("AlgorithmError")
    assert sim.state()["config"]["failing_first_cities"] == ["lima"]
    assert sim.failures(first_cities=[])["first_cities"] == []
    with pytest.raises(SimAdminError, match="first_cities is a list"):
        sim.failures(first_cities="lima")  # type: ignore[arg-type]


def test_every_response_announces_the_clocks_speed(sim: SimClient) -> None:
    """What a fleet run counts its poll interval and its dags-test keep-alives by (``jobs/endpoint.py``): the
    SageMaker calls' answers, moto's (S3) and errors alike, and the speed as it is now, after a change."""
    from sagemaker_fleet.jobs.endpoint import SPEED_HEADER, endpoint_speed

    sm, s3 = sim.boto3_client("sagemaker"), sim.boto3_client("s3")
    headers = sm.list_training_jobs(MaxResults=1)["ResponseMetadata"]["HTTPHeaders"]
    assert endpoint_speed(headers) == 1.0
    assert headers[SPEED_HEADER] == "1"
    sim.reset(speed=40)
    assert endpoint_speed(sm.list_training_jobs(MaxResults=1)["ResponseMetadata"]["HTTPHeaders"]) == 40.0
    assert endpoint_speed(s3.list_buckets()["ResponseMetadata"]["HTTPHeaders"]) == 40.0
    with pytest.raises(ClientError) as refused:
        sm.describe_training_job(TrainingJobName="no-such-job")
    assert endpoint_speed(refused.value.response["ResponseMetadata"]["HTTPHeaders"]) == 40.0
    sim.reset()
