"""FleetCityTrigger and the run's shared poller in a real asyncio loop against the simulator over HTTP.

The plan would come from the plan task's XCom through the triggerer; here it is planned in the test and handed
to the trigger in its place. Everything else is real: aiobotocore calls, the simulator's jobs, pools and quotas.
"""

from __future__ import annotations

import asyncio
import time
from pathlib import Path

import pytest
from airflow.triggers.base import TaskFailedEvent, TaskSkippedEvent, TaskSuccessEvent

from sagemaker_fleet.compat import AirflowException, AirflowSkipException
from sagemaker_fleet.dispatch import DispatchBook
from sagemaker_fleet.dispatch.city_run import CityRun
from sagemaker_fleet.fleetspec import load_fleet_spec
from sagemaker_fleet.hooks.fleet import SageMakerFleetHook
from sagemaker_fleet.jobs.request import Submission, compile_training_request
from sagemaker_fleet.operators.training import FleetTrainingOperator
from sagemaker_fleet.plan import plan_fleet
from sagemaker_fleet.triggers.city import FleetCityTrigger
from sagemaker_fleet.triggers.session import RunSession
from task_logs import capture_task_logs
from trigger_runs import city_trigger, publish_plan, run_triggers

pytestmark = pytest.mark.integration
RUN_KEY = "20261129"
DISPATCH = Path(__file__).parent / "fleets" / "dispatch.yaml"
QUICK = Path(__file__).parent / "fleets" / "quick.yaml"


def trigger(spec_path: Path, city: str, **kwargs) -> FleetCityTrigger:
    values = {
        "run_key": RUN_KEY,
        "try_id": "manual__1/1",
        "poll_interval": 0.3,
        "capacity_retry_seconds": 0.5,
    }
    return city_trigger(spec_path, city, **{**values, **kwargs})


def run(triggers: list[FleetCityTrigger], timeout: float = 180.0) -> list:
    return run_triggers(triggers, timeout)


@pytest.fixture
def planned(monkeypatch):
    """The plan the plan task would publish, handed to the triggers in place of the XCom read."""
    spec = load_fleet_spec(DISPATCH)
    plan = plan_fleet(spec, RUN_KEY)
    publish_plan(monkeypatch, plan)
    return spec, plan, DispatchBook.from_plan(plan, spec)


@pytest.fixture
def fast(aws_sim):
    for city in ("seoul", "tokyo", "oslo"):  # quick.yaml's 600 s MaxRuntime needs short work
        aws_sim.set_work(120, city=city)
    aws_sim.set_speed(200)
    yield aws_sim
    aws_sim.set_speed(1)


def jobs_by_name(sim) -> dict[str, dict]:
    return {job["name"]: job for job in sim.state()["jobs"]}


def test_a_group_starts_in_rank_order_two_at_a_time_each_successor_on_a_warm_pool(fast, planned) -> None:
    spec, plan, book = planned
    (group,) = book.members
    assert book.widths[group] == 2
    events = run([trigger(DISPATCH, c, plan_task_id="plan") for c in reversed(book.members[group])])

    assert all(isinstance(e, TaskSuccessEvent) for e in events), events
    results = {e.xcoms["return_value"]["city"]: e.xcoms["return_value"] for e in events}
    assert {c: r["job"]["status"] for c, r in results.items()} == dict.fromkeys(
        book.members[group], "Completed"
    )
    assert all("sagemaker_fleet_training_job" in e.xcoms for e in events), events  # the console link too
    jobs = jobs_by_name(fast)
    assert len(jobs) == 6  # one job per city, nothing duplicated
    ranked = [jobs[f"disp-{c}-{RUN_KEY}"] for c in book.members[group]]
    # no city jumped its turn: the k-th (k ≥ 2) was created after the (k − 1)-th end of the group (cities admitted
    # in one sweep are created side by side, so exact creation order is not the property)
    ends = sorted(j["ended_at"] for j in ranked)
    early = [
        (job["name"], job["created_at"], ends[k - 2])
        for k, job in enumerate(ranked)
        if k >= 2 and job["created_at"] < ends[k - 2]
    ]
    assert not early, (early, [(j["name"], j["created_at"], j["ended_at"], j["status"]) for j in ranked])
    order = sorted(jobs.values(), key=lambda j: j["created_at"])
    edges = sorted([(j["created_at"], 1) for j in order] + [(j["ended_at"], -1) for j in order])
    running = peak = 0
    for _, step in edges:
        running += step
        peak = max(peak, running)
    assert peak == 2
    # every later city took a pool over: the sweep that saw a job end created the next one within its keep-alive
    assert [j["start"] for j in order[2:]] == ["warm"] * 4
    # the idle pools nobody would take were ended when the last city started, not left to expire
    assert not [j["name"] for j in jobs.values() if j["warm_pool_status"] == "Available"]
    assert fast.calls()["errors"].get("CreateTrainingJob:ResourceLimitExceeded", 0) == 0
    assert not [p for p in RunSession._registry.values() if p._loop is not None and not p._loop.is_closed()]


def test_a_restarted_trigger_attaches_to_its_citys_job_without_creating(fast, planned) -> None:
    spec, _, _ = planned
    hook = SageMakerFleetHook()
    hook.create_or_attach(compile_training_request(spec, spec.city("a1"), Submission("a1", RUN_KEY)))
    before = fast.calls()["calls"].get("CreateTrainingJob", 0)
    (event,) = run([trigger(DISPATCH, "a1", plan_task_id="plan")])
    assert isinstance(event, TaskSuccessEvent)
    assert event.xcoms["return_value"]["job_name"] == f"disp-a1-{RUN_KEY}"
    assert fast.calls()["calls"].get("CreateTrainingJob", 0) == before


def _failed_attempt_of(sim, spec, city: str, airflow_try: str) -> None:
    hook = SageMakerFleetHook()
    request = compile_training_request(
        spec, spec.city(city), Submission(city, RUN_KEY, airflow_try=airflow_try)
    )
    hook.create_or_attach(request)
    sim.fail(request["TrainingJobName"], "AlgorithmError: failed on purpose")


def test_a_failed_job_of_this_try_fails_the_task_and_of_an_earlier_try_is_retried(fast) -> None:
    spec = load_fleet_spec(QUICK)
    _failed_attempt_of(fast, spec, "oslo", "manual__1/1")
    # the same try, its trigger restarted after the job failed: the failure stands, nothing new is created
    (again,) = run([trigger(QUICK, "oslo", try_id="manual__1/1")])
    assert isinstance(again, TaskFailedEvent)
    assert sorted(jobs_by_name(fast)) == [f"quick-oslo-{RUN_KEY}"]
    # Airflow's retry (try 2) trains again as -r2
    (retry,) = run([trigger(QUICK, "oslo", try_id="manual__1/2")])
    assert isinstance(retry, TaskSuccessEvent)
    assert retry.xcoms["return_value"]["submissions"] == [f"quick-oslo-{RUN_KEY}", f"quick-oslo-{RUN_KEY}-r2"]
    client = fast.boto3_client("sagemaker")
    arn = client.describe_training_job(TrainingJobName=f"quick-oslo-{RUN_KEY}-r2")["TrainingJobArn"]
    tags = client.list_tags(ResourceArn=arn)["Tags"]
    assert {"Key": "sagemaker-fleet:airflow-try", "Value": "manual__1/2"} in tags


def test_a_retry_whose_history_missed_an_earlier_trys_failed_job_trains_the_next_attempt(
    fast, monkeypatch
) -> None:
    """Found by a fresh-clone CI run: try 3 read the city's history from a listing that did not show try 2's
    failed ``-r2`` yet, submitted attempt 2 again, attached to that failed job and failed without training."""
    spec = load_fleet_spec(QUICK)
    hook = SageMakerFleetHook()
    for attempt, airflow_try in ((1, "manual__1/1"), (2, "manual__1/2")):
        request = compile_training_request(
            spec, spec.city("oslo"), Submission("oslo", RUN_KEY, attempt, airflow_try=airflow_try)
        )
        hook.create_or_attach(request)
        fast.fail(request["TrainingJobName"], f"AlgorithmError: attempt {attempt} failed on purpose")
    first = hook.get_conn().describe_training_job(TrainingJobName=f"quick-oslo-{RUN_KEY}")
    seen: list[int] = []

    async def stale_history(self):  # the listing shows attempt 1 only
        seen.append(1)
        return [first]

    monkeypatch.setattr(CityRun, "load_history", stale_history)
    (retry,) = run([trigger(QUICK, "oslo", try_id="manual__1/3")])
    assert seen == [1]
    assert isinstance(retry, TaskSuccessEvent), retry
    assert retry.xcoms["return_value"]["submissions"] == [
        f"quick-oslo-{RUN_KEY}",
        f"quick-oslo-{RUN_KEY}-r2",
        f"quick-oslo-{RUN_KEY}-r3",
    ]
    client = fast.boto3_client("sagemaker")
    arn = client.describe_training_job(TrainingJobName=f"quick-oslo-{RUN_KEY}-r3")["TrainingJobArn"]
    assert {"Key": "sagemaker-fleet:airflow-try", "Value": "manual__1/3"} in client.list_tags(
        ResourceArn=arn
    )["Tags"]
    assert sorted(jobs_by_name(fast)) == [
        f"quick-oslo-{RUN_KEY}",
        f"quick-oslo-{RUN_KEY}-r2",
        f"quick-oslo-{RUN_KEY}-r3",
    ]


def test_a_restarted_try_that_attaches_to_its_own_ended_job_keeps_its_outcome(fast, monkeypatch) -> None:
    """The other side of that rule: a job this very try made and that failed stays this try's failure, even
    when the listing missed it (the trigger restarted after the job ended)."""
    spec = load_fleet_spec(QUICK)
    _failed_attempt_of(fast, spec, "oslo", "manual__1/1")
    hook = SageMakerFleetHook()
    request = compile_training_request(
        spec, spec.city("oslo"), Submission("oslo", RUN_KEY, 2, airflow_try="manual__1/2")
    )
    hook.create_or_attach(request)
    fast.fail(request["TrainingJobName"], "AlgorithmError: attempt 2 failed on purpose")
    first = hook.get_conn().describe_training_job(TrainingJobName=f"quick-oslo-{RUN_KEY}")

    async def stale_history(self):
        return [first]

    monkeypatch.setattr(CityRun, "load_history", stale_history)
    (again,) = run([trigger(QUICK, "oslo", try_id="manual__1/2")])
    assert isinstance(again, TaskFailedEvent)
    assert sorted(jobs_by_name(fast)) == [f"quick-oslo-{RUN_KEY}", f"quick-oslo-{RUN_KEY}-r2"]


def test_force_retrain_trains_once_per_run_not_again_on_a_retry_or_clear(fast) -> None:
    (first,) = run([trigger(QUICK, "tokyo", try_id="manual__1/1")])
    assert isinstance(first, TaskSuccessEvent)
    (forced,) = run([trigger(QUICK, "tokyo", try_id="manual__2/1", force_retrain=True)])
    assert forced.xcoms["return_value"]["job_name"] == f"quick-tokyo-{RUN_KEY}-r2"
    client = fast.boto3_client("sagemaker")
    arn = client.describe_training_job(TrainingJobName=f"quick-tokyo-{RUN_KEY}-r2")["TrainingJobArn"]
    assert {"Key": "sagemaker-fleet:forced", "Value": "true"} in client.list_tags(ResourceArn=arn)["Tags"]
    # that try's trigger restarted: the retrain it made stands, no -r3
    (restarted,) = run([trigger(QUICK, "tokyo", try_id="manual__2/1", force_retrain=True)])
    assert restarted.xcoms["return_value"]["job_name"] == f"quick-tokyo-{RUN_KEY}-r2"
    # Airflow's retry of the forced try, and a clear of the task: both attach to the forced retrain
    for try_id in ("manual__2/2", "manual__2/3"):
        (again,) = run([trigger(QUICK, "tokyo", try_id=try_id, force_retrain=True)])
        assert isinstance(again, TaskSuccessEvent)
        assert again.xcoms["return_value"]["job_name"] == f"quick-tokyo-{RUN_KEY}-r2"
    assert sorted(n for n in jobs_by_name(fast) if "-tokyo-" in n) == [
        f"quick-tokyo-{RUN_KEY}",
        f"quick-tokyo-{RUN_KEY}-r2",
    ]


def test_a_forced_retrain_that_failed_is_retried_once_not_forced_again(fast) -> None:
    (first,) = run([trigger(QUICK, "oslo", try_id="manual__1/1")])
    assert isinstance(first, TaskSuccessEvent)
    spec = load_fleet_spec(QUICK)
    hook = SageMakerFleetHook()
    forced = compile_training_request(
        spec, spec.city("oslo"), Submission("oslo", RUN_KEY, 2, airflow_try="manual__1/2", forced=True)
    )
    # work long enough to still run when failed on purpose (120 s at 200x ended first on a loaded machine), set
    # before the create, which draws it
    fast.set_work(3000, city="oslo")
    hook.create_or_attach(forced)
    fast.fail(forced["TrainingJobName"], "AlgorithmError: failed on purpose")
    fast.set_work(120, city="oslo")
    (retry,) = run([trigger(QUICK, "oslo", try_id="manual__1/3", force_retrain=True)])
    assert isinstance(retry, TaskSuccessEvent)
    assert retry.xcoms["return_value"]["submissions"] == [
        f"quick-oslo-{RUN_KEY}",
        f"quick-oslo-{RUN_KEY}-r2",
        f"quick-oslo-{RUN_KEY}-r3",
    ]


def test_a_dry_run_or_a_city_left_out_by_the_form_is_skipped(fast) -> None:
    events = run(
        [
            trigger(QUICK, "seoul", use_params=True, params={"dry_run": True}),
            trigger(QUICK, "seoul", use_params=True, params={"cities": ["tokyo"]}),
        ]
    )
    assert all(isinstance(e, TaskSkippedEvent) for e in events)
    assert not jobs_by_name(fast)


def test_a_quota_that_stays_in_use_fails_the_city_after_backing_off_to_the_capacity_deadline(fast) -> None:
    fast.set_quota("ml.m5.xlarge", instances=0)  # every CreateTrainingJob of the type is refused
    started = time.monotonic()
    (event,) = run([trigger(QUICK, "seoul", capacity_retry_seconds=0.2, capacity_timeout_seconds=2.0)])
    elapsed = time.monotonic() - started
    assert isinstance(event, TaskFailedEvent)
    refused = fast.calls()["errors"].get("CreateTrainingJob:ResourceLimitExceeded", 0)
    # backed off (0.2, 0.4, 0.8 … s, ±50 %) until the next wait would pass the 2 s deadline: a few tries, not a
    # tight loop, and never a job
    assert 2 <= refused <= 6, refused
    # at least the first back-offs; the upper bound is a hang detector, not a timing assertion: with the three
    # Pythons' suites at once on 2 cores (and another checkout's e2e run) the city's 2 s took 10.6 s to fail
    assert 0.5 <= elapsed < 60, elapsed
    assert not jobs_by_name(fast)


def test_the_forms_spot_and_instance_type_reach_the_training_job(fast) -> None:
    fast.set_work(60, city="perth")
    (event,) = run(
        [
            trigger(
                QUICK,
                "perth",
                use_params=True,
                params={"spot": False, "instance_type": "ml.c5.xlarge", "cities": ["perth"]},
            )
        ]
    )
    assert isinstance(event, TaskSuccessEvent)
    described = fast.boto3_client("sagemaker").describe_training_job(TrainingJobName=f"quick-perth-{RUN_KEY}")
    assert described["ResourceConfig"]["InstanceType"] == "ml.c5.xlarge"
    assert described["EnableManagedSpotTraining"] is False  # perth is a spot city in the spec
    assert "MaxWaitTimeInSeconds" not in described["StoppingCondition"]


class RecordingTaskInstance:
    """What ``execute_complete`` asks of the task instance: its try (the one :func:`trigger` works for), and XCom
    pushes, recorded."""

    def __init__(self) -> None:
        self.run_id, self.try_number = "manual__1", 1
        self.pushed: dict[str, object] = {}

    def xcom_push(self, key: str, value: object) -> None:
        self.pushed[key] = value


def worker_operator(city: str) -> FleetTrainingOperator:
    """The task whose trigger does not end it (a synchronous wait, ``dag.test()``): execute_complete does."""
    return FleetTrainingOperator(task_id="train", spec_path=str(QUICK), city=city)


def test_deferred_from_a_worker_it_fires_an_outcome_event_for_execute_complete(fast) -> None:
    (event,) = run([trigger(QUICK, "seoul", end_from_trigger=False)])
    assert type(event).__name__ == "TriggerEvent"
    assert event.payload["status"] == "success"
    assert event.payload["result"]["job_name"] == f"quick-seoul-{RUN_KEY}"
    assert set(event.payload["links"]) == {
        "sagemaker_fleet_training_job",
        "sagemaker_fleet_training_logs",
        "_link_SageMakerTrainingJobLink",  # the URLs Airflow's UI reads, for a task ended from the triggerer
        "_link_TrainingJobLogsLink",
    }

    ti = RecordingTaskInstance()  # the task's return value is the result; the links become its XComs
    assert worker_operator("seoul").execute_complete({"ti": ti}, event.payload) == event.payload["result"]
    assert ti.pushed == event.payload["links"]
    assert ti.pushed["sagemaker_fleet_training_job"]["job_name"] == f"quick-seoul-{RUN_KEY}"


def test_a_city_whose_job_failed_fails_its_worker_task_with_the_reason(fast) -> None:
    fast.failures(cities=["oslo"])
    try:
        (event,) = run([trigger(QUICK, "oslo", end_from_trigger=False)])
    finally:
        fast.failures(cities=[])
    assert event.payload["status"] == "failed"
    ti = RecordingTaskInstance()
    with pytest.raises(AirflowException, match=r"^oslo: .*AlgorithmError"):
        worker_operator("oslo").execute_complete({"ti": ti}, event.payload)
    # the failed job's console page and logs, as for a job that trained
    job = f"quick-oslo-{RUN_KEY}"
    assert ti.pushed["sagemaker_fleet_training_job"]["job_name"] == job
    assert ti.pushed["sagemaker_fleet_training_logs"]["job_name"] == job


def test_a_city_the_form_left_out_skips_its_worker_task(fast) -> None:
    (event,) = run(
        [trigger(QUICK, "tokyo", end_from_trigger=False, use_params=True, params={"cities": ["seoul"]})]
    )
    assert event.payload["status"] == "skipped"
    with pytest.raises(AirflowSkipException, match=r"^tokyo: "):
        worker_operator("tokyo").execute_complete({"ti": RecordingTaskInstance()}, event.payload)
    assert "quick-tokyo-" + RUN_KEY not in jobs_by_name(fast)


def test_an_event_without_an_outcome_fails_the_task_instead_of_passing() -> None:
    with pytest.raises(AirflowException, match="ended without an outcome"):
        worker_operator("seoul").execute_complete({"ti": RecordingTaskInstance()}, None)


def test_serialize_round_trips() -> None:
    original = trigger(QUICK, "seoul", plan_task_id="plan", params={"spot": False}, use_params=True)
    classpath, kwargs = original.serialize()
    assert classpath == "sagemaker_fleet.triggers.city.FleetCityTrigger"
    assert FleetCityTrigger(**kwargs).serialize() == (classpath, kwargs)


def test_waiting_cities_say_why_within_one_budget_of_log_lines(fast, planned, monkeypatch) -> None:
    """Each waiting city says why in its task log, but a run's waiting lines share a budget: the triggerer writes
    every trigger's lines through one pipe, and a burst of them (1,000 cities waiting 30 s) once deadlocked it."""
    from sagemaker_fleet.triggers import budget as budget_module
    from sagemaker_fleet.triggers import city_io as city_io_module

    spec, plan, book = planned
    (group,) = book.members
    monkeypatch.setattr(city_io_module, "WAIT_LOG_FIRST", 0.05)
    monkeypatch.setattr(city_io_module, "WAIT_LOG_EVERY", 0.05)
    monkeypatch.setattr(budget_module, "WAIT_LINES_BURST", 3.0)
    monkeypatch.setattr(budget_module, "WAIT_LINES_PER_SECOND", 0.0)  # three lines for the whole run
    with capture_task_logs() as logs:
        events = run([trigger(DISPATCH, c, plan_task_id="plan") for c in book.members[group]])
    assert all(isinstance(e, TaskSuccessEvent) for e in events), events
    waiting = [line["event"] for line in logs if "waits for" in str(line.get("event"))]
    assert len(waiting) == 3, (
        waiting
    )  # four cities waited, and waited long: the budget held the lines to three
    # each line says why: the group's turn, or (a city whose turn came in the run's first seconds) the board's settle
    assert all("of group" in line or "the account's board" in line for line in waiting), waiting


def cancel_while_watching(sim, city: str, *, user_action: bool) -> str:
    """Start ``city``'s trigger on a long job, wait until it watches its job, then cancel it the way the triggerer
    does: for a user's action (then ``on_kill()``), or for a shutdown or hand-over (no ``on_kill()``). The job's
    name."""
    sim.set_work(3000, city=city)
    name = f"quick-{city}-{RUN_KEY}"
    t = trigger(QUICK, city, try_id="manual__1/1")

    async def scenario() -> None:
        task = asyncio.ensure_future(t.run().__anext__())
        for _ in range(600):
            if t.city_run is not None and t.city_run.watching == name:
                break
            await asyncio.sleep(0.05)
        else:
            raise AssertionError(f"{name} was never watched")
        task.cancel()
        await asyncio.gather(task, return_exceptions=True)
        if user_action:
            await t.on_kill()

    asyncio.run(scenario())
    return name


def test_a_user_acting_on_the_task_stops_its_job_and_a_later_try_trains_again(aws_sim) -> None:
    name = cancel_while_watching(aws_sim, "tokyo", user_action=True)
    job = jobs_by_name(aws_sim)[name]
    assert job["status"] in ("Stopping", "Stopped")
    client = aws_sim.boto3_client("sagemaker")
    tags = client.list_tags(ResourceArn=client.describe_training_job(TrainingJobName=name)["TrainingJobArn"])[
        "Tags"
    ]
    assert {"Key": "sagemaker-fleet:stopped-by", "Value": "airflow:manual__1/1"} in tags
    aws_sim.set_work(60, city="tokyo")
    aws_sim.set_speed(200)
    (retry,) = run([trigger(QUICK, "tokyo", try_id="manual__1/2")])  # a clear or a retry: trains again
    aws_sim.set_speed(1)
    assert isinstance(retry, TaskSuccessEvent)
    assert retry.xcoms["return_value"]["job_name"] == f"{name}-r2"


def test_a_triggerer_shutting_down_never_stops_training(aws_sim) -> None:
    name = cancel_while_watching(aws_sim, "seoul", user_action=False)
    assert jobs_by_name(aws_sim)[name]["status"] == "InProgress"


def test_a_job_stopped_outside_airflow_is_final_unless_forced(fast) -> None:
    spec = load_fleet_spec(QUICK)
    request = compile_training_request(
        spec, spec.city("oslo"), Submission("oslo", RUN_KEY, airflow_try="manual__1/1")
    )
    fast.set_work(3000, city="oslo")  # still running when the console stops it, however loaded the machine
    console = fast.boto3_client("sagemaker")
    # the clock at 1x until the console's stop: at 200x quick.yaml's 600 s MaxRuntime ends the job 3 s after its
    # create, and a loaded machine took longer than that to send the stop (StopTrainingJob on a Stopped job)
    fast.set_speed(1)
    SageMakerFleetHook().create_or_attach(request)
    console.stop_training_job(TrainingJobName=request["TrainingJobName"])  # the console
    fast.set_speed(200)
    fast.set_work(120, city="oslo")
    (retry,) = run([trigger(QUICK, "oslo", try_id="manual__1/2")])
    assert isinstance(retry, TaskFailedEvent)
    assert sorted(jobs_by_name(fast)) == [f"quick-oslo-{RUN_KEY}"]  # not submitted again
    (forced,) = run([trigger(QUICK, "oslo", try_id="manual__1/3", force_retrain=True)])
    assert isinstance(forced, TaskSuccessEvent)
    assert forced.xcoms["return_value"]["job_name"] == f"quick-oslo-{RUN_KEY}-r2"


def test_the_endpoint_down_for_seconds_mid_run_fails_nothing_and_duplicates_nothing(
    fast, planned, sim_server, caplog
) -> None:
    """The simulated endpoint goes off the network mid-run (connections refused) and comes back with its state.
    botocore does not retry here (max_attempts 1), so the run's sweeps themselves fail: the poller backs off and
    sweeps again, and every city still trains once."""
    import logging
    import threading

    spec, plan, book = planned
    (group,) = book.members
    fast.set_speed(100)
    no_retries = {"retries": {"mode": "standard", "max_attempts": 1}}
    outage = threading.Timer(1.5, lambda: sim_server.outage(6.0))
    outage.start()
    try:
        with caplog.at_level(logging.WARNING, logger="sagemaker_fleet.triggers"):
            events = run(
                [
                    trigger(DISPATCH, c, plan_task_id="plan", botocore_config=no_retries)
                    for c in book.members[group]
                ],
                timeout=300,
            )
    finally:
        outage.cancel()
    assert all(isinstance(e, TaskSuccessEvent) for e in events), events
    failed = [r.getMessage() for r in caplog.records if "failed" in r.getMessage()]
    assert failed, "the outage never reached a sweep"
    assert any("EndpointConnectionError" in m or "ConnectionClosedError" in m for m in failed), failed
    jobs = jobs_by_name(fast)
    assert sorted(jobs) == sorted(f"disp-{c}-{RUN_KEY}" for c in book.members[group])  # one job each
    assert all(j["status"] == "Completed" for j in jobs.values())


@pytest.mark.parametrize("call", ["acreate_or_attach", "adescribe"])
def test_a_city_whose_own_request_meets_the_endpoint_down_waits_for_it_instead_of_failing(
    fast, sim_server, monkeypatch, call
) -> None:
    """The endpoint goes off the network just as the city sends its own request (its create, or the describe of
    its earlier submission on a retry), with botocore's retries off: the request is sent again once the endpoint
    is back, and the city trains once."""
    from sagemaker_fleet.hooks import fleet as hook_module

    if call == "adescribe":  # a retry: the first try's job failed, so the trigger reads it before submitting
        spec = load_fleet_spec(QUICK)
        first = compile_training_request(
            spec, spec.city("tokyo"), Submission("tokyo", RUN_KEY, airflow_try="manual__1/1")
        )
        SageMakerFleetHook().create_or_attach(first)
        fast.fail(first["TrainingJobName"], "AlgorithmError: simulated")
    original = getattr(hook_module.SageMakerFleetHook, call)
    outages: list[object] = []

    async def down_first(self, client, *args, **kwargs):
        if not outages:
            outages.append(await asyncio.to_thread(sim_server.outage, 3.0))
        return await original(self, client, *args, **kwargs)

    monkeypatch.setattr(hook_module.SageMakerFleetHook, call, down_first)
    no_retries = {"retries": {"mode": "standard", "max_attempts": 1}}
    (event,) = run([trigger(QUICK, "tokyo", try_id="manual__1/2", botocore_config=no_retries)], timeout=120)
    assert outages, "the endpoint was never taken down"
    assert isinstance(event, TaskSuccessEvent), event
    names = sorted(n for n in jobs_by_name(fast) if "-tokyo-" in n)
    expected = (
        [f"quick-tokyo-{RUN_KEY}", f"quick-tokyo-{RUN_KEY}-r2"]
        if call == "adescribe"
        else [f"quick-tokyo-{RUN_KEY}"]
    )
    assert names == expected
    assert jobs_by_name(fast)[expected[-1]]["status"] == "Completed"


def test_one_at_a_time_against_a_sped_up_simulator_each_job_keeps_its_pool_through_airflows_gap(
    fast, monkeypatch, tmp_path
) -> None:
    """``airflow dags test`` against the simulator at speed 200 with no poll interval set: the run sweeps every
    30 simulated seconds (here its 0.5 s floor), and a city's job keeps its pool at least through the sweep that
    sees its end and Airflow's own gap before the next city's create, at the endpoint's speed — read from the
    simulator, not set by anyone — although the plan asked for less (a 60 s orchestration latency)."""
    import yaml

    from sagemaker_fleet.dispatch.cadence import AWS_CADENCE, inline_keep_alive
    from sagemaker_fleet.triggers.inline import dags_test_task_gap

    fleet = yaml.safe_load(DISPATCH.read_text())
    fleet["orchestration_latency_seconds"] = 60
    path = tmp_path / "dispatch.yaml"
    path.write_text(yaml.safe_dump(fleet))
    spec = load_fleet_spec(path)
    plan = plan_fleet(spec, RUN_KEY)
    publish_plan(monkeypatch, plan)
    book = DispatchBook.from_plan(plan, spec)
    (group,) = book.members
    first = book.members[group][0]
    inline = {"one_at_a_time": True, "end_from_trigger": False, "poll_interval": 0.0}
    (event,) = run([trigger(path, first, plan_task_id="plan", **inline)])
    assert event.payload["status"] == "success", event.payload
    interval = AWS_CADENCE.endpoint_poll_interval(0.0, 200.0)
    assert interval == 0.5
    expected = inline_keep_alive(interval, dags_test_task_gap(), 200.0)
    assert expected > book.turns[first].keep_alive_seconds > 0  # the plan asked for less
    described = SageMakerFleetHook().describe(f"disp-{first}-{RUN_KEY}")
    assert described is not None
    assert described["ResourceConfig"]["KeepAlivePeriodInSeconds"] == expected
