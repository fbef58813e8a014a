"""The 60-city fleet through real Airflow against the simulator: LocalExecutor on Postgres, and Celery on Redis.

Each run has two warm-pool keys and spot cities, 20 % of API calls throttled, spot interruptions injected, and a
worker (LocalExecutor: the scheduler that hosts it; Celery: the worker, frozen first so that a queued task is lost
with it) and the triggerer killed mid-run. Then:
every city completed exactly once, no duplicate jobs, warm starts at least as planned, per group never more jobs
at once than the DAG's concurrency and jobs created in about the planned order, and the cost report's totals equal
the simulator's billing state.
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
from sagemaker_fleet.dags.factory import instance_pool_name, parse_time_groups
from sagemaker_fleet.operators.plan import group_signature
from sagemaker_fleet.plan import plan_fleet
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
        time.sleep(1)
    raise AssertionError(f"no task instance was queued within {timeout:.0f} s of freezing the worker")


def run_fleet(stack: LocalAirflowStack, sim, spec, kill: str, hang_first: bool = False) -> dict:
    stack.wait_for_dag("e2e_fleet")
    sim.throttle(0.2)
    run_id = stack.trigger("e2e_fleet")
    _wait_for_completed(sim, 8)
    lost: list[str] = []
    if hang_first:
        # The worker's pool processes hang, then the whole worker dies: a task the scheduler queues meanwhile is
        # taken off the broker by the worker's main process and never started, so it stays `queued` (its message
        # unacknowledged for the broker's visibility timeout, 24 h) until the scheduler's task_queued_timeout
        # re-queues it. This is what a worker crash hits when it lands between taking a message and starting it.
        assert stack.freeze_children(kill), "the Celery worker has no pool processes to freeze"
        lost = _wait_for_queued(stack, run_id)
        time.sleep(3)  # let the main process take the message off Redis
    stack.kill_component(kill)  # a worker dies mid-run: its tasks' jobs keep running in SageMaker
    stack.kill_component("triggerer")
    _interrupt_running_spot_jobs(sim)
    time.sleep(5)
    stack.start_component(kill)
    stack.start_component("triggerer")
    _wait_for_completed(sim, 30)
    _interrupt_running_spot_jobs(sim)
    state = stack.wait_for_run("e2e_fleet", run_id, timeout=RUN_TIMEOUT)
    sim.throttle(0.0)
    tis = stack.task_instances("e2e_fleet", run_id)
    failed = [f"{t['task_id']}[{t.get('rendered_map_index')}]: {t['state']}" for t in tis if t["state"] != "success"]
    assert state == "success", f"run {state}; not successful: {failed}"
    return {"run_id": run_id, "tis": tis, "lost": lost}


def check_outcome(
    sim, spec, stack: LocalAirflowStack, run_id: str, artifacts: Path, order: bool = True, lost_tasks: int = 0
) -> None:
    """``lost_tasks``: tasks the run lost on purpose (re-queued by the scheduler after task_queued_timeout). Each
    waited ~100 s real — 4,000 simulated seconds, past the 3,600 s keep-alive cap — so each may start cold where
    the plan had a warm start."""
    jobs = sim.state()["jobs"]
    (artifacts / "simulator-jobs.json").write_text(json.dumps(jobs, indent=1, default=str))
    by_city: dict[str, list[dict]] = {}
    for job in jobs:
        by_city.setdefault(_city_of(job["name"], spec), []).append(job)
    assert set(by_city) == {c.name for c in spec.cities}
    for city in spec.cities:
        submissions = by_city[city.name]
        completed = [j for j in submissions if j["status"] == "Completed"]
        assert len(completed) == 1, f"{city.name}: {[(j['name'], j['status']) for j in submissions]}"
        if city.spot is None:
            assert len(submissions) == 1, f"duplicate on-demand jobs for {city.name}"
    names = Counter(j["name"] for j in jobs)
    assert max(names.values()) == 1

    run_key = next(iter(by_city.values()))[0]["name"].rsplit("-", 1)[-1]
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
    plan = plan_fleet(spec, run_key)
    on_demand = [j for j in jobs if not j["spot"]]
    warm = sum(1 for j in on_demand if j["start"] == "warm")
    assert warm >= plan.summary.warm_starts - lost_tasks, (warm, plan.summary.warm_starts, lost_tasks)
    check_order_and_concurrency(spec, plan, jobs, order=order)


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
    """Per group, never more jobs at once than the DAG's concurrency for it (the plan's peak lanes), and jobs
    created in about the planned order. Order is a rank correlation, not equality: Airflow fills a free slot with
    the next map index, and a killed scheduler's tasks come back a little late; spot groups wait for capacity and
    are interrupted, so only on-demand groups of 5+ jobs are held to it (a reversed or random order gives ≤ 0).
    ``order=False`` where tasks are lost on purpose (the Celery run): three of a 12-job group re-queued ~100 s late
    reorder it legitimately (rank correlation 0.52 seen)."""
    widths = parse_time_groups(spec)
    by_name = {j["name"]: j for j in jobs}
    for group in plan.groups:
        planned = sorted((p for p in plan.jobs if p.group == group.group), key=lambda p: p.planned_start_seconds)
        prefixes = tuple(p.job_name for p in planned)
        submissions = [j for j in jobs if j["name"].startswith(prefixes)]
        concurrency = widths[group_signature(group)].lanes
        assert _peak_running(submissions) <= concurrency, (group.group, _peak_running(submissions), concurrency)
        if order and not group.spot and len(planned) >= 5:
            rho = _rank_correlation([by_name[p.job_name]["created_at"] for p in planned])
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
            pools={instance_pool_name(t): q.instances for t, q in spec.quotas.items()},
            task_queued_timeout=90.0,
        )
    )


def test_local_executor_on_postgres(tmp_path, e2e_sim, e2e_spec, postgres_url) -> None:
    e2e_sim.reset(moto=False)
    with _stack(tmp_path, e2e_sim, e2e_spec, "LocalExecutor", postgres_url) as stack:
        result = run_fleet(stack, e2e_sim, e2e_spec, kill="scheduler")
        check_outcome(e2e_sim, e2e_spec, stack, result["run_id"], tmp_path)


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
        check_outcome(e2e_sim, e2e_spec, stack, result["run_id"], tmp_path, order=False, lost_tasks=requeued)
