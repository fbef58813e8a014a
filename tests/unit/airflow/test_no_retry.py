"""A failure a retry cannot mend fails the task at once (``AirflowFailException``) instead of spending its retries
on the same error: an invalid fleet file, a city the file does not have, a fleet that cannot be planned, a plan
that is missing or does not fit the fleet file. Each stays under ``SageMakerFleetError`` and keeps the built-in
base it had; a training failure, and a fleet file that could not be read, are still retried."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import pytest
from airflow.triggers.base import TaskFailedEvent, TriggerEvent

import trigger_runs
from sagemaker_fleet import SageMakerFleetError
from sagemaker_fleet.compat import AirflowException, AirflowFailException
from sagemaker_fleet.failures import CityCannotTrainError, UnknownCityError
from sagemaker_fleet.fleetspec.errors import FleetSpecError
from sagemaker_fleet.fleetspec.load import load_fleet_spec
from sagemaker_fleet.operators.notify import FleetNotifyOperator
from sagemaker_fleet.operators.plan import PlanFleetOperator
from sagemaker_fleet.operators.release import FleetPoolReleaseOperator
from sagemaker_fleet.operators.report import FleetCostReportOperator
from sagemaker_fleet.operators.training import FleetTrainingOperator
from sagemaker_fleet.plan import plan_fleet
from sagemaker_fleet.plan.errors import PlanError
from sagemaker_fleet.sensors.fleet import FleetRunSensor, WarmPoolAvailableSensor
from sagemaker_fleet.triggers.city import FleetCityTrigger, Outcome, job_link_xcoms

SMALL = Path(__file__).resolve().parents[3] / "dags" / "fleets" / "small.yaml"
RUN_KEY = "20261129"


@pytest.fixture
def invalid(tmp_path: Path) -> str:
    path = tmp_path / "fleet.yaml"
    path.write_text("fleet: small\nregion: us-east-1\n")  # no cities, no roles, no output
    return str(path)


def tasks(spec_path: str) -> dict[str, Any]:
    """Each task that reads the fleet file, as a call that runs it."""
    context: Any = {"ti": None, "run_id": "scheduled__2026-11-29T00:00:00+00:00", "params": {}}
    return {
        "plan": lambda: PlanFleetOperator(task_id="plan", spec_path=spec_path).execute(context),
        "report": lambda: FleetCostReportOperator(task_id="cost_report", spec_path=spec_path).execute(
            context
        ),
        "release": lambda: FleetPoolReleaseOperator(task_id="release", spec_path=spec_path).execute(context),
        "notify": lambda: FleetNotifyOperator(task_id="notify", spec_path=spec_path).execute(context),
        "run sensor": lambda: FleetRunSensor(task_id="run", spec_path=spec_path, run_key=RUN_KEY).poke(
            context
        ),
        "pool sensor": lambda: WarmPoolAvailableSensor(task_id="pool", spec_path=spec_path, city="oslo").poke(
            context
        ),
    }


@pytest.mark.parametrize("task", list(tasks("")))
def test_an_invalid_fleet_file_fails_the_task_without_retries(task: str, invalid: str) -> None:
    with pytest.raises(AirflowFailException) as raised:
        tasks(invalid)[task]()
    assert isinstance(
        raised.value, FleetSpecError
    )  # an `except FleetSpecError` / `except ValueError` still works
    assert isinstance(raised.value, SageMakerFleetError)
    assert "error(s) in fleet spec" in str(raised.value)


@pytest.mark.parametrize("task", list(tasks("")))
def test_a_fleet_file_that_cannot_be_read_is_still_retried(task: str, tmp_path: Path) -> None:
    with pytest.raises(FleetSpecError, match="cannot read the file") as raised:
        tasks(str(tmp_path / "not-synced-yet.yaml"))[task]()
    assert not isinstance(raised.value, AirflowFailException)


def test_a_city_the_fleet_does_not_have_fails_the_pool_sensor_without_retries() -> None:
    sensor = WarmPoolAvailableSensor(task_id="pool", spec_path=str(SMALL), city="atlantis")
    with pytest.raises(AirflowFailException, match="fleet 'small' has no city 'atlantis'") as raised:
        sensor.poke({})  # type: ignore[arg-type]
    assert isinstance(raised.value, UnknownCityError)
    assert isinstance(raised.value, KeyError)


def test_a_fleet_that_cannot_be_planned_fails_the_plan_task_without_retries(monkeypatch) -> None:
    def unplannable(*args: Any, **kwargs: Any) -> Any:
        raise PlanError("city seoul needs 8 ml.m5.xlarge instances; the quota is 6")

    monkeypatch.setattr("sagemaker_fleet.operators.plan.plan_fleet", unplannable)
    plan = PlanFleetOperator(task_id="plan", spec_path=str(SMALL), use_history=False)
    with pytest.raises(AirflowFailException, match="the quota is 6") as raised:
        plan.execute({"run_id": "scheduled__2026-11-29T00:00:00+00:00"})  # type: ignore[arg-type]
    assert isinstance(raised.value, PlanError)


def test_a_connection_in_another_region_than_the_fleets_fails_the_plan_without_retries(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The fleet trains in its spec's region: a connection that talks to another would create every job there
    (other quotas, prices and buckets). The plan task refuses before anything is read or launched."""

    def nothing_else(*args: Any, **kwargs: Any) -> Any:
        raise AssertionError("the plan went on past the region check")

    monkeypatch.setattr("sagemaker_fleet.operators.plan.plan_fleet", nothing_else)
    plan = PlanFleetOperator(task_id="plan", spec_path=str(SMALL), region_name="eu-west-3", use_history=False)
    with pytest.raises(
        AirflowFailException, match="the fleet trains in us-east-1 but the aws_default connection"
    ) as raised:
        plan.execute({"run_id": "scheduled__2026-11-29T00:00:00+00:00"})  # type: ignore[arg-type]
    assert "talks to eu-west-3" in str(raised.value)


# -------------------------------------------------------------------------------------------- the city trigger


def city_trigger(spec_path: Path, **kwargs: Any) -> FleetCityTrigger:
    run = {"run_key": RUN_KEY, "plan_task_id": "plan", "dag_id": "fleet", "run_id": "r", "try_id": "r/1"}
    return trigger_runs.city_trigger(spec_path, "seoul", **{**run, **kwargs})


def first_event(trigger: FleetCityTrigger) -> TriggerEvent:
    async def first() -> TriggerEvent:
        async for event in trigger.run():
            return event
        raise AssertionError("no event")

    # a trigger that went on to AWS instead would wait for it: the test fails rather than hangs
    return asyncio.run(asyncio.wait_for(first(), 20))


class PushedXComs:
    """A task instance of one try (by default the one :func:`city_trigger` works for) that records what is pushed
    to XCom."""

    def __init__(self, run_id: str = "r", try_number: int = 1) -> None:
        self.run_id, self.try_number = run_id, try_number
        self.pushed: dict[str, Any] = {}

    def xcom_push(self, key: str, value: Any) -> None:
        self.pushed[key] = value


def published(monkeypatch, plan: Any) -> None:
    async def plan_json(self: Any) -> Any:
        return plan

    monkeypatch.setattr(FleetCityTrigger, "_plan_json", plan_json)


def assert_fails_without_retries(event: TriggerEvent, match: str) -> None:
    """The event resumes the task on a worker (a TaskFailedEvent would be retried), whose execute_complete fails
    it without retries."""
    assert type(event) is TriggerEvent, event
    assert (event.payload["status"], event.payload["retry"]) == ("failed", False)
    json.dumps(event.payload)
    operator = FleetTrainingOperator(task_id="train_seoul", spec_path=str(SMALL), city="seoul")
    ti = PushedXComs()
    with pytest.raises(CityCannotTrainError, match=match) as raised:
        operator.execute_complete({"ti": ti}, event.payload)  # type: ignore[arg-type]
    # no job: each job link reads an empty value instead of a key never written (an "XCom not found" error line)
    assert ti.pushed == {"sagemaker_fleet_training_job": None, "sagemaker_fleet_training_logs": None}
    assert isinstance(raised.value, AirflowFailException)
    assert isinstance(raised.value, SageMakerFleetError)


def test_a_plan_task_that_published_no_plan_fails_the_city_without_retries(monkeypatch) -> None:
    published(monkeypatch, None)
    assert_fails_without_retries(first_event(city_trigger(SMALL)), "published no plan")


def test_a_plan_of_another_fleet_fails_the_city_without_retries(monkeypatch) -> None:
    plan = plan_fleet(load_fleet_spec(SMALL), RUN_KEY).to_json()
    published(monkeypatch, {**plan, "fleet": "other"})
    assert_fails_without_retries(
        first_event(city_trigger(SMALL)), "the plan is for fleet 'other', not 'small'"
    )


def test_a_plan_that_names_a_city_the_fleet_file_no_longer_has_fails_the_city_without_retries(
    monkeypatch, tmp_path: Path
) -> None:
    published(monkeypatch, plan_fleet(load_fleet_spec(SMALL), RUN_KEY).to_json())
    changed = tmp_path / "small.yaml"  # accra left the fleet after the plan was made
    changed.write_text(
        SMALL.read_text().replace('  - {name: accra, train_s3_uri: "s3://acme-ml/data/accra/"', "#")
    )
    assert "accra" not in {c.name for c in load_fleet_spec(changed).cities}
    assert_fails_without_retries(first_event(city_trigger(changed)), "does not fit .*accra")


def test_a_plan_that_does_not_read_fails_the_city_without_retries(monkeypatch) -> None:
    published(monkeypatch, {"fleet": "small"})
    assert_fails_without_retries(first_event(city_trigger(SMALL)), "PlanFormatError|required field")


def test_a_trigger_without_a_run_fails_the_city_without_retries() -> None:
    event = first_event(FleetCityTrigger(spec_path=str(SMALL), city="seoul"))
    assert_fails_without_retries(event, "no run_key given")


def test_an_invalid_fleet_file_fails_the_city_without_retries(invalid: str) -> None:
    assert_fails_without_retries(first_event(city_trigger(Path(invalid))), "error\\(s\\) in fleet spec")


def test_a_failure_a_retry_may_mend_still_ends_the_task_from_the_triggerer_and_is_retried() -> None:
    trigger = city_trigger(SMALL)
    event = trigger._event(Outcome("failed", message="AlgorithmError"))
    assert isinstance(event, TaskFailedEvent)  # Airflow retries it while tries are left
    operator = FleetTrainingOperator(task_id="train_seoul", spec_path=str(SMALL), city="seoul")
    links = job_link_xcoms("us-east-1", "aws.amazon.com", "small-seoul-20261204")
    ti = PushedXComs()
    with pytest.raises(AirflowException, match="AlgorithmError") as raised:
        operator.execute_complete(
            {"ti": ti},  # type: ignore[arg-type]
            {"status": "failed", "message": "AlgorithmError", "links": links},
        )
    assert not isinstance(raised.value, AirflowFailException)
    # the failed job's console page and logs, as for a job that trained
    assert ti.pushed == links


def test_which_errors_a_retry_would_meet_again() -> None:
    from botocore.exceptions import ClientError

    from sagemaker_fleet.errors import ForeignJobError
    from sagemaker_fleet.failures import retry_cannot_help
    from sagemaker_fleet.fleetspec.issue import SpecIssue
    from sagemaker_fleet.hooks.fleet import CapacityUnavailableError
    from sagemaker_fleet.triggers.watch import JobWatchError

    unreadable = FleetSpecError([SpecIssue("", "cannot read the file")], "f.yaml")
    unreadable.__cause__ = FileNotFoundError("f.yaml")
    lasting = [
        FleetSpecError([SpecIssue("x", "bad")]),
        ForeignJobError("another fleet's"),
        PlanError("quota"),
    ]
    passing = [
        unreadable,
        CapacityUnavailableError("quota in use"),
        JobWatchError("polling failed"),
        ClientError({"Error": {"Code": "ThrottlingException"}}, "ListTrainingJobs"),
        OSError("connection reset"),
    ]
    assert [retry_cannot_help(exc) for exc in lasting] == [True] * len(lasting)
    assert [retry_cannot_help(exc) for exc in passing] == [False] * len(passing)


def test_a_fleet_file_gone_bad_under_a_deferred_sensor_fails_it_without_retries(invalid: str) -> None:
    from sagemaker_fleet.failures import FleetFailure
    from sagemaker_fleet.triggers.conditions import FleetRunTrigger

    trigger = FleetRunTrigger(spec_path=invalid, run_key=RUN_KEY, aws_conn_id=None, region_name="us-east-1")

    async def first() -> TriggerEvent:
        async for event in trigger.run():
            return event
        raise AssertionError("no event")

    event = asyncio.run(asyncio.wait_for(first(), 20))  # the spec is read before any call to AWS
    assert (event.payload["status"], event.payload["retry"]) == ("error", False)
    sensor = FleetRunSensor(task_id="run_done", spec_path=invalid, run_key=RUN_KEY)
    with pytest.raises(FleetFailure, match="run_done: .*error\\(s\\) in fleet spec") as raised:
        sensor.execute_complete({}, event.payload)  # type: ignore[arg-type]
    assert isinstance(raised.value, AirflowFailException)
    with pytest.raises(AirflowException) as retried:  # an AWS error is still retried
        sensor.execute_complete({}, {"status": "error", "message": "AccessDenied"})  # type: ignore[arg-type]
    assert not isinstance(retried.value, AirflowFailException)


def test_an_event_of_an_earlier_try_starts_the_city_again(monkeypatch) -> None:
    """Airflow 3.0's dag.test() resumes a retried task with the event of the try that failed (it keeps the task's
    next method and arguments): the new try must not fail again on the old outcome, but start the city again."""
    operator = FleetTrainingOperator(task_id="train_seoul", spec_path=str(SMALL), city="seoul")
    started: list[int] = []
    monkeypatch.setattr(
        operator, "execute", lambda context: started.append(context["ti"].try_number) or "again"
    )
    failed = {"status": "failed", "message": "AlgorithmError", "retry": True, "try_id": "manual__1/1"}
    assert operator.execute_complete({"ti": PushedXComs("manual__1", 2)}, failed) == "again"  # type: ignore[arg-type]
    assert started == [2]
    # the try's own event ends it as before
    with pytest.raises(AirflowException, match="AlgorithmError"):
        operator.execute_complete({"ti": PushedXComs("manual__1", 1)}, failed)  # type: ignore[arg-type]
    assert started == [2]
