"""Faults forced on fleet runs through real Airflow, and the figures that say what each run came out with.

The faults (``SpotStorm``, ``EndpointOutage``, a city that always fails, throttling) are injected by the tests in
``test_fleet_e2e.py``; :func:`reliability` counts, from the simulator's jobs and Airflow's task instances and tries,
what docs/contributing/fault-tests.md lists: duplicate jobs, lost cities, stuck tasks, failed tries that no failed job
explains, warm starts against the plan, and the cost of submissions that produced no model. Each run's figures are
written to ``build/reliability/<name>.json`` (next to the repository) so a CI run leaves them behind.
"""

from __future__ import annotations

import datetime as dt
import json
import threading
import time
from collections import Counter
from collections.abc import Callable
from pathlib import Path
from typing import Any

from sagemaker_fleet.fleetspec.names import run_key_for
from sagemaker_fleet.fleetspec.price_table import load_price_table
from sagemaker_fleet.jobs.prices import PriceBook
from sagemaker_fleet.sim.client import billed_cost
from sagemaker_fleet.testing.stack import ti_label

RESULTS_DIR = Path(__file__).resolve().parents[2] / "build" / "reliability"
ENDED = frozenset({"Completed", "Failed", "Stopped"})
#: Task-instance states that mean a task is still waiting or working: none may be left when a run has ended.
UNFINISHED = frozenset(
    {"deferred", "running", "queued", "scheduled", "up_for_retry", "up_for_reschedule", "restarting"}
)


def city_of(name: str, spec: Any) -> str | None:
    for city in spec.cities:
        if name.startswith(f"{spec.fleet}-{city.name}-"):
            return city.name
    return None


def fleet_jobs(sim: Any, spec: Any, run_key: str | None = None) -> list[dict]:
    """The simulator's jobs of ``spec``'s fleet (of one run when ``run_key`` is given), oldest first."""
    jobs = [j for j in sim.state()["jobs"] if city_of(j["name"], spec) is not None]
    if run_key is not None:
        jobs = [j for j in jobs if f"-{run_key}" in j["name"]]
    return sorted(jobs, key=lambda j: j["created_at"])


def by_city(jobs: list[dict], spec: Any) -> dict[str, list[dict]]:
    out: dict[str, list[dict]] = {}
    for job in sorted(jobs, key=lambda j: j["created_at"]):
        out.setdefault(city_of(job["name"], spec) or "?", []).append(job)
    return out


def latest(sim: Any, spec: Any, city: str) -> dict | None:
    jobs = [j for j in fleet_jobs(sim, spec) if city_of(j["name"], spec) == city]
    return jobs[-1] if jobs else None


def duplicates(submissions: list[dict]) -> list[str]:
    """Submissions of one city that train it twice: created while an earlier one was still running, or after one
    had completed. A resubmission after a failed, stopped or MaxWait-ended job is not one."""
    extra = []
    for i, job in enumerate(submissions):
        for earlier in submissions[:i]:
            running = earlier["ended_at"] is None or earlier["ended_at"] > job["created_at"]
            if running or earlier["status"] == "Completed":
                extra.append(job["name"])
                break
    return extra


def run_key_of(stack: Any, dag_id: str, run_id: str) -> str:
    run = stack.api("GET", f"/api/v2/dags/{dag_id}/dagRuns/{run_id}")
    logical = run.get("logical_date")
    when = dt.datetime.fromisoformat(logical.replace("Z", "+00:00")) if logical else None
    return run_key_for(when, run_id, run.get("run_type"), dag_id=dag_id)


def failed_tries(stack: Any, dag_id: str, run_id: str, task: dict) -> int:
    """How many of a task's tries ended failed (the ones Airflow retried, and a final failure)."""
    if task["try_number"] <= 1 and task["state"] != "failed":
        return 0
    index = task.get("map_index", -1)
    path = task["task_id"] if index in (-1, None) else f"{task['task_id']}/{index}"
    tries = stack.api("GET", f"/api/v2/dags/{dag_id}/dagRuns/{run_id}/taskInstances/{path}/tries")
    return sum(1 for t in tries["task_instances"] if t["state"] in ("failed", "up_for_retry"))


def reliability(
    sim: Any,
    spec: Any,
    stack: Any,
    dag_id: str,
    run_id: str,
    *,
    plan_warm: int,
    failing_cities: frozenset[str] = frozenset(),
    injected: dict[str, Any] | None = None,
) -> dict[str, Any]:
    """The figures of one run: what was injected, and duplicates, lost cities, stuck tasks, failed tries no failed
    job explains, warm starts (and the plan's), and the cost of submissions that produced no model."""
    run_key = run_key_of(stack, dag_id, run_id)
    jobs = fleet_jobs(sim, spec, run_key)
    cities = by_city(jobs, spec)
    dupes = [name for subs in cities.values() for name in duplicates(subs)]
    lost = sorted(
        c.name
        for c in spec.cities
        if c.name not in failing_cities
        and not any(j["status"] == "Completed" for j in cities.get(c.name, []))
    )
    tis = stack.task_instances(dag_id, run_id)
    stuck = sorted(ti_label(t) for t in tis if t["state"] in UNFINISHED)
    failed_tasks = sorted(ti_label(t) for t in tis if t["state"] not in ("success", "skipped"))
    unexplained: dict[str, int] = {}
    for task in tis:
        city = task.get("rendered_map_index") if task["task_id"].startswith("train") else None
        # a failed or stopped job fails its try (Airflow retries it); a spot job that ran out of MaxWait does not:
        # the same try resubmits it. The plan and report tasks have no job to explain a failure.
        explained = sum(
            1
            for j in cities.get(city or "", [])
            if j["status"] == "Failed"
            or (j["status"] == "Stopped" and j["secondary_status"] != "MaxWaitTimeExceeded")
        )
        if task["task_id"] == "outcome" and failing_cities:
            explained = 1  # the outcome fails the run, once, because a city did not train
        extra = failed_tries(stack, dag_id, run_id, task) - explained
        if extra > 0:
            unexplained[ti_label(task)] = extra
    book = PriceBook(region=spec.region, table=load_price_table(), spec_prices=spec.prices)
    price = lambda t: book.price(t).usd_per_hour  # noqa: E731
    total = billed_cost(jobs, price)
    wasted = billed_cost([j for j in jobs if j["status"] != "Completed"], price)
    on_demand = [j for j in jobs if not j["spot"]]
    outage = (injected or {}).get("outage")
    figures = {
        "dag_id": dag_id,
        "run_id": run_id,
        "run_key": run_key,
        "run_state": stack.run_state(dag_id, run_id),
        "injected": injected or {},
        "cities": len(spec.cities),
        "jobs": len(jobs),
        "submissions": dict(
            Counter(
                j["status"] if j["status"] != "Stopped" else f"Stopped/{j['secondary_status']}" for j in jobs
            )
        ),
        "duplicate_jobs": dupes,
        "lost_cities": lost,
        "failing_cities": sorted(failing_cities),
        "failed_tasks": failed_tasks,
        "stuck_tasks": stuck,
        "failed_tries_without_failed_job": unexplained,
        "warm_starts": sum(1 for j in on_demand if j["start"] == "warm"),
        "planned_warm_starts": plan_warm,
        "cost_usd": round(total.total_usd, 4),
        "idle_pool_usd": round(total.retained_usd, 4),
        "no_model_usd": round(wasted.total_usd, 4),
        "idle_pool_usd_during_outage": None
        if outage is None
        else round(idle_usd_between(jobs, outage["sim_began"], outage["sim_ended"], price), 4),
        "interruptions": sum(j["interruptions"] for j in jobs),
        "api_calls": sum(sim.calls()["calls"].values()),
        "api_throttled": sum(sim.calls()["throttled"].values()),
    }
    return figures


def idle_usd_between(jobs: list[dict], begin: float, end: float, usd_per_hour: Any) -> float:
    """What the jobs' kept warm pools cost between two simulated instants (a pool is idle from its job's end for
    its retained seconds)."""
    usd = 0.0
    for job in jobs:
        if job["ended_at"] is None or not job["retained_seconds"]:
            continue
        idle_from, idle_to = job["ended_at"], job["ended_at"] + job["retained_seconds"]
        overlap = max(0.0, min(end, idle_to) - max(begin, idle_from))
        usd += overlap * usd_per_hour(job["instance_type"]) * job["instance_count"] / 3600
    return usd


def write_figures(name: str, figures: dict[str, Any], jobs: list[dict] | None = None) -> Path:
    """``build/reliability/{name}.json``, and the simulator's view of the run's jobs beside it."""
    RESULTS_DIR.mkdir(parents=True, exist_ok=True)
    path = RESULTS_DIR / f"{name}.json"
    path.write_text(json.dumps(figures, indent=1, default=str) + "\n")
    if jobs is not None:
        (RESULTS_DIR / f"{name}-jobs.json").write_text(json.dumps(jobs, indent=1, default=str) + "\n")
    return path


class Background(threading.Thread):
    """A fault that runs beside the test's other steps; its exception, if any, is raised by :meth:`result`."""

    def __init__(self, name: str) -> None:
        super().__init__(name=name, daemon=True)
        self.error: BaseException | None = None
        self.outcome: dict[str, Any] = {}

    def run(self) -> None:
        try:
            self.outcome = self.inject()
        except BaseException as exc:  # noqa: BLE001 - handed to the test thread
            self.error = exc

    def inject(self) -> dict[str, Any]:
        raise NotImplementedError

    def result(self, timeout: float) -> dict[str, Any]:
        self.join(timeout)
        if self.is_alive():
            raise AssertionError(f"{self.name} did not finish in {timeout:.0f} s")
        if self.error is not None:
            raise self.error
        return self.outcome


class SpotStorm(Background):
    """Spot cities interrupted twice each while they train. The second interruption of the ``past_max_wait``
    cities comes with their instance type's spot capacity gone for as long as SageMaker takes to try to restart
    them (a few simulated seconds; capacity comes back as soon as the restart has found none): they wait in
    Starting until MaxWaitTimeInSeconds runs out, and the fleet must resubmit them — on spot from the same
    checkpoint prefix while spot attempts remain, else on demand. The storm ends once every city has had its two
    interruptions; what the fleet does next is checked after the run."""

    def __init__(self, sim: Any, spec: Any, cities: list[str], past_max_wait: list[str], timeout: float):
        super().__init__("spot-storm")
        self.sim, self.spec, self.cities, self.past_max_wait = sim, spec, cities, past_max_wait
        self.timeout = timeout
        self.interrupted: Counter[str] = Counter()
        self.starved: list[str] = []  # jobs restarted while their spot capacity was gone
        self.run_ended = threading.Event()

    def after_the_run(self, timeout: float) -> dict[str, Any]:
        """The storm's outcome once the fleet's run has ended: a storm still waiting for a city to train then
        never will, and fails."""
        self.run_ended.set()
        return self.result(timeout)

    def inject(self) -> dict[str, Any]:
        # The storm watches for as long as the run may take: its cities start when their lanes reach them, which
        # on a slow machine came more than five minutes after the storm began (the plan re-queued first).
        deadline = time.monotonic() + self.timeout
        while time.monotonic() < deadline and not self.run_ended.is_set():
            for city in self.cities:
                job = latest(self.sim, self.spec, city)
                if (
                    job is None
                    or not job["spot"]
                    or job["secondary_status"] != "Training"
                    or self.interrupted[city] >= 2
                ):
                    continue
                if self.interrupted[city] == 1 and city in self.past_max_wait:
                    self._starve(job, deadline)
                else:
                    self.sim.interrupt(job["name"])
                self.interrupted[city] += 1
            if all(self.interrupted[c] >= 2 for c in self.cities):
                return {"interrupted": dict(self.interrupted), "starved": self.starved}
            time.sleep(0.25)
        raise AssertionError(
            f"spot storm unfinished ({'the run ended' if self.run_ended.is_set() else 'timed out'}): "
            f"interrupted {dict(self.interrupted)}, starved {self.starved}"
        )

    def _starve(self, job: dict, deadline: float) -> None:
        """Interrupt ``job`` with no spot capacity for its type until SageMaker's restart of it has found none."""
        instance_type = job["instance_type"]
        self.sim.spot(no_capacity_types=[instance_type])
        try:
            self.sim.interrupt(job["name"])
            while (
                time.monotonic() < deadline
            ):  # the restart comes after a short pause; it begins a new attempt
                if self.sim.job(job["name"])["attempts"] > job["attempts"]:
                    self.starved.append(job["name"])
                    return
                time.sleep(0.05)
            raise AssertionError(f"{job['name']} was never restarted after its interruption")
        finally:
            self.sim.spot(no_capacity_types=[])


class EndpointOutage(Background):
    """The simulated endpoint refuses every connection for ``seconds`` of real time, then comes back with its
    state, once ``min_completed`` jobs of the fleet have completed (so the outage falls mid-run)."""

    def __init__(self, server: Any, sim: Any, spec: Any, seconds: float, min_completed: int) -> None:
        super().__init__("endpoint-outage")
        self.server, self.sim, self.spec = server, sim, spec
        self.seconds, self.min_completed = seconds, min_completed

    def inject(self) -> dict[str, Any]:
        deadline = time.monotonic() + 600
        while (
            sum(1 for j in fleet_jobs(self.sim, self.spec) if j["status"] == "Completed") < self.min_completed
        ):
            if time.monotonic() > deadline:
                raise AssertionError(f"fewer than {self.min_completed} jobs completed before the outage")
            time.sleep(1)
        began = self.sim.now()
        in_progress = sum(1 for j in fleet_jobs(self.sim, self.spec) if j["status"] == "InProgress")
        self.server.outage(self.seconds).join()
        return {
            "seconds": self.seconds,
            "sim_began": began,
            "sim_ended": self.sim.now(),
            "jobs_in_progress_at_start": in_progress,
        }


#: The simulator's speed while :func:`hold_until_another_run` holds a run (it must stay above 0): a real minute of
#: holding is 60 simulated milliseconds.
HELD_SPEED = 0.001


def hold_until_another_run(
    sim: Any,
    spec: Any,
    held_key: str,
    instance_type: str,
    quota: int,
    seen_waiting: Callable[[], bool],
    timeout: float = 300.0,
    waiting_timeout: float = 120.0,
) -> dict[str, Any]:
    """Stop the simulated clock while run ``held_key`` of ``spec``'s fleet still trains and the room it left on
    the ``instance_type`` quota can go only to another run of the fleet, until that run has created a job and
    ``seen_waiting()`` (one of its cities said it waits for room): the two runs then train at once, and the other
    run's cities wait on the quota long enough to say so in their logs (a city says why it waits after 30 s real),
    however late the other run comes — its plan and city tasks wait for the Celery worker the test freezes, kills
    and floods with the e2e fleet's 60 cities.

    The clock stops (:data:`HELD_SPEED`) once every city of the held run has its job (none of its cities is left
    to take the room), one of them still trains, and the fleet's running jobs and idle pools of the type hold
    fewer than ``quota`` instances (one of its lanes has ended); while it stands still that job cannot end, so the
    other run's job is created before it ends, and the other run's cities that find no room wait. Time runs again
    once both were seen, or ``waiting_timeout`` s after the other run's first job (a run that does not count the
    held run's jobs, refused instead of waiting, never says it waits); the caller's checks judge what happened.
    A job of the other run seen before any hold ends it at once. Returns what the hold saw."""
    speed = sim.state()["clock"]["speed"]
    cities = {c.name for c in spec.cities}
    held: dict[str, Any] = {"held_real_seconds": 0.0, "held_at_sim": None, "seen_waiting": False}
    since: float | None = None
    other_since: float | None = None

    def let_time_run() -> None:
        nonlocal since
        if since is not None:
            sim.set_speed(speed)
            held["held_real_seconds"], since = round(time.monotonic() - since, 1), None

    deadline = time.monotonic() + timeout
    try:
        while time.monotonic() < deadline:
            jobs = fleet_jobs(sim, spec)
            own = [j for j in jobs if f"-{held_key}" in j["name"]]
            training = [j["name"] for j in own if j["status"] == "InProgress"]
            others = [j["name"] for j in jobs if f"-{held_key}" not in j["name"]]
            if others and other_since is None:  # the held run's jobs training when the other's first was seen
                other_since = time.monotonic()
                held.update(first_job_of_the_other_run=others[0], training=training)
            if others and (since is None or time.monotonic() - other_since > waiting_timeout):
                return held
            if others and seen_waiting():
                held["seen_waiting"] = True
                return held
            if since is None and training and {city_of(j["name"], spec) for j in own} == cities:
                if _instances_held(jobs, instance_type) < quota:
                    sim.set_speed(HELD_SPEED)
                    since, held["held_at_sim"] = time.monotonic(), sim.now()
            elif since is not None and not training:  # it ended between the look and the stop
                let_time_run()
            time.sleep(0.5 if others else 0.2)
        raise AssertionError(f"no job of another run of {spec.fleet} within {timeout:.0f} s: {held}")
    finally:
        let_time_run()


def _instances_held(jobs: list[dict], instance_type: str) -> int:
    """Instances of ``instance_type`` that ``jobs`` hold now: running, or kept as an idle warm pool."""
    return sum(
        j["instance_count"]
        for j in jobs
        if j["instance_type"] == instance_type
        and (j["status"] not in ENDED or j["warm_pool_status"] == "Available")
    )


def table(results: Path = RESULTS_DIR) -> str:
    """The figures of the last e2e runs (``build/reliability/*.json``) as the fault tests' table (docs/contributing/fault-tests.md)."""
    rows = [
        "| run | state | cities / jobs | duplicates | lost cities | failed tasks | stuck | failed tries "
        "without a failed job | warm (plan) | cost | idle pools | no model | throttled calls |",
        "|---|---|---|---|---|---|---|---|---|---|---|---|---|",
    ]
    for path in sorted(results.glob("*.json")):
        if path.stem.endswith("-jobs"):
            continue
        f = json.loads(path.read_text())
        if "run_state" not in f:  # another scenario's figures (the shared account's): not a run's row
            continue
        rows.append(
            f"| {path.stem} | {f['run_state']} | {f['cities']} / {f['jobs']} | {len(f['duplicate_jobs'])} "
            f"| {len(f['lost_cities'])} | {', '.join(f['failed_tasks']) or 0} | {len(f['stuck_tasks'])} "
            f"| {sum(f['failed_tries_without_failed_job'].values())} | {f['warm_starts']} ({f['planned_warm_starts']}) "
            f"| ${f['cost_usd']:.2f} | ${f['idle_pool_usd']:.2f} | ${f['no_model_usd']:.2f} "
            f"| {f['api_throttled']} of {f['api_calls']} |"
        )
    return "\n".join(rows)


if __name__ == "__main__":
    print(table())
