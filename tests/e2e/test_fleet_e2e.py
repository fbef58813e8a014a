"""The 60-city fleet through real Airflow against the simulator: LocalExecutor on Postgres, and Celery on Redis.

Each run has two warm-pool keys and spot cities, 20 % of API calls throttled and spot interruptions injected. The
training tasks start and end in the triggerer, so the faults aim there: LocalExecutor — two triggerers share the
run, a job fails mid-training (its city is retried, its successor starts anyway), a finished city is cleared while
its group runs, and the scheduler and both triggerers are killed during a hand-off; Celery — the worker is frozen
and killed holding the plan task (re-queued by the scheduler), and the triggerer is killed during a hand-off. Then:
every city completed exactly once, no duplicate jobs, no task left deferred, warm starts at least as planned, per
group never more jobs at once than its width and jobs created in about the planned order, and the cost report's
totals equal the simulator's billing state.
"""

from __future__ import annotations

import json
import os
import time
from collections import Counter
from pathlib import Path

import pytest

from sagemaker_fleet.cost import PriceBook, RunJobIndex, build_cost_report, load_price_table
from sagemaker_fleet.cost.collect import describe_run_jobs
from sagemaker_fleet.dispatch import DispatchBook
from sagemaker_fleet.plan import FleetPlan
from sagemaker_fleet.sim.client import billed_cost
from sagemaker_fleet.spec.names import job_name
from sagemaker_fleet.testing.stack import LocalAirflowStack, StackSettings

pytestmark = [pytest.mark.e2e, pytest.mark.integration, pytest.mark.postgres]
E2E_DIR = Path(__file__).resolve().parent
RUN_TIMEOUT = 900.0
# pytest-timeout's 600 s default would cut a slow run short before wait_for_run can say what is unfinished
pytestmark.append(pytest.mark.timeout(RUN_TIMEOUT + 300))


def _city_of(name: str, spec) -> str:
    for city in spec.cities:
        if name.startswith(f"{spec.fleet}-{city.name}-"):
            return city.name
    raise AssertionError(f"job {name} belongs to no city")


def _wait_for_completed(sim, count: int, timeout: float = 300.0) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        done = sum(1 for j in sim.state()["jobs"] if j["status"] == "Completed")
        if done >= count:
            return
        time.sleep(2)
    raise AssertionError(f"fewer than {count} jobs completed in {timeout:.0f} s")


def _interrupt_running_spot_jobs(sim, limit: int = 2) -> int:
    interrupted = 0
    for job in sim.state()["jobs"]:
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


def _wait_for_hand_off(sim, timeout: float = 120.0) -> str:
    """A job that has just ended with its pool kept for a successor not created yet: a hand-off under way."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        for job in sim.state()["jobs"]:
            if job["status"] == "Completed" and job["warm_pool_status"] == "Available":
                return job["name"]
        time.sleep(0.2)
    raise AssertionError(f"no hand-off seen within {timeout:.0f} s")


def _fail_a_running_on_demand_job(sim) -> str:
    """A predecessor fails mid-training: its successor must still start (cold), its city is retried."""
    for job in sim.state()["jobs"]:
        if not job["spot"] and job["secondary_status"] == "Training" and not job["name"].endswith(("-r2", "-r3")):
            sim.fail(job["name"], "AlgorithmError: failed on purpose by the e2e test")
            return job["name"]
    raise AssertionError("no on-demand job is training")


def _clear_a_completed_city(stack: LocalAirflowStack, sim, spec, run_id: str) -> str:
    """Clear a finished city's task while its group still runs: it must come back done, training nothing."""
    deadline = time.monotonic() + 120
    done: list[str] = []
    while not done and time.monotonic() < deadline:
        states = stack.task_states("e2e_fleet", run_id)
        done = [t for t in states.get("success", []) if t.startswith("train_")]
        time.sleep(0.5)
    assert done, states
    task_id = done[0]
    stack.api("POST", "/api/v2/dags/e2e_fleet/clearTaskInstances", {
        "dry_run": False, "dag_run_id": run_id, "task_ids": [task_id], "only_failed": False,
        "reset_dag_runs": False, "include_downstream": False,
    })
    return task_id


def run_fleet(stack: LocalAirflowStack, sim, spec, kill: str, hang_first: bool = False) -> dict:
    """The run with its faults. LocalExecutor: two triggerers share the run; a job fails mid-training; a finished
    city is cleared; the scheduler and every triggerer are killed during a hand-off. Celery: the worker is frozen
    and killed while it holds the plan task, which the scheduler re-queues; a triggerer is killed mid-run."""
    stack.wait_for_dag("e2e_fleet")
    sim.throttle(0.2)
    faults: dict = {"lost": [], "failed_job": None, "cleared": None}
    if hang_first:
        # The worker's pool processes hang, then the whole worker dies: the task the scheduler queues meanwhile (the
        # plan) is taken off the broker by the worker's main process and never started, so it stays `queued` (its
        # message unacknowledged for the broker's visibility timeout, 24 h) until the scheduler's
        # task_queued_timeout re-queues it. The cities come after the plan, so none starts meanwhile; nothing is lost
        # or duplicated.
        assert stack.freeze_children(kill), "the Celery worker has no pool processes to freeze"
        run_id = stack.trigger("e2e_fleet")
        faults["lost"] = _wait_for_queued(stack, run_id)
        time.sleep(3)  # let the main process take the message off Redis
        stack.kill_component(kill)
        stack.start_component(kill)
    else:
        stack.start_component("triggerer@2")  # two triggerers share the run's cities
        run_id = stack.trigger("e2e_fleet")
    _wait_for_completed(sim, 8)
    if not hang_first:
        faults["failed_job"] = _fail_a_running_on_demand_job(sim)
        faults["cleared"] = _clear_a_completed_city(stack, sim, spec, run_id)
    faults["hand_off"] = _wait_for_hand_off(sim)
    triggerers = [name for name in list(stack.processes) if name.startswith("triggerer")]
    if not hang_first:
        stack.kill_component(kill)  # the scheduler dies too: the run's tasks live in the triggerer
    for name in triggerers:
        stack.kill_component(name)
    _interrupt_running_spot_jobs(sim)
    time.sleep(5)
    if not hang_first:
        stack.start_component(kill)
    for name in triggerers:
        stack.start_component(name)
    _wait_for_completed(sim, 30)
    _interrupt_running_spot_jobs(sim)
    state = stack.wait_for_run("e2e_fleet", run_id, timeout=RUN_TIMEOUT)
    sim.throttle(0.0)
    tis = stack.task_instances("e2e_fleet", run_id)
    failed = [f"{t['task_id']}: {t['state']}" for t in tis if t["state"] != "success"]
    assert state == "success", f"run {state}; not successful: {failed}"
    deferred = [t["task_id"] for t in tis if t["state"] == "deferred"]
    assert not deferred, deferred
    return {"run_id": run_id, "tis": tis, **faults}


def run_plan(stack: LocalAirflowStack, run_id: str) -> FleetPlan:
    """The plan the run dispatched by: its plan task's ``plan`` XCom."""
    entry = stack.api("GET", f"/api/v2/dags/e2e_fleet/dagRuns/{run_id}/taskInstances/plan/xcomEntries/plan")
    value = entry["value"]
    return FleetPlan.from_json(value if isinstance(value, dict) else json.loads(value))


def check_outcome(
    sim, spec, stack: LocalAirflowStack, result: dict, artifacts: Path, order: bool = True, lost_tasks: int = 0
) -> None:
    """Every city completed exactly once; on-demand cities have one job (the city failed on purpose two: the failed
    one and its retry); the report equals the simulator's billing; warm starts at least the plan's (``lost_tasks``:
    tasks the run lost on purpose and waited ~100 s real for — past the keep-alive cap — may each cost one)."""
    run_id = result["run_id"]
    jobs = sim.state()["jobs"]
    (artifacts / "simulator-jobs.json").write_text(json.dumps(jobs, indent=1, default=str))
    by_city: dict[str, list[dict]] = {}
    for job in jobs:
        by_city.setdefault(_city_of(job["name"], spec), []).append(job)
    assert set(by_city) == {c.name for c in spec.cities}
    failed_city = _city_of(result["failed_job"], spec) if result.get("failed_job") else None
    for city in spec.cities:
        submissions = by_city[city.name]
        completed = [j for j in submissions if j["status"] == "Completed"]
        assert len(completed) == 1, f"{city.name}: {[(j['name'], j['status']) for j in submissions]}"
        if city.name == failed_city:
            assert [j["status"] for j in sorted(submissions, key=lambda j: j["created_at"])] == ["Failed", "Completed"]
        elif city.spot is None:
            assert len(submissions) == 1, f"duplicate on-demand jobs for {city.name}"
    names = Counter(j["name"] for j in jobs)
    assert max(names.values()) == 1

    run_key = next(iter(by_city.values()))[0]["name"].rsplit("-", 1)[-1]
    if result.get("cleared"):  # cleared and run again: success, and still the city's one job
        cleared = next(t for t in result["tis"] if t["task_id"] == result["cleared"])
        assert cleared["state"] == "success", cleared
        assert cleared["try_number"] >= 2, cleared
    # the report of the run equals the simulator's billing state to the cent (pools ended first, so nothing
    # accrues between the two reads)
    client = sim.boto3_client("sagemaker")
    for job in jobs:
        if job["warm_pool_status"] == "Available":
            client.update_training_job(TrainingJobName=job["name"], ResourceConfig={"KeepAlivePeriodInSeconds": 0})
    index = RunJobIndex.for_run(spec, run_key)
    book = PriceBook(region=spec.region, table=load_price_table(), spec_prices=spec.prices)
    report = build_cost_report(spec, run_key, describe_run_jobs(client, spec.fleet, index), book)
    state = sim.state()["jobs"]
    # in the whole seconds DescribeTrainingJob gives: float seconds could put the sums either side of a half cent
    expected = billed_cost(state, lambda t: book.price(t).usd_per_hour).total_usd
    assert round(report.totals.cost_usd, 2) == round(expected, 2)
    assert report.totals.billable_seconds == sum(j["billable_seconds"] for j in state)
    xcom = stack.api(
        "GET", f"/api/v2/dags/e2e_fleet/dagRuns/{run_id}/taskInstances/cost_report/xcomEntries/return_value"
    )
    task_totals = xcom["value"]["totals"] if isinstance(xcom["value"], dict) else None
    assert task_totals is not None
    assert task_totals["jobs"] == len(state)
    assert job_name(spec.fleet, spec.cities[0].name, run_key) in names
    plan = run_plan(stack, run_id)
    (artifacts / "plan.json").write_text(plan.dumps())
    on_demand = [j for j in jobs if not j["spot"]]
    warm = sum(1 for j in on_demand if j["start"] == "warm")
    allowance = lost_tasks + (1 if failed_city else 0)  # the failed job's retry may start cold
    assert warm >= plan.summary.warm_starts - allowance, (warm, plan.summary.warm_starts, allowance)
    check_order_and_concurrency(spec, plan, jobs, order=order)


PLANTED_SECRET = "planted-e2e-secret-7f3a9c"  # tests/e2e/fleets/e2e.yaml: amsterdam's environment/hyperparameters


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
        planned = sorted((p for p in plan.jobs if p.group == group.group), key=lambda p: book.turns[p.city].rank)
        firsts = [by_name[p.job_name] for p in planned]
        width = book.widths[group.group]
        assert _peak_running(firsts) <= width, (group.group, _peak_running(firsts), width)
        if order and not group.spot and len(planned) >= 5:
            rho = _rank_correlation([j["created_at"] for j in firsts])
            assert rho >= 0.6, f"{group.group}: jobs created far from the planned order (rank correlation {rho:.2f})"


def _stack(tmp_path, sim, spec, executor: str, db: str, broker: str | None = None) -> LocalAirflowStack:
    return LocalAirflowStack(
        StackSettings(
            home=tmp_path / "airflow",
            dags_folder=E2E_DIR / "dags",
            endpoint_url=sim.url,
            executor=executor,
            sql_alchemy_conn=db,
            celery_broker_url=broker,
            parallelism=16,
            task_queued_timeout=90.0,
        )
    )


def test_local_executor_on_postgres(tmp_path, e2e_sim, e2e_spec, postgres_url) -> None:
    e2e_sim.reset(moto=False)
    with _stack(tmp_path, e2e_sim, e2e_spec, "LocalExecutor", postgres_url) as stack:
        result = run_fleet(stack, e2e_sim, e2e_spec, kill="scheduler")
        check_outcome(e2e_sim, e2e_spec, stack, result, tmp_path)
        check_no_secret_in_logs(stack)


@pytest.mark.redis
def test_celery_executor_with_redis(tmp_path, e2e_sim, e2e_spec, postgres_url) -> None:
    e2e_sim.reset(moto=False)
    with _stack(tmp_path, e2e_sim, e2e_spec, "CeleryExecutor", postgres_url,
                broker=f"redis://127.0.0.1:6379/{7 + os.getpid() % 8}") as stack:
        result = run_fleet(stack, e2e_sim, e2e_spec, kill="celery-worker", hang_first=True)
        scheduler_log = (stack.log_dir / "scheduler.log").read_text(errors="replace")
        # the tasks lost with the frozen worker came back through the stuck-in-queued path, not by luck
        requeued = scheduler_log.count("Task stuck in queued; will try to requeue")
        assert requeued >= 1, result["lost"]
        check_outcome(e2e_sim, e2e_spec, stack, result, tmp_path, lost_tasks=requeued)
        check_no_secret_in_logs(stack)
