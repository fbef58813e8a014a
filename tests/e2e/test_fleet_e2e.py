"""The 60-city fleet through real Airflow against the simulator, with the faults a fleet meets, forced and counted:
LocalExecutor on Postgres, and Celery on Redis.

Each run has two warm-pool keys and spot cities, 30 % of API calls throttled from start to end and random spot
interruptions. The training tasks start and end in the triggerer, so most faults aim there.

- LocalExecutor: two triggerers share the run; one city's training container always fails (its task fails after
  its retries with the reason in its log, the rest of the fleet carries on and the report counts the failed jobs);
  another job fails once mid-training (its city is retried, its successor starts anyway); a finished city is
  cleared while its group runs; the scheduler and both triggerers are killed during a hand-off; then the simulated
  endpoint refuses every connection for 60 s of real time mid-run.
- Celery: the worker is frozen and killed holding the plan task (re-queued by the scheduler); a spot storm
  interrupts half of the spot cities twice, two of them the second time with no spot capacity left so they run out
  of MaxWait and are resubmitted (on spot from the same checkpoint prefix, or on demand once spot attempts are
  spent); the triggerer is killed during a hand-off; and a second, scheduled fleet has its daily run and a manual
  run on the same day, which must each train every city once under their own run key.

Then: every city completed exactly once, no duplicate jobs, no task left unfinished, no failed try that no failed
job explains, warm starts at least as planned (less what the faults cost, counted), per group never more jobs at
once than its width and jobs created in about the planned order, and the cost report's totals equal the simulator's
billing state. Each run's figures go to build/reliability/ (docs/contributing/fault-tests.md).
"""

from __future__ import annotations

import datetime as dt
import json
import os
import time
from collections import Counter
from pathlib import Path

import pytest

from e2e.chaos import (
    Background,
    SpotStorm,
    by_city,
    city_of,
    fleet_jobs,
    hold_until_another_run,
    reliability,
    run_key_of,
    write_figures,
)
from e2e.observability import (
    OBSERVED_DAG,
    check_lineage,
    check_metrics,
    check_models_asset,
    observability_env,
)
from e2e.registry import check_registry, run_registry
from sagemaker_fleet.cost import RunJobIndex, build_cost_report
from sagemaker_fleet.cost.collect import describe_run_jobs
from sagemaker_fleet.dispatch import DispatchBook
from sagemaker_fleet.fleetspec.names import job_name
from sagemaker_fleet.fleetspec.price_table import load_price_table
from sagemaker_fleet.jobs.prices import PriceBook
from sagemaker_fleet.jobs.reader import ClientJobReader
from sagemaker_fleet.plan import FleetPlan
from sagemaker_fleet.sim.client import billed_cost
from sagemaker_fleet.testing.stack import LocalAirflowStack, StackSettings, ti_label
from statsd_listener import StatsdListener

pytestmark = [pytest.mark.e2e, pytest.mark.integration, pytest.mark.postgres]
E2E_DIR = Path(__file__).resolve().parent
RUN_TIMEOUT = 900.0
# pytest-timeout's 600 s default would cut a slow run short before wait_for_run can say what is unfinished
pytestmark.append(pytest.mark.timeout(RUN_TIMEOUT + 300))
THROTTLE = 0.3
RETRIES = 3  # tests/e2e/dags: default_args
FAILING_CITY = "oslo"  # its training container always fails (LocalExecutor run)
OUTAGE_SECONDS = 60.0
STORM_CITIES = ["auckland", "brussels", "denver"]  # half the spot cities, each interrupted twice (Celery run)
PAST_MAX_WAIT = [
    "brussels",
    "denver",
]  # denver has max_attempts 1: its next submission falls back to on-demand
STORM_WORK_SECONDS = 900.0  # simulated: caught training twice, and done well within MaxWait (3600 s) even so
# The twice fleet's runs (Celery run): its daily DAG's scheduled run, a run of its manual DAG beside it, and a manual
# run of the daily DAG once that one has ended. Each job trains 10 simulated minutes (15 s real), but one city of the
# scheduled run trains 10 minutes more: its lane ends well after the others, so the room their end leaves on the
# quota is seen while it still trains, and the simulated clock stands still from then until the run beside has a job
# and one of its cities has said it waits for room (after 30 s real: chaos.hold_until_another_run). The two runs
# train at once however late the run beside plans: its plan task waits for the worker the test froze and killed,
# then for the e2e fleet's 60 cities. Without the hold, a run beside that was ready early still came in only as the
# scheduled run's last lanes ended (they end within seconds of each other), one that planned late came in after,
# and one whose cities waited less than 30 s real said nothing. All three runs end before the e2e fleet's run does.
TWICE_DAGS = {"scheduled": "e2e_twice", "manual": "e2e_twice", "beside": "e2e_twice_manual"}
TWICE_WORK_SECONDS = 600.0
TWICE_LAST_LANE = ("cusco", 1200.0)  # planned last (the shortest expected work), in the scheduled run only


def _city_of(name: str, spec) -> str:
    for city in spec.cities:
        if name.startswith(f"{spec.fleet}-{city.name}-"):
            return city.name
    raise AssertionError(f"job {name} belongs to no city")


def _wait_for_completed(sim, spec, count: int, timeout: float = 300.0) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        done = sum(1 for j in fleet_jobs(sim, spec) if j["status"] == "Completed")
        if done >= count:
            return
        time.sleep(2)
    raise AssertionError(f"fewer than {count} jobs completed in {timeout:.0f} s")


def _wait_for_training(sim, spec, count: int, timeout: float = 120.0) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if sum(1 for j in fleet_jobs(sim, spec) if j["status"] == "InProgress") >= count:
            return
        time.sleep(0.5)
    raise AssertionError(f"fewer than {count} jobs in progress at once for {timeout:.0f} s")


def _wait_for_every_city(sim, spec, run_key: str, timeout: float = 180.0) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if {city_of(j["name"], spec) for j in fleet_jobs(sim, spec, run_key)} == {
            c.name for c in spec.cities
        }:
            return
        time.sleep(0.5)
    raise AssertionError(f"run {run_key} of {spec.fleet} did not start every city within {timeout:.0f} s")


def _interrupt_running_spot_jobs(sim, spec, limit: int = 2) -> int:
    interrupted = 0
    for job in fleet_jobs(sim, spec):
        if job["spot"] and job["secondary_status"] == "Training" and interrupted < limit:
            sim.interrupt(job["name"])
            interrupted += 1
    return interrupted


def _wait_for_queued(stack: LocalAirflowStack, run_id: str, timeout: float = 120.0) -> list[str]:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        queued = stack.task_states("e2e_fleet", run_id).get("queued", [])
        if queued:
            return queued
        time.sleep(0.5)
    raise AssertionError(f"no task instance was queued within {timeout:.0f} s of freezing the worker")


def _wait_for_tasks_deferred(stack: LocalAirflowStack, run_id: str, timeout: float = 180.0) -> list[str]:
    """Until no training task of the run is still starting (cleared and not yet scheduled, scheduled, queued, running
    on a worker or up for retry: not yet deferred), but the always-failing city's, whose retries start again and again; the tasks still starting after
    ``timeout``. The scheduler kill below is meant to find the run's tasks in the triggerer: killed while the first
    wave still started (a slow machine: 60 task processes on 2 cores), the LocalExecutor's task processes died with
    it and those tries failed without a failed job."""
    deadline = time.monotonic() + timeout
    starting: list[str] = []
    while time.monotonic() < deadline:
        states = stack.task_states("e2e_fleet", run_id)
        starting = [
            task
            for state in ("None", "scheduled", "queued", "running", "up_for_retry", "restarting")
            for task in states.get(state, [])
            if task.startswith("train") and task != f"train[{FAILING_CITY}]"
        ]
        if not starting:
            break
        time.sleep(1.0)
    return starting


def _wait_for_hand_off(sim, spec, timeout: float = 120.0) -> str:
    """A job that has just ended with its pool kept for a successor not created yet: a hand-off under way."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        for job in fleet_jobs(sim, spec):
            if job["status"] == "Completed" and job["warm_pool_status"] == "Available":
                return job["name"]
        time.sleep(0.2)
    raise AssertionError(f"no hand-off seen within {timeout:.0f} s")


def _fail_a_running_on_demand_job(sim, spec) -> str:
    """A predecessor fails mid-training: its successor must still start (cold), its city is retried."""
    for job in fleet_jobs(sim, spec):
        if (
            not job["spot"]
            and job["secondary_status"] == "Training"
            and "-r" not in job["name"]
            and _city_of(job["name"], spec) != FAILING_CITY
        ):
            sim.fail(job["name"], "AlgorithmError: failed on purpose by the e2e test")
            return job["name"]
    raise AssertionError("no on-demand job is training")


def _clear_a_completed_city(stack: LocalAirflowStack, sim, spec, run_id: str) -> str:
    """Clear a finished city's task instance (one map index of ``train``) while its group still runs: it must come
    back done, training nothing."""
    deadline = time.monotonic() + 120
    done: list[dict] = []
    while not done and time.monotonic() < deadline:
        tis = stack.task_instances("e2e_fleet", run_id)
        done = [t for t in tis if t["task_id"] == "train" and t["state"] == "success"]
        time.sleep(0.5)
    assert done, tis
    ti = done[0]
    stack.api(
        "POST",
        "/api/v2/dags/e2e_fleet/clearTaskInstances",
        {
            "dry_run": False,
            "dag_run_id": run_id,
            "task_ids": [[ti["task_id"], ti["map_index"]]],
            "only_failed": False,
            "reset_dag_runs": False,
            "include_downstream": False,
        },
    )
    return ti_label(ti)


def _kill_during_a_hand_off(stack: LocalAirflowStack, sim, spec, kill: str | None) -> str:
    """Kill ``kill`` (if given) and every triggerer while a pool waits for its successor; start them again."""
    hand_off = _wait_for_hand_off(sim, spec)
    triggerers = [name for name in list(stack.processes) if name.startswith("triggerer")]
    if kill:
        stack.kill_component(kill)  # the scheduler dies too: the run's tasks live in the triggerer
    for name in triggerers:
        stack.kill_component(name)
    _interrupt_running_spot_jobs(sim, spec)
    time.sleep(5)
    if kill:
        stack.start_component(kill)
    for name in triggerers:
        stack.start_component(name)
    return hand_off


def run_local_faults(stack: LocalAirflowStack, server, sim, spec) -> dict:
    """LocalExecutor: two triggerers share the run; a city always fails; a job fails once; a finished city is
    cleared; the scheduler and both triggerers are killed during a hand-off; the endpoint goes away for 60 s."""
    stack.wait_for_dag("e2e_fleet")
    sim.throttle(THROTTLE)
    sim.failures(cities=[f"{spec.fleet}/{FAILING_CITY}"])
    stack.start_component("triggerer@2")  # two triggerers share the run's cities
    run_id = stack.trigger("e2e_fleet")
    faults: dict = {"run_id": run_id, "lost": [], "failing_city": FAILING_CITY}
    _wait_for_completed(sim, spec, 8)
    faults["failed_job"] = _fail_a_running_on_demand_job(sim, spec)
    faults["cleared"] = _clear_a_completed_city(stack, sim, spec, run_id)
    faults["starting_at_kill"] = _wait_for_tasks_deferred(stack, run_id)
    faults["hand_off"] = _kill_during_a_hand_off(stack, sim, spec, "scheduler")
    _wait_for_completed(sim, spec, 30)
    _wait_for_training(sim, spec, 4)
    # the endpoint refuses every connection (the test's admin calls too) for a minute of real time: 40 simulated
    # minutes, in which every running job ends and its pool waits; then it comes back with its state
    began = sim.now()
    in_progress = sum(1 for j in fleet_jobs(sim, spec) if j["status"] == "InProgress")
    server.outage(OUTAGE_SECONDS).join()
    faults["outage"] = {
        "seconds": OUTAGE_SECONDS,
        "sim_began": began,
        "sim_ended": sim.now(),
        "jobs_in_progress_at_start": in_progress,
    }
    faults["state"] = stack.wait_for_run("e2e_fleet", run_id, timeout=RUN_TIMEOUT)
    sim.throttle(0.0)
    faults["tis"] = stack.task_instances("e2e_fleet", run_id)
    return faults


def run_celery_faults(stack: LocalAirflowStack, sim, spec, twice_spec) -> dict:
    """Celery: the worker is frozen and killed while it holds the plan task; a spot storm; the triggerer is killed
    during a hand-off; the scheduled and a manual run of a second fleet on the same day."""
    stack.wait_for_dag("e2e_fleet")
    stack.wait_for_dag("e2e_twice")
    stack.wait_for_dag("e2e_twice_manual")
    sim.throttle(THROTTLE)
    for city in STORM_CITIES:
        sim.set_work(STORM_WORK_SECONDS, city=city, fleet=spec.fleet)
    for city in twice_spec.cities:
        sim.set_work(TWICE_WORK_SECONDS, city=city.name, fleet=twice_spec.fleet)
    # The worker's pool processes hang, then the whole worker dies: the task the scheduler queues meanwhile (the
    # plan) is taken off the broker by the worker's main process and never started, so it stays `queued` (its
    # message unacknowledged for the broker's visibility timeout, 24 h) until the scheduler's task_queued_timeout
    # re-queues it. The cities come after the plan, so none starts meanwhile; nothing is lost or duplicated.
    assert stack.freeze_children("celery-worker"), "the Celery worker has no pool processes to freeze"
    run_id = stack.trigger("e2e_fleet")
    faults: dict = {"run_id": run_id}
    faults["lost"] = _wait_for_queued(stack, run_id)
    time.sleep(3)  # let the main process take the message off Redis
    stack.kill_component("celery-worker")
    stack.start_component("celery-worker")
    storm = SpotStorm(sim, spec, STORM_CITIES, PAST_MAX_WAIT, timeout=RUN_TIMEOUT)
    storm.start()
    # the second fleet: unpausing its daily DAG creates today's scheduled run. Once every city of it has its job (the
    # first lanes handed their pools to the run's own next cities), a run of the fleet's manual DAG starts beside it:
    # both declare the account's whole quota and must share it; the scheduled run is held until the run beside has a
    # job (TWICE_LAST_LANE), and only then does the test's next fault (the triggerer kill) come. Triggered while the
    # first lanes still trained, the run beside took their pools in the seconds the scheduled run's throttled sweep
    # came late (two looks, account.CLAIM_AFTER_LISTINGS), and the scheduled run's next cities, sent to the pools
    # they counted on, were refused 12 times. When that run has ended, a manual run of the daily
    # DAG the same day (triggered earlier it would queue behind the scheduled run, one active run per fleet DAG, and
    # start in the same second as the run beside it took the room the scheduled run left: three cities refused at
    # once, a race of two new runs, not the pair this scenario measures)
    stack.unpause("e2e_twice")
    today = dt.datetime.now(dt.UTC).replace(hour=0, minute=0, second=0, microsecond=0)
    scheduled = _wait_for_scheduled_run(stack, "e2e_twice")
    scheduled_key = run_key_of(stack, "e2e_twice", scheduled)
    city, seconds = TWICE_LAST_LANE
    sim.set_work(seconds, job=job_name(twice_spec.fleet, city, scheduled_key))
    ((instance_type, quota),) = twice_spec.quotas.items()
    _wait_for_every_city(sim, twice_spec, scheduled_key)
    beside = stack.trigger("e2e_twice_manual")
    then_manual = ManualRunAfter(
        stack, "e2e_twice_manual", beside, "e2e_twice", today + dt.timedelta(minutes=1)
    )
    then_manual.start()
    faults["twice_hold"] = hold_until_another_run(
        sim,
        twice_spec,
        scheduled_key,
        instance_type,
        quota.instances,
        seen_waiting=lambda: _logs_say(stack, "e2e_twice_manual", _waits_for_room(instance_type)),
    )
    _wait_for_completed(sim, spec, 8)
    faults["hand_off"] = _kill_during_a_hand_off(stack, sim, spec, None)
    faults["state"] = stack.wait_for_run("e2e_fleet", run_id, timeout=RUN_TIMEOUT)
    faults["storm"] = storm.after_the_run(timeout=60)
    manual = then_manual.result(timeout=300)["run_id"]
    faults["twice"] = {"scheduled": scheduled, "manual": manual, "beside": beside}
    faults["twice_states"] = {
        run: stack.wait_for_run(TWICE_DAGS[kind], run, timeout=300) for kind, run in faults["twice"].items()
    }
    faults["api_errors"] = sim.calls()["errors"]
    sim.throttle(0.0)
    faults["tis"] = stack.task_instances("e2e_fleet", run_id)
    return faults


class ManualRunAfter(Background):
    """A manual run of ``dag_id`` on ``logical_date``, triggered once run ``after`` of ``after_dag`` has ended."""

    def __init__(
        self,
        stack: LocalAirflowStack,
        after_dag: str,
        after: str,
        dag_id: str,
        logical_date: dt.datetime,
        timeout: float = 300.0,
    ) -> None:
        super().__init__("manual-run-after")
        self.stack, self.after_dag, self.after, self.dag_id = stack, after_dag, after, dag_id
        self.logical_date, self.timeout = logical_date, timeout

    def inject(self) -> dict:
        self.stack.wait_for_run(self.after_dag, self.after, timeout=self.timeout)
        return {"run_id": self.stack.trigger(self.dag_id, logical_date=self.logical_date.isoformat())}


def _wait_for_scheduled_run(stack: LocalAirflowStack, dag_id: str, timeout: float = 120.0) -> str:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        runs = [r for r in stack.runs(dag_id) if r["run_type"] == "scheduled"]
        if runs:
            return str(runs[0]["dag_run_id"])
        time.sleep(1)
    raise AssertionError(
        f"the scheduler created no scheduled run of {dag_id} within {timeout:.0f} s of unpausing"
    )


def check_run_state(
    stack: LocalAirflowStack, result: dict, cities: int, failing: frozenset[str] = frozenset()
) -> None:
    """The run ended; every task succeeded but the failing cities' and, naming them, the outcome task, which
    fails the run (the cost report, the other last task, succeeds whatever happened)."""
    tis = result["tis"]
    failed = sorted(ti_label(t) for t in tis if t["state"] != "success")
    expected = sorted([f"train[{city}]" for city in failing] + (["outcome"] if failing else []))
    assert failed == expected, f"run {result['state']}; not successful: {failed} (expected {expected})"
    assert result["state"] == ("failed" if failing else "success"), result["state"]
    if failing:
        logs = [
            p for p in Path(stack.settings.home).rglob("*") if p.is_file() and "task_id=outcome" in str(p)
        ]
        said = f"{len(failing)} of {cities} cities did not train: " + ", ".join(
            f"{c} (failed)" for c in failing
        )
        assert any(said.encode() in p.read_bytes() for p in logs), (said, [str(p) for p in logs])


def check_notice(stack: LocalAirflowStack, result: dict, failing: frozenset[str] = frozenset()) -> None:
    """The run's notice reached the notifier of its outcome, rendered, with the run's figures."""
    path = Path(stack.settings.home) / "notices" / f"{result['run_id'].replace(':', '_')}.json"
    assert path.exists(), f"no notice was sent for {result['run_id']}"
    notice = json.loads(path.read_text())
    summary = notice["summary"]
    assert notice["kind"] == ("failure" if failing else "success")
    assert summary["failed"] == sorted(failing)
    assert notice["subject"] == summary["headline"]
    assert notice["subject"].startswith(f"sagemaker-fleet e2e run {summary['run_key']}: ")
    assert f"Starts: {summary['warm_starts']} warm, {summary['cold_starts']} cold." in notice["body"]
    assert summary["report_uri"] in notice["body"]
    assert summary["warm_starts"] > 0
    assert summary["cost_usd"] > 0


def run_plan(stack: LocalAirflowStack, run_id: str, dag_id: str = "e2e_fleet") -> FleetPlan:
    """The plan the run dispatched by: its plan task's ``plan`` XCom."""
    entry = stack.api("GET", f"/api/v2/dags/{dag_id}/dagRuns/{run_id}/taskInstances/plan/xcomEntries/plan")
    value = entry["value"]
    return FleetPlan.from_json(value if isinstance(value, dict) else json.loads(value))


def report_totals(stack: LocalAirflowStack, dag_id: str, run_id: str) -> dict:
    xcom = stack.api(
        "GET", f"/api/v2/dags/{dag_id}/dagRuns/{run_id}/taskInstances/cost_report/xcomEntries/return_value"
    )
    totals = xcom["value"]["totals"] if isinstance(xcom["value"], dict) else None
    assert totals is not None, xcom
    return totals


def check_outcome(
    sim, spec, stack: LocalAirflowStack, result: dict, artifacts: Path, order: bool = True, allowance: int = 0
) -> None:
    """Every city completed exactly once (the failing city never, after one submission per try); on-demand cities
    have one job (the city failed on purpose once: the failed one and its retry); the report equals the simulator's
    billing; warm starts at least the plan's less ``allowance`` (starts the faults may cost, counted by the
    caller)."""
    run_id = result["run_id"]
    jobs = fleet_jobs(sim, spec)
    (artifacts / "simulator-jobs.json").write_text(json.dumps(jobs, indent=1, default=str))
    cities = by_city(jobs, spec)
    assert set(cities) == {c.name for c in spec.cities}
    failed_city = _city_of(result["failed_job"], spec) if result.get("failed_job") else None
    failing = result.get("failing_city")
    for city in spec.cities:
        submissions = cities[city.name]
        statuses = [j["status"] for j in submissions]
        if city.name == failing:
            assert statuses == ["Failed"] * (RETRIES + 1), statuses
            continue
        completed = [j for j in submissions if j["status"] == "Completed"]
        assert len(completed) == 1, f"{city.name}: {[(j['name'], j['status']) for j in submissions]}"
        if city.name == failed_city:
            assert statuses == ["Failed", "Completed"], statuses
        elif city.spot is None:
            assert len(submissions) == 1, f"duplicate on-demand jobs for {city.name}"
    names = Counter(j["name"] for j in jobs)
    assert max(names.values()) == 1

    run_key = run_key_of(stack, "e2e_fleet", run_id)
    if result.get("cleared"):  # cleared and run again: success, and still the city's one job
        cleared = next(t for t in result["tis"] if ti_label(t) == result["cleared"])
        assert cleared["state"] == "success", cleared
        assert cleared["try_number"] >= 2, cleared
    # the run's release_pools task ended every pool still idle at its end, so nothing accrues between the DAG's
    # report, the one rebuilt here and the simulator's billing
    assert [j["name"] for j in jobs if j["warm_pool_status"] == "Available"] == []
    last_end = max(j["ended_at"] for j in jobs if j["ended_at"])
    after_last_end = round(
        sum(
            max(0.0, j["ended_at"] + j["retained_seconds"] - last_end)
            for j in jobs
            if j["ended_at"] and j["warm_pool_status"] == "Terminated"
        ),
        1,
    )
    (artifacts / "idle-after-last-end.json").write_text(
        json.dumps(
            {
                "retained_seconds_after_the_last_job_end": after_last_end,
                "released": stack.api(
                    "GET",
                    f"/api/v2/dags/e2e_fleet/dagRuns/{run_id}/taskInstances/release_pools/"
                    "xcomEntries/return_value",
                )["value"],
            },
            indent=1,
        )
    )
    # a group's last jobs were created with keep-alive 0 or given it while they ran: no pool idled past the end
    assert after_last_end == 0, [
        (j["name"], j["ended_at"], j["retained_seconds"])
        for j in jobs
        if j["ended_at"] and j["ended_at"] + j["retained_seconds"] > last_end
    ]
    client = sim.boto3_client("sagemaker")
    index = RunJobIndex.for_run(spec, run_key)
    book = PriceBook(region=spec.region, table=load_price_table(), spec_prices=spec.prices)
    report = build_cost_report(spec, run_key, describe_run_jobs(ClientJobReader(client), index), book)
    state = fleet_jobs(sim, spec)
    # in the whole seconds DescribeTrainingJob gives: float seconds could put the sums either side of a half cent
    expected = billed_cost(state, lambda t: book.price(t).usd_per_hour).total_usd
    assert round(report.totals.cost_usd, 2) == round(expected, 2)
    assert report.totals.billable_seconds == sum(j["billable_seconds"] for j in state)
    # the report the DAG's own cost_report task wrote, at the run's end: its jobs, starts and billed training cost
    # are final then (every job had ended); only the idle pools' cost went on accruing until the pools ended above
    task_totals = report_totals(stack, "e2e_fleet", run_id)
    assert task_totals["jobs"] == len(state)
    assert task_totals["failed"] == sum(1 for j in state if j["status"] == "Failed")
    assert task_totals["warm_starts"] == sum(1 for j in state if j["start"] == "warm")
    billed = billed_cost(state, lambda t: book.price(t).usd_per_hour)
    trained = task_totals["cost_usd"] - task_totals["retained_cost_usd"]  # two figures rounded to the cent
    assert abs(trained - (billed.total_usd - billed.retained_usd)) <= 0.01 + 1e-9, (task_totals, billed)
    assert job_name(spec.fleet, spec.cities[0].name, run_key) in names
    plan = run_plan(stack, run_id)
    (artifacts / "plan.json").write_text(plan.dumps())
    on_demand = [j for j in jobs if not j["spot"]]
    warm = sum(1 for j in on_demand if j["start"] == "warm")
    assert warm >= plan.summary.warm_starts - allowance, (warm, plan.summary.warm_starts, allowance)
    check_order_and_concurrency(spec, plan, jobs, order=order)


def check_failing_city_log(stack: LocalAirflowStack, tis: list[dict]) -> None:
    """The failing city's task log says why: the training job's FailureReason (an AlgorithmError)."""
    (index,) = {t["map_index"] for t in tis if ti_label(t) == f"train[{FAILING_CITY}]"}
    logs = [
        p
        for p in Path(stack.settings.home).rglob("*")
        if p.is_file() and "task_id=train/" in str(p) and f"map_index={index}/" in str(p)
    ]
    assert logs, f"no task log of train[{FAILING_CITY}] (map index {index})"
    assert any(b"AlgorithmError" in p.read_bytes() for p in logs), [str(p) for p in logs]


def check_storm(sim, spec, storm: dict) -> None:
    """Every storm city was interrupted twice; each city that ran out of MaxWait was resubmitted from the same
    checkpoint prefix — on spot while spot attempts remained, on demand after (denver: max_attempts 1)."""
    assert storm["interrupted"] == {city: 2 for city in STORM_CITIES}, storm
    cities = by_city(fleet_jobs(sim, spec), spec)
    assert len(storm["starved"]) == len(PAST_MAX_WAIT), storm
    for city in PAST_MAX_WAIT:
        submissions = cities[city]
        starved = next(j for j in submissions if j["name"] in storm["starved"])
        assert starved["secondary_status"] == "MaxWaitTimeExceeded", starved
        after = submissions[submissions.index(starved) + 1 :]
        assert after, f"{city} was not resubmitted after MaxWait"
        assert {j["checkpoint_uri"] for j in after} == {starved["checkpoint_uri"]}, (city, after)
        spec_city = next(c for c in spec.cities if c.name == city)
        assert spec_city.spot is not None
        if spec_city.spot.max_attempts == 1:
            assert not after[0]["spot"], f"{city}: the fallback after its one spot attempt is on demand"
        else:
            assert after[0]["spot"], f"{city}: spot attempts remain, so it is resubmitted on spot"


def check_twice(stack: LocalAirflowStack, sim, twice_spec, result: dict) -> list[dict]:
    """The twice fleet's three runs on one day: the scheduled and a manual run of its daily DAG, and a run of its
    manual DAG beside the scheduled one. Each trains every city once under its own run key; none attaches to
    another's jobs; each report counts only its own."""
    twice = result["twice"]
    assert result["twice_states"] == {run: "success" for run in twice.values()}, result
    figures = []
    keys = {}
    for kind, run_id in twice.items():
        dag_id = TWICE_DAGS[kind]
        figures.append(
            reliability(
                sim,
                twice_spec,
                stack,
                dag_id,
                run_id,
                plan_warm=run_plan(stack, run_id, dag_id).summary.warm_starts,
                injected={"fault": f"{kind} run of the same fleet on the same day"},
            )
        )
        keys[kind] = figures[-1]["run_key"]
        assert report_totals(stack, dag_id, run_id)["jobs"] == len(twice_spec.cities), kind
    today = dt.datetime.now(dt.UTC).strftime("%Y%m%d")
    assert keys["scheduled"] == today, keys
    assert keys["manual"].startswith("m"), keys
    assert keys["beside"].startswith("m"), keys
    assert len(set(keys.values())) == len(keys), keys
    jobs = fleet_jobs(sim, twice_spec)
    assert len(jobs) == len(keys) * len(twice_spec.cities), [j["name"] for j in jobs]
    for city, submissions in by_city(jobs, twice_spec).items():
        assert sorted(j["name"].rsplit("-", 1)[-1] for j in submissions) == sorted(keys.values()), city
        assert all(j["status"] == "Completed" for j in submissions), city
    return figures


def _logs_of(stack: LocalAirflowStack, dag_id: str) -> list[Path]:
    """The training tasks' logs of ``dag_id`` (the trigger's lines are in them)."""
    return [
        p
        for p in Path(stack.settings.home).rglob("*")
        if p.is_file() and f"dag_id={dag_id}/" in str(p) and "task_id=train/" in str(p)
    ]


def _waits_for_room(instance_type: str) -> bytes:
    """What a city's task log says while it waits for room in ``instance_type``'s instance quota."""
    return f"waits for room in the {instance_type} instances quota".encode()


def _logs_say(stack: LocalAirflowStack, dag_id: str, line: bytes) -> bool:
    return any(line in p.read_bytes() for p in _logs_of(stack, dag_id))


def check_shared_account(stack: LocalAirflowStack, sim, twice_spec, result: dict, keys: dict) -> dict:
    """Issue #28's runs on one account: the scheduled run and the manual run beside it, both declaring the account's
    whole quota of the type, trained at the same time; the quota refused at most 2 creates in all (each run counts
    the other's jobs and pools and waits for room: a run counting only its own is refused again and again); the
    account never held more instances than its quota; every city of each run trained exactly once. The figures are
    written (build/reliability/) before any is asserted, so a failure leaves them all."""
    ((instance_type, quota),) = twice_spec.quotas.items()
    jobs = fleet_jobs(sim, twice_spec)
    runs = {kind: [j for j in jobs if j["name"].endswith(f"-{key}")] for kind, key in keys.items()}
    scheduled, beside = runs["scheduled"], runs["beside"]
    # (1) jobs of the two runs that trained at the same time, by the simulator's own creation and end times
    together = [
        (a["name"], b["name"])
        for a in scheduled
        for b in beside
        if max(a["created_at"], b["created_at"]) < min(a["ended_at"], b["ended_at"])
    ]
    span = {
        kind: (min(j["created_at"] for j in r), max(j["ended_at"] for j in r)) for kind, r in runs.items()
    }
    both = min(span["scheduled"][1], span["beside"][1]) - max(span["scheduled"][0], span["beside"][0])
    waited = _waits_for_room(instance_type)
    logs = [p for dag_id in sorted(set(TWICE_DAGS.values())) for p in _logs_of(stack, dag_id)]
    figures = {
        "instance_type": instance_type,
        "quota_instances": quota.instances,
        # (2) the simulator's count of the quota's refusals, every fleet of the account included
        "resource_limit_exceeded": result["api_errors"].get("CreateTrainingJob:ResourceLimitExceeded", 0),
        "resource_limit_exceeded_in_twice_logs": sum(
            p.read_bytes().count(b"instance quota in use (ResourceLimitExceeded)") for p in logs
        ),
        # (3) running jobs and their idle pools of the type at once
        "peak_instances": _peak_instances([j for j in jobs if j["instance_type"] == instance_type]),
        "jobs_together": len(together),
        "runs_overlap_sim_seconds": round(both, 1),
        "spans_sim_seconds": {kind: [round(a, 1), round(b, 1)] for kind, (a, b) in span.items()},
        # (5) the contention seen and waited on
        "logs_waiting_for_room": sum(1 for p in logs if waited in p.read_bytes()),
        # how long the simulated clock stood still (from the end of a scheduled lane until the run beside had a job
        # and a city of it said it waits for room) and what the scheduled run still trained then (run_celery_faults)
        "hold": result["twice_hold"],
        # (4) each city of each run: its jobs (check_twice: one, completed)
        "cities_per_run": {
            kind: sorted(str(city_of(j["name"], twice_spec)) for j in run) for kind, run in runs.items()
        },
    }
    write_figures("celery-executor-twice-shared-account", figures, jobs)
    assert figures["resource_limit_exceeded"] <= 2, figures
    assert figures["peak_instances"] <= quota.instances, figures
    cities = sorted(c.name for c in twice_spec.cities)
    assert figures["cities_per_run"] == {kind: cities for kind in runs}, figures
    assert all(j["status"] == "Completed" for j in jobs), figures
    assert together, f"no job of the scheduled run ran beside one of the manual run: {figures}"
    assert figures["logs_waiting_for_room"] > 0, (
        f"no city waited for room in the {instance_type} quota: {figures}"
    )
    return figures


def _peak_instances(jobs: list[dict]) -> int:
    """Instances in use at once — running jobs and their Available pools — from the simulator's own record (a
    pool taken over ends when its successor's job is created)."""
    edges = []
    for job in jobs:
        end = job["ended_at"]
        if end is not None:
            end += job["retained_seconds"] or 0
        edges += [
            (job["created_at"], job["instance_count"]),
            (end if end is not None else float("inf"), -job["instance_count"]),
        ]
    running = peak = 0
    for _, step in sorted(edges):  # an end sorts before a start at the same instant
        running += step
        peak = max(peak, running)
    return peak


def check_figures(figures: dict) -> None:
    """The targets every run of docs/contributing/fault-tests.md holds to."""
    assert figures["duplicate_jobs"] == [], figures
    assert figures["lost_cities"] == [], figures
    assert figures["stuck_tasks"] == [], figures
    assert figures["failed_tries_without_failed_job"] == {}, figures


PLANTED_SECRET = (
    "planted-e2e-secret-7f3a9c"  # tests/e2e/fleets/e2e.yaml: amsterdam's environment/hyperparameters
)


def check_no_secret_in_logs(stack: LocalAirflowStack) -> None:
    """No task, triggerer, scheduler or other component log of the run shows a city's environment or
    hyperparameters (they reach SageMaker in the request, never Airflow's logs, events or XComs)."""
    leaked = []
    for folder in {stack.settings.home, stack.log_dir}:
        for path in Path(folder).rglob("*"):
            if path.is_file() and path.suffix != ".db" and PLANTED_SECRET.encode() in path.read_bytes():
                leaked.append(str(path))
    assert not leaked, f"the planted secret is in {leaked}"


def _peak_running(submissions: list[dict]) -> int:
    edges = sorted([(j["created_at"], 1) for j in submissions] + [(j["ended_at"], -1) for j in submissions])
    running = peak = 0
    for _, step in edges:  # an end sorts before a start at the same instant
        running += step
        peak = max(peak, running)
    return peak


def _rank_correlation(order: list[float]) -> float:
    """Spearman's rho between list position and the rank of ``order``'s values (1: same order, ~0: random)."""
    n = len(order)
    ranks = {i: r for r, i in enumerate(sorted(range(n), key=lambda i: order[i]))}
    return 1 - 6 * sum((i - ranks[i]) ** 2 for i in range(n)) / (n * (n * n - 1))


def check_order_and_concurrency(spec, plan, jobs: list[dict], order: bool = True) -> None:
    """Per group, never more of its first submissions at once than its width (the plan's peak lanes) and jobs
    created in about the planned order: the dispatch admits them in order, but a killed triggerer's cities come
    back a little late, so it is a rank correlation (a reversed or random order gives ≤ 0) over on-demand groups of
    5+ jobs. Retries and spot re-submissions continue a city that already had its turn and are left out."""
    book = DispatchBook.from_plan(plan, spec)
    by_name = {j["name"]: j for j in jobs}
    for group in plan.groups:
        planned = sorted(
            (p for p in plan.jobs if p.group == group.group), key=lambda p: book.turns[p.city].rank
        )
        firsts = [by_name[p.job_name] for p in planned]
        width = book.widths[group.group]
        assert _peak_running(firsts) <= width, (group.group, _peak_running(firsts), width)
        if order and not group.spot and len(planned) >= 5:
            rho = _rank_correlation([j["created_at"] for j in firsts])
            assert rho >= 0.6, (
                f"{group.group}: jobs created far from the planned order (rank correlation {rho:.2f})"
            )


def _stack(
    tmp_path, sim, spec, executor: str, db: str, broker: str | None = None, env: dict | None = None
) -> LocalAirflowStack:
    return LocalAirflowStack(
        StackSettings(
            home=tmp_path / "airflow",
            dags_folder=E2E_DIR / "dags",
            endpoint_url=sim.url,
            executor=executor,
            sql_alchemy_conn=db,
            celery_broker_url=broker,
            parallelism=16,
            extra_env=env or {},
        )
    )


def _outage_allowance(jobs: list[dict], outage: dict) -> int:
    """On-demand jobs that ended while the endpoint was away: each one's successor could not be created until it
    came back, and may have found the pool gone."""
    return sum(
        1
        for j in jobs
        if not j["spot"]
        and j["ended_at"] is not None
        and outage["sim_began"] <= j["ended_at"] <= outage["sim_ended"]
    )


# `make test` runs the end-to-end tests in two xdist workers by group: this run alone in one, the Celery run and the
# browser scenarios one after the other in the other (about as long together). With three stacks at once (one per
# worker) the scheduler kill of this run caught two cities' task processes before they had deferred, and their
# tries failed without a failed job.
@pytest.mark.xdist_group("e2e-local-executor")
def test_local_executor_on_postgres(
    tmp_path, e2e_server, e2e_sim, e2e_spec, registry_spec, postgres_url
) -> None:
    e2e_sim.reset(moto=False)
    # the run's metrics go to a StatsD listener of the test's and its lineage to a file (issue 27): the stack's
    # every component is set as a platform team would set it, and the checks below read what arrived
    listener = StatsdListener()
    lineage_file = tmp_path / "openlineage.jsonl"
    env = observability_env(listener, lineage_file)
    with _stack(tmp_path, e2e_sim, e2e_spec, "LocalExecutor", postgres_url, env=env) as stack:
        stack.wait_for_dag(OBSERVED_DAG)
        stack.unpause(OBSERVED_DAG)
        result = run_local_faults(stack, e2e_server, e2e_sim, e2e_spec)
        check_run_state(stack, result, len(e2e_spec.cities), failing=frozenset({FAILING_CITY}))
        check_notice(stack, result, failing=frozenset({FAILING_CITY}))
        plan = run_plan(stack, result["run_id"])
        figures = reliability(
            e2e_sim,
            e2e_spec,
            stack,
            "e2e_fleet",
            result["run_id"],
            plan_warm=plan.summary.warm_starts,
            failing_cities=frozenset({FAILING_CITY}),
            injected={
                "throttled_share": THROTTLE,
                "outage": result["outage"],
                "failing_city": FAILING_CITY,
                "failed_once": result["failed_job"],
                "cleared": result["cleared"],
                "killed_during_hand_off": ["scheduler", "triggerer", "triggerer@2"],
            },
        )
        write_figures("local-executor", figures, fleet_jobs(e2e_sim, e2e_spec))
        check_figures(figures)
        # warm starts the faults may cost: the city failed once (its retry) and the always-failing city (each of
        # its submissions can take a pool planned for another city), and every hand-off the outage held up
        allowance = 1 + (RETRIES + 1) + _outage_allowance(fleet_jobs(e2e_sim, e2e_spec), result["outage"])
        check_outcome(e2e_sim, e2e_spec, stack, result, tmp_path, allowance=allowance)
        check_failing_city_log(stack, result["tis"])
        check_no_secret_in_logs(stack)
        totals = report_totals(stack, "e2e_fleet", result["run_id"])
        observed = {
            "metrics": check_metrics(listener, e2e_sim, e2e_spec, totals, Path(stack.settings.home)),
            "lineage": check_lineage(lineage_file, e2e_sim, e2e_spec, "e2e_fleet", FAILING_CITY, totals),
            "models_asset_cities": check_models_asset(stack, e2e_sim, e2e_spec, FAILING_CITY),
        }
        (tmp_path / "observability.json").write_text(json.dumps(observed, indent=1))
        print("observability:", json.dumps(observed))
        # the model registry's gate: a second fleet, with register:, run twice on the same stack once this run
        # has ended (tests/e2e/registry.py)
        gated = run_registry(stack, e2e_sim, registry_spec)
        write_figures("local-executor-model-registry", gated, fleet_jobs(e2e_sim, registry_spec))
        print("model registry:", json.dumps(check_registry(stack, e2e_sim, registry_spec, gated)))
    listener.close()


@pytest.mark.redis
@pytest.mark.xdist_group("e2e-celery-and-browser")
def test_celery_executor_with_redis(tmp_path, e2e_sim, e2e_spec, twice_spec, postgres_url) -> None:
    e2e_sim.reset(moto=False)
    with _stack(
        tmp_path,
        e2e_sim,
        e2e_spec,
        "CeleryExecutor",
        postgres_url,
        broker=f"redis://127.0.0.1:6379/{7 + os.getpid() % 8}",
    ) as stack:
        result = run_celery_faults(stack, e2e_sim, e2e_spec, twice_spec)
        check_run_state(stack, result, len(e2e_spec.cities))
        check_notice(stack, result)
        scheduler_log = (stack.log_dir / "scheduler.log").read_text(errors="replace")
        # the tasks lost with the frozen worker came back through the stuck-in-queued path, not by luck
        requeued = scheduler_log.count("Task stuck in queued; will try to requeue")
        assert requeued >= 1, result["lost"]
        plan = run_plan(stack, result["run_id"])
        figures = reliability(
            e2e_sim,
            e2e_spec,
            stack,
            "e2e_fleet",
            result["run_id"],
            plan_warm=plan.summary.warm_starts,
            injected={
                "throttled_share": THROTTLE,
                "worker_frozen_then_killed_holding": result["lost"],
                "requeued": requeued,
                "spot_storm": result["storm"],
                "killed_during_hand_off": ["triggerer"],
            },
        )
        write_figures("celery-executor", figures, fleet_jobs(e2e_sim, e2e_spec))
        check_figures(figures)
        twice = check_twice(stack, e2e_sim, twice_spec, result)
        for kind, row in zip(result["twice"], twice, strict=True):
            write_figures(f"celery-executor-twice-{kind}", row)
            check_figures(row)
        keys = {kind: row["run_key"] for kind, row in zip(result["twice"], twice, strict=True)}
        shared = check_shared_account(stack, e2e_sim, twice_spec, result, keys)
        print("shared account:", json.dumps(shared))
        check_storm(e2e_sim, e2e_spec, result["storm"])
        # warm starts the faults may cost: each task lost with the worker waited ~100 s real (past the keep-alive
        # cap), and the on-demand fallback of a spot city can take a pool planned for another city
        fallbacks = sum(
            1
            for j in fleet_jobs(e2e_sim, e2e_spec)
            if not j["spot"]
            and "-r" in j["name"]
            and any(c.name in j["name"] and c.spot for c in e2e_spec.cities)
        )
        check_outcome(e2e_sim, e2e_spec, stack, result, tmp_path, allowance=requeued + fallbacks)
        check_no_secret_in_logs(stack)
