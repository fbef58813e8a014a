"""FleetRunSensor, WarmPoolAvailableSensor and their triggers against the simulator over HTTP.

The sensors' ``poke`` runs with the simulated clock moved by ``sim.advance`` (deterministic); the triggers run in a
real asyncio loop, first at speed 1 (the condition is false and must stay unfired), then at a raised speed until
the condition becomes true.

Airflow 3.1+ loggers (``self.log`` of operators and triggers) are structlog loggers whose output does not go
through stdlib ``logging``, so ``caplog`` sees nothing, and Airflow 3.0's are stdlib loggers: log lines are captured
with ``task_logs.capture_task_logs`` (both).
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Iterable, Iterator
from datetime import timedelta
from typing import TYPE_CHECKING, Any

import pytest

from sagemaker_fleet.compat import AirflowException, TaskDeferred
from sagemaker_fleet.fleetspec import load_fleet_spec
from sagemaker_fleet.hooks.fleet import SageMakerFleetHook
from sagemaker_fleet.jobs.keys import city_key
from sagemaker_fleet.jobs.request import Submission, compile_training_request
from sagemaker_fleet.sensors.fleet import FleetRunSensor, WarmPoolAvailableSensor
from sagemaker_fleet.triggers.conditions import FleetRunTrigger, WarmPoolTrigger
from sim_fixtures import advance_clock_until, first_event
from task_logs import capture_task_logs

if TYPE_CHECKING:
    from sagemaker_fleet.fleetspec.model import FleetSpec
    from sagemaker_fleet.sim.client import SimClient

pytestmark = pytest.mark.integration
RUN_KEY = "20261129"
TEAM_B = "arn:aws:iam::111122223333:role/TeamB"


@pytest.fixture
def fleet(fleets_dir) -> FleetSpec:
    return load_fleet_spec(fleets_dir / "small.yaml")


@pytest.fixture
def spec_path(fleets_dir) -> str:
    return str(fleets_dir / "small.yaml")


@pytest.fixture
def sim_speed(aws_sim: SimClient) -> Iterator[Callable[[float], None]]:
    """Raise the simulator's speed inside a test; always back to 1 afterwards (the server is session-wide)."""
    yield aws_sim.set_speed
    aws_sim.set_speed(1)


@pytest.fixture
def hook(aws_sim: SimClient) -> SageMakerFleetHook:
    """One hook (one boto3 client) per test: building a client costs ~0.2 s."""
    return SageMakerFleetHook()


def submit(
    hook: SageMakerFleetHook,
    fleet: FleetSpec,
    city: str,
    *,
    attempt: int = 1,
    keep_alive: int = 0,
    **overrides: Any,
) -> str:
    request = compile_training_request(
        fleet, fleet.city(city), Submission(city, RUN_KEY, attempt, keep_alive_seconds=keep_alive)
    )
    request.update(overrides)
    attachment = hook.create_or_attach(request)
    assert attachment.created
    return attachment.job_name


def jobs(sim: SimClient) -> dict[str, dict[str, Any]]:
    """The simulator's view of every job, by name, in one admin call."""
    return {job["name"]: job for job in sim.state()["jobs"]}


def status(sim: SimClient, name: str) -> str:
    return str(jobs(sim)[name]["status"])


def pool_status(sim: SimClient, name: str) -> str | None:
    return jobs(sim)[name]["warm_pool_status"]


def all_ended(sim: SimClient, names: Iterable[str]) -> bool:
    found = jobs(sim)
    return all(found[name]["status"] in ("Completed", "Failed", "Stopped") for name in names)


def run_sensor(spec_path: str) -> FleetRunSensor:
    return FleetRunSensor(task_id="run_done", spec_path=spec_path, run_key=RUN_KEY)


def pool_sensor(spec_path: str, city: str) -> WarmPoolAvailableSensor:
    return WarmPoolAvailableSensor(task_id=f"pool_{city}", spec_path=spec_path, city=city)


# ------------------------------------------------------------------------------------------ FleetRunSensor


def test_run_sensor_waits_for_every_city_to_be_terminal(aws_sim, hook, fleet, spec_path) -> None:
    sensor = run_sensor(spec_path)
    cities = [c.name for c in fleet.cities]
    for city in cities:
        aws_sim.set_work(60, city=city)
    assert sensor.poke({}) is False  # no job at all

    names = {city: submit(hook, fleet, city) for city in cities if city != "accra"}
    aws_sim.fail(names["lima"], "AlgorithmError: simulated")
    advance_clock_until(aws_sim, lambda: all_ended(aws_sim, names.values()))
    found = jobs(aws_sim)
    assert found[names["lima"]]["status"] == "Failed"
    assert {found[n]["status"] for c, n in names.items() if c != "lima"} == {"Completed"}
    assert sensor.poke({}) is False  # every job is terminal, but accra has none

    accra = submit(hook, fleet, "accra")
    assert status(aws_sim, accra) == "InProgress"
    assert sensor.poke({}) is False  # accra is running

    advance_clock_until(aws_sim, lambda: status(aws_sim, accra) == "Completed")
    with capture_task_logs() as logs:
        assert sensor.poke({}) is True  # a Failed latest submission is terminal too
    assert any("12/12 cities terminal (11 completed, 1 failed), 0 running" in e["event"] for e in logs), logs


def test_run_sensor_counts_a_resubmitted_city_by_its_latest_attempt(aws_sim, hook, fleet, spec_path) -> None:
    sensor = run_sensor(spec_path)
    for city in fleet.cities:
        aws_sim.set_work(60, city=city.name)
    names = [submit(hook, fleet, city.name) for city in fleet.cities]
    first = "small-lima-20261129"
    aws_sim.fail(first, "AlgorithmError: simulated")
    advance_clock_until(aws_sim, lambda: all_ended(aws_sim, names))
    assert sensor.poke({}) is True

    second = submit(hook, fleet, "lima", attempt=2)
    assert second == "small-lima-20261129-r2"
    assert status(aws_sim, first) == "Failed"
    assert status(aws_sim, second) == "InProgress"
    assert sensor.poke({}) is False  # attempt 1 is terminal, but lima's latest submission runs

    advance_clock_until(aws_sim, lambda: status(aws_sim, second) == "Completed")
    with capture_task_logs() as logs:
        assert sensor.poke({}) is True
    # lima counts once, as Completed (its latest attempt), not as the Failed first attempt
    assert any("12/12 cities terminal (12 completed, 0 failed), 0 running" in e["event"] for e in logs), logs


# ------------------------------------------------------------------------------------ WarmPoolAvailableSensor


def test_pool_sensor_needs_an_available_pool_of_the_citys_key(aws_sim, hook, fleet, spec_path) -> None:
    oslo, seoul, cairo = (pool_sensor(spec_path, c) for c in ("oslo", "seoul", "cairo"))
    assert city_key(fleet.city("oslo")) == city_key(fleet.city("seoul")) != city_key(fleet.city("cairo"))
    assert not any(s.poke({}) for s in (oslo, seoul, cairo))  # no job, no pool

    name = "small-seoul-20261129"
    aws_sim.set_work(120, job=name)
    submit(hook, fleet, "seoul", keep_alive=900)
    assert status(aws_sim, name) == "InProgress"
    assert oslo.poke({}) is False  # the pool exists only once the job has ended

    advance_clock_until(aws_sim, lambda: pool_status(aws_sim, name) == "Available")
    assert status(aws_sim, name) == "Completed"
    assert oslo.poke({}) is True  # another city of the same key would reuse it
    assert seoul.poke({}) is True
    assert cairo.poke({}) is False  # TeamB's key (other role and instance type): not this pool

    hook.update_keep_alive(name, 0)
    assert (hook.describe(name) or {})["WarmPoolStatus"]["Status"] == "Terminated"
    assert oslo.poke({}) is False
    assert seoul.poke({}) is False


def test_pool_sensor_key_includes_the_role(aws_sim, hook, fleet, spec_path) -> None:
    oslo, cairo, tehran = (pool_sensor(spec_path, c) for c in ("oslo", "cairo", "tehran"))
    # seoul's request with TeamB's role: oslo's instance type and volume, another role
    other_role = "small-seoul-20261129"
    aws_sim.set_work(60, job=other_role)
    submit(hook, fleet, "seoul", keep_alive=900, RoleArn=TEAM_B)
    advance_clock_until(aws_sim, lambda: pool_status(aws_sim, other_role) == "Available")
    assert oslo.poke({}) is False  # the role is a security boundary: no reuse across roles
    assert cairo.poke({}) is False  # TeamB's role, but another instance type

    team_b = "small-cairo-20261129"
    aws_sim.set_work(60, job=team_b)
    submit(hook, fleet, "cairo", keep_alive=900)
    advance_clock_until(aws_sim, lambda: pool_status(aws_sim, team_b) == "Available")
    assert cairo.poke({}) is True
    assert tehran.poke({}) is True  # same TeamB key as cairo
    assert oslo.poke({}) is False


def test_run_sensor_defers_to_its_trigger_while_a_city_runs_and_ends_with_its_event(
    aws_sim, hook, fleet, spec_path
) -> None:
    names = [submit(hook, fleet, city.name) for city in fleet.cities]
    sensor = FleetRunSensor(
        task_id="run_done", spec_path=spec_path, run_key=RUN_KEY, poke_interval=7, timeout=900
    )
    with pytest.raises(TaskDeferred) as deferred:
        sensor.execute({})
    trigger = deferred.value.trigger
    assert isinstance(trigger, FleetRunTrigger)
    assert (deferred.value.method_name, deferred.value.timeout) == (
        "execute_complete",
        timedelta(seconds=900),
    )
    kwargs = trigger.serialize()[1]
    assert (kwargs["spec_path"], kwargs["run_key"], kwargs["poll_interval"]) == (spec_path, RUN_KEY, 7)

    advance_clock_until(aws_sim, lambda: all_ended(aws_sim, names))
    event = asyncio.run(asyncio.wait_for(first_event(trigger), 30))  # the first sweep sees every city ended
    assert event == {"status": "success", "completed": 12, "failed": 0, "submissions": 12}
    assert sensor.execute_complete({}, event) == event
    assert sensor.execute({}) is None  # already true: no deferral


def test_a_sensors_error_event_fails_the_task_with_the_triggers_message(spec_path) -> None:
    sensor = FleetRunSensor(task_id="run_done", spec_path=spec_path, run_key=RUN_KEY)
    with pytest.raises(AirflowException, match="run_done: .*ListTrainingJobs failed: throttled"):
        sensor.execute_complete({}, {"status": "error", "message": "ListTrainingJobs failed: throttled"})
    with pytest.raises(AirflowException, match="run_done: None"):
        sensor.execute_complete({}, None)


def test_pool_sensor_defers_until_a_pool_of_its_key_is_available(aws_sim, hook, fleet, spec_path) -> None:
    sensor = WarmPoolAvailableSensor(
        task_id="pool", spec_path=spec_path, city="oslo", name_contains="small-", poke_interval=5
    )
    with pytest.raises(TaskDeferred) as deferred:
        sensor.execute({})
    trigger = deferred.value.trigger
    assert isinstance(trigger, WarmPoolTrigger)
    assert trigger.serialize()[1]["key"] == city_key(fleet.city("oslo")).to_json()
    assert deferred.value.timeout == timedelta(seconds=sensor.timeout)

    seoul = "small-seoul-20261129"
    aws_sim.set_work(60, job=seoul)
    submit(hook, fleet, "seoul", keep_alive=1800)
    advance_clock_until(aws_sim, lambda: pool_status(aws_sim, seoul) == "Available")
    event = asyncio.run(asyncio.wait_for(first_event(trigger), 30))
    assert sensor.execute_complete({}, event) == {"status": "success", "job_name": seoul}
    assert sensor.execute({}) is None


# ----------------------------------------------------------------------------------------------- triggers


def list_calls(sim: SimClient) -> int:
    return sim.calls()["calls"].get("ListTrainingJobs", 0)


async def _unfired_after_polls(
    task: asyncio.Future[Any], sim: SimClient, before: int, polls: int, limit: float
) -> None:
    """Wait until the trigger behind ``task`` has listed ``polls`` times since ``before``; it must not have fired."""
    deadline = asyncio.get_running_loop().time() + limit
    while await asyncio.to_thread(list_calls, sim) < before + polls and not task.done():
        assert asyncio.get_running_loop().time() < deadline, "the trigger never polled"
        await asyncio.sleep(0.05)
    assert not task.done(), f"fired while the condition was false: {task.result()}"


async def polls_without_firing(trigger: Any, sim: SimClient, *, polls: int, limit: float = 30.0) -> None:
    """Run ``trigger`` until it has listed ``polls`` times; it must not fire meanwhile."""
    before = await asyncio.to_thread(list_calls, sim)
    task = asyncio.ensure_future(first_event(trigger))
    try:
        await _unfired_after_polls(task, sim, before, polls, limit)
    finally:
        task.cancel()


async def watch(trigger: Any, sim: SimClient, speed: float, *, polls: int = 3, limit: float = 30.0):
    """Let ``trigger`` poll ``polls`` times at speed 1 (it must not fire), then run at ``speed`` to its first event."""
    before = await asyncio.to_thread(list_calls, sim)
    task = asyncio.ensure_future(first_event(trigger))
    try:
        await _unfired_after_polls(task, sim, before, polls, limit)
        await asyncio.to_thread(sim.set_speed, speed)
        return await asyncio.wait_for(task, limit)
    finally:
        task.cancel()


def test_run_trigger_fires_once_every_city_is_terminal(aws_sim, hook, sim_speed, fleet, spec_path) -> None:
    names = []
    for city in fleet.cities:
        aws_sim.set_work(60, city=city.name)
        names.append(submit(hook, fleet, city.name))
    aws_sim.fail("small-lima-20261129", "AlgorithmError: simulated")
    assert sum(j["status"] == "InProgress" for j in jobs(aws_sim).values()) == len(names) - 1
    trigger = FleetRunTrigger(spec_path=spec_path, run_key=RUN_KEY, poll_interval=0.1)

    payload = asyncio.run(watch(trigger, aws_sim, 500))
    sim_speed(1)

    # the counts come from the listing that fired the trigger: all 12 latest submissions were terminal then
    assert payload == {"status": "success", "completed": 11, "failed": 1, "submissions": 12}


def test_pool_trigger_fires_for_a_pool_of_its_key_only(aws_sim, hook, sim_speed, fleet) -> None:
    team_b, seoul = "small-cairo-20261129", "small-seoul-20261129"
    aws_sim.set_work(60, job=team_b)
    aws_sim.set_work(60, job=seoul)
    submit(hook, fleet, "cairo", keep_alive=3600)
    advance_clock_until(aws_sim, lambda: pool_status(aws_sim, team_b) == "Available")
    submit(hook, fleet, "seoul", keep_alive=1800)
    assert status(aws_sim, seoul) == "InProgress"
    trigger = WarmPoolTrigger(key=city_key(fleet.city("oslo")).to_json(), poll_interval=0.1)

    # at speed 1 the only Available pool is TeamB's: the trigger must wait, then fire on seoul's pool
    payload = asyncio.run(watch(trigger, aws_sim, 500))
    sim_speed(1)

    assert payload == {"status": "success", "job_name": seoul}
    assert pool_status(aws_sim, team_b) == "Available"  # the other key's pool was there all along


def test_pool_trigger_name_contains_narrows_the_search(aws_sim, hook, fleet) -> None:
    seoul = "small-seoul-20261129"
    aws_sim.set_work(60, job=seoul)
    submit(hook, fleet, "seoul", keep_alive=1800)
    advance_clock_until(aws_sim, lambda: pool_status(aws_sim, seoul) == "Available")
    key = city_key(fleet.city("oslo")).to_json()

    elsewhere = WarmPoolTrigger(key=key, name_contains="other-fleet-", poll_interval=0.05)
    asyncio.run(
        polls_without_firing(elsewhere, aws_sim, polls=5)
    )  # five listings, whatever the machine's load
    here = WarmPoolTrigger(key=key, name_contains="small-", poll_interval=0.05)
    assert asyncio.run(asyncio.wait_for(first_event(here), 10)) == {"status": "success", "job_name": seoul}
