"""FleetJobTrigger in a real asyncio loop against the simulator: one batched poller serves every job."""

from __future__ import annotations

import asyncio
import json

import pytest

from sagemaker_fleet.fleetspec import load_fleet_spec
from sagemaker_fleet.hooks.fleet import SageMakerFleetHook
from sagemaker_fleet.jobs.describe import from_json_safe
from sagemaker_fleet.jobs.request import Submission, compile_training_request
from sagemaker_fleet.triggers.fleet import FleetJobTrigger
from sagemaker_fleet.triggers.session import RunSession
from sim_fixtures import first_event
from task_logs import capture_task_logs
from trigger_runs import city_trigger, run_triggers

pytestmark = pytest.mark.integration
CITIES = ("seoul", "tokyo", "lagos", "lima", "oslo")


def test_batched_trigger_watches_a_run_with_few_calls(aws_sim, fleets_dir, monkeypatch) -> None:
    clients = 0
    original = SageMakerFleetHook.get_async_conn

    async def counting(self):
        nonlocal clients
        clients += 1
        return await original(self)

    monkeypatch.setattr(SageMakerFleetHook, "get_async_conn", counting)
    fleet = load_fleet_spec(fleets_dir / "small.yaml")
    hook = SageMakerFleetHook()
    for i, city in enumerate(CITIES):
        aws_sim.set_work(120 + 60 * i, city=city)
        request = compile_training_request(fleet, fleet.city(city), Submission(city, "20261129"))
        hook.create_or_attach(request)
    aws_sim.fail("small-lima-20261129", "AlgorithmError: simulated")
    before = aws_sim.calls()["calls"]
    triggers = [
        FleetJobTrigger(job_name=f"small-{c}-20261129", name_contains="-20261129", poll_interval=0.3)
        for c in CITIES
    ]

    async def watch_all():
        # the clock runs at speed 1 until the first sweep has listed the jobs (four still running), then fast:
        # at least two sweeps however slow the machine is to start the triggers
        watching = asyncio.ensure_future(asyncio.gather(*(first_event(t) for t in triggers)))
        while await asyncio.to_thread(
            lambda: aws_sim.calls()["calls"].get("ListTrainingJobs", 0)
        ) <= before.get("ListTrainingJobs", 0):
            assert not watching.done(), "the triggers fired before their first sweep"
            await asyncio.sleep(0.02)
        await asyncio.to_thread(aws_sim.set_speed, 200)
        return await asyncio.wait_for(watching, timeout=120)

    events = asyncio.run(watch_all())
    aws_sim.set_speed(1)
    after = aws_sim.calls()["calls"]
    by_city = {e["job"]["job_name"].split("-")[1]: e for e in events}
    assert all(e["status"] == "terminal" for e in events)
    assert by_city["lima"]["job"]["status"] == "Failed"
    assert "AlgorithmError" in by_city["lima"]["job"]["failure_reason"]
    assert {by_city[c]["job"]["status"] for c in CITIES if c != "lima"} == {"Completed"}
    describes = after.get("DescribeTrainingJob", 0) - before.get("DescribeTrainingJob", 0)
    lists = after.get("ListTrainingJobs", 0) - before.get("ListTrainingJobs", 0)
    assert describes == len(CITIES)  # one describe per job, once terminal
    # ... and that description travels in the event, timestamps included, for the resumed task
    client = aws_sim.boto3_client("sagemaker")
    for event in events:
        carried = from_json_safe(event["description"])
        fresh = client.describe_training_job(TrainingJobName=event["job_name"])
        assert carried["CreationTime"] == fresh["CreationTime"]
        assert carried["TrainingJobStatus"] == fresh["TrainingJobStatus"]
        assert carried.get("FailureReason") == fresh.get("FailureReason")
    # the stock pattern describes every job on every sweep: lists × jobs calls; batched: one list per sweep
    assert lists >= 2
    assert lists + describes < lists * len(CITIES)
    # one aiobotocore client per sweep, terminal jobs described with it: a client costs ~60 ms of CPU, and a
    # client per ending job stalled the triggerer's loop for seconds when 1,000 jobs ended together
    assert clients <= lists
    live = [p for p in RunSession._registry.values() if p._loop is not None and not p._loop.is_closed()]
    assert (
        not live
    )  # the poller went away with its last watcher (pollers of earlier tests' closed loops aside)


def test_trigger_reports_a_missing_job(aws_sim) -> None:
    trigger = FleetJobTrigger(job_name="small-ghost-20261129", name_contains="-20261129", poll_interval=0.05)
    event = asyncio.run(asyncio.wait_for(first_event(trigger), timeout=30))
    assert event["status"] == "error"
    assert "does not exist" in event["message"]


async def wait_for_line(logs: list[dict], text: str, limit: float = 10.0) -> None:
    """Until a captured log event contains ``text`` (at most ``limit`` seconds)."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + limit
    while not any(text in str(e.get("event")) for e in logs):
        assert loop.time() < deadline, f"no log line with {text!r}: {logs}"
        await asyncio.sleep(0.02)


def test_trigger_logs_a_spot_interruption_as_a_warning(aws_sim, fleets_dir) -> None:
    # BaseTrigger.log is a structlog logger ("sagemaker_fleet.triggers.fleet.FleetJobTrigger") that the triggerer
    # routes to the task log; it does not go through stdlib logging, so caplog sees nothing: capture structlog.
    fleet = load_fleet_spec(fleets_dir / "small.yaml")
    name = "small-perth-20261129"  # perth trains on spot
    aws_sim.set_work(600, job=name)
    SageMakerFleetHook().create_or_attach(
        compile_training_request(fleet, fleet.city("perth"), Submission("perth", "20261129"))
    )
    for _ in range(200):
        if aws_sim.job(name)["secondary_status"] == "Training":
            break
        aws_sim.advance(15)
    assert aws_sim.job(name)["secondary_status"] == "Training"
    trigger = FleetJobTrigger(job_name=name, name_contains="-20261129", poll_interval=0.05)

    async def scenario() -> tuple[dict, list[dict]]:
        with capture_task_logs() as logs:
            task = asyncio.ensure_future(first_event(trigger))
            try:
                await asyncio.sleep(0.3)  # the trigger watches the job while it trains
                await asyncio.to_thread(aws_sim.interrupt, name)  # Interrupted for 20-60 s at speed 1
                await wait_for_line(logs, f"{name}: InProgress / Interrupted")
                await asyncio.sleep(0.3)  # several more polls while still Interrupted
                await asyncio.to_thread(aws_sim.set_speed, 500)
                payload = await asyncio.wait_for(task, 30)
                return payload, list(logs)  # the lines logged before the event arrived
            finally:
                task.cancel()

    try:
        payload, logs = asyncio.run(scenario())
    finally:
        aws_sim.set_speed(1)

    assert payload["status"] == "terminal"
    assert payload["job"]["status"] == "Completed"
    assert aws_sim.job(name)["interruptions"] == 1
    lines = [(e["log_level"], e["event"]) for e in logs if str(e.get("event")).startswith(f"{name}:")]
    interrupted = ("warning", f"{name}: InProgress / Interrupted")
    # few lines (the triggerer writes every trigger's lines from one loop): the interruption, once, and the end
    assert lines[0] == interrupted
    assert lines.count(interrupted) == 1  # one line per change, not one per poll
    assert lines[-1] == ("info", f"{name}: Completed / Completed")
    assert lines.index(interrupted) < len(lines) - 1


def test_the_event_carries_no_environment_or_hyperparameters(aws_sim, fleets_dir) -> None:
    """Airflow logs a trigger's event and stores it in the task's next_kwargs: a city's secrets stay out."""
    import json

    fleet = load_fleet_spec(fleets_dir / "small.yaml")
    request = compile_training_request(fleet, fleet.city("seoul"), Submission("seoul", "20261129"))
    request["Environment"] = {"API_TOKEN": "planted-secret-41c7"}
    request["HyperParameters"] = {"db_password": "planted-secret-41c7"}
    SageMakerFleetHook().create_or_attach(request)
    aws_sim.set_work(60, job="small-seoul-20261129")
    aws_sim.set_speed(200)
    trigger = FleetJobTrigger(job_name="small-seoul-20261129", name_contains="-20261129", poll_interval=0.1)
    event = asyncio.run(asyncio.wait_for(first_event(trigger), 60))
    aws_sim.set_speed(1)
    assert event["status"] == "terminal"
    assert "planted-secret-41c7" not in json.dumps(event)
    described = aws_sim.boto3_client("sagemaker").describe_training_job(
        TrainingJobName="small-seoul-20261129"
    )
    assert described["Environment"] == {"API_TOKEN": "planted-secret-41c7"}  # the job itself has them


# ------------------------------------------------------------------ what travels in an event (an allow-list)

SECRET = "tok-9f3a1c-DO-NOT-LOG"
SECRET_FLEET = """\
fleet: secrets
region: us-east-1
role_arn: arn:aws:iam::111122223333:role/FleetTraining
image_uri: 111122223333.dkr.ecr.us-east-1.amazonaws.com/demand:1.4
output_s3_uri: s3://acme-ml/fleets/secrets
quotas:
  ml.m5.xlarge: {instances: 2, warm_pools: 1}
job:
  AlgorithmSpecification:
    ContainerEntrypoint: [python, -m, demand.train, "--token=%s"]
    ContainerArguments: [--api-key, "%s", --city, "{city}"]
  Environment: {API_TOKEN: "%s"}
  HyperParameters: {password: "%s"}
defaults: {instance_type: ml.m5.xlarge}
cities:
  - {name: lima, train_s3_uri: "s3://acme-ml/data/lima/"}
""" % ((SECRET,) * 4)


def test_a_jobs_entrypoint_arguments_environment_and_hyperparameters_never_travel_in_an_event(
    aws_sim, tmp_path
) -> None:
    """The job carries a token in its entrypoint, arguments, environment and hyperparameters; neither trigger's
    event (the job trigger's description, the city trigger's result and lineage) nor its log has it."""
    path = tmp_path / "secrets.yaml"
    path.write_text(SECRET_FLEET)
    aws_sim.set_work(60, city="lima")
    aws_sim.set_speed(200)
    try:
        city = city_trigger(
            path, "lima", run_key="20261129", try_id="manual__1/1", poll_interval=0.3, end_from_trigger=False
        )
        with capture_task_logs() as logs:
            (city_event,) = run_triggers([city])
        described = aws_sim.boto3_client("sagemaker").describe_training_job(
            TrainingJobName="secrets-lima-20261129"
        )
        assert described["Environment"] == {"API_TOKEN": SECRET}  # the job has them: AWS keeps them
        assert SECRET in described["AlgorithmSpecification"]["ContainerArguments"]
        job_trigger = FleetJobTrigger(
            job_name="secrets-lima-20261129", name_contains="-20261129", poll_interval=0.1
        )
        job_event = asyncio.run(asyncio.wait_for(first_event(job_trigger), timeout=60))
    finally:
        aws_sim.set_speed(1)
    assert city_event.payload["status"] == "success"
    assert city_event.payload["result"]["job"]["status"] == "Completed"
    assert job_event["status"] == "terminal"
    assert job_event["description"]["TrainingJobStatus"] == "Completed"
    assert job_event["description"]["AlgorithmSpecification"] == {
        "TrainingImage": "111122223333.dkr.ecr.us-east-1.amazonaws.com/demand:1.4",
        "TrainingInputMode": "FastFile",
    }
    for stored in (json.dumps(city_event.payload), json.dumps(job_event), json.dumps(logs, default=str)):
        assert SECRET not in stored
