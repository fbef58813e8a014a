"""Airflow's cost per city at 200, 500 and 1,000 cities (and more), through real Airflow, with Airflow's defaults.

For each size a generated fleet (one warm-pool key, ``--width`` jobs at once = the instance and warm-pool quota,
expected durations 10-30 min) runs through the simulator at ``--speed`` and a fresh LocalAirflowStack (PostgreSQL;
LocalExecutor, or CeleryExecutor on Redis) with every ``[triggerer]`` setting at Airflow's default (``capacity``
raised only above 1,000 cities per triggerer, as ``validate`` advises). Printed per size: the triggerers' peak
RSS (every triggerer process together, supervisors included) and per city, Airflow's CPU per city by component
(scheduler, its task processes, triggerer, dag-processor, api-server, Celery workers), the hand-off of every
planned hand-off (P50/P99, real seconds: each job whose successor it made room for, pool reused or not), the time
from the run's start until the last city's task instance deferred, warm starts against the plan, and duplicate or
lost cities. With ``--register`` the fleet has ``register:`` (docs/guides/model-registry.md): its jobs report a
final metric and one more task, ``register_models``, registers every city's model through the champion gate
after the cities; printed besides: the task's wall time and the decisions' counts. Usage::

    python benchmarks/scale.py                                  # 200, 500 and 1,000 cities
    python benchmarks/scale.py --sizes 2000 --executor CeleryExecutor --triggerers 2
    python benchmarks/scale.py --sizes 1000 --register          # the same, each city's model registered
    python benchmarks/scale.py --sizes 1000 --register-both     # without, then with register:, and the ratios
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import os
import tempfile
import threading
import time
from collections import Counter
from pathlib import Path
from typing import Any

import yaml

from handoff_under_load import PeakRss, database, fleet_file, rss_kib
from orchestration_latency import percentile, planned_handoffs
from result_file import add_result_options, started_now, write_result

DEFERRED_OR_LATER = ("deferred", "success", "failed", "skipped", "up_for_retry")
#: What ``--register`` adds to the generated fleet: a metric each job reports, and the gate.
REGISTER = {
    "job": {
        "AlgorithmSpecification": {
            "MetricDefinitions": [{"Name": "validation:rmse", "Regex": "val_rmse=([0-9.]+)"}]
        }
    },
    "register": {
        "group": "{fleet}-{city}",
        "metric": "validation:rmse",
        "direction": "minimize",
        "margin": 0.02,
        "bound": 0.5,
        "inference": {
            "Containers": [{"Image": "111122223333.dkr.ecr.us-east-1.amazonaws.com/demand-serve:2.1"}]
        },
    },
}


def with_register(path: Path) -> None:
    """The fleet file at ``path`` with :data:`REGISTER` added."""
    data = yaml.safe_load(path.read_text())
    data.update(REGISTER)
    path.write_text(yaml.safe_dump(data, sort_keys=False))


def registration(stack: Any, run_id: str) -> dict[str, Any]:
    """The register task's wall time (its task instance's start to end) and the decisions' counts."""
    (ti,) = [t for t in stack.task_instances("scale", run_id) if t["task_id"] == "register_models"]
    began, ended = (
        dt.datetime.fromisoformat(ti[k].replace("Z", "+00:00")) for k in ("start_date", "end_date")
    )
    entry = stack.api(
        "GET", f"/api/v2/dags/scale/dagRuns/{run_id}/taskInstances/register_models/xcomEntries/return_value"
    )
    value = entry["value"] if isinstance(entry["value"], dict) else json.loads(entry["value"])
    return {
        "state": ti["state"],
        "seconds": round((ended - began).total_seconds(), 1),
        "counts": value["counts"],
    }


class DeferralClock:
    """When the last city's task instance reached ``deferred`` (or ended), read from the metadata database every
    second (a read of the database costs Airflow nothing, unlike its REST API)."""

    def __init__(self, dsn: str, cities: int) -> None:
        self.dsn, self.cities = dsn, cities
        self.started = time.monotonic()
        self.all_deferred: float | None = None
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)

    def _run(self) -> None:
        import psycopg2

        connection = psycopg2.connect(self.dsn.replace("postgresql+psycopg2", "postgresql"))
        connection.autocommit = True
        with connection.cursor() as cursor:
            while not self._stop.wait(1.0) and self.all_deferred is None:
                cursor.execute(
                    "SELECT count(*) FROM task_instance WHERE task_id LIKE 'train%%' AND map_index >= 0 "
                    "AND (state = ANY(%s) OR next_method IS NOT NULL)",
                    (list(DEFERRED_OR_LATER),),
                )
                (count,) = cursor.fetchone()
                if count >= self.cities:
                    self.all_deferred = time.monotonic() - self.started
        connection.close()

    def __enter__(self) -> DeferralClock:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        self._thread.join()


class TriggererKiller:
    """Kills the triggerer (its whole process group, as a crashed machine would) ``after`` seconds from now and
    starts it again 5 s later; does nothing when ``after`` is None."""

    def __init__(self, stack: Any, after: float | None) -> None:
        self.stack = stack
        self.killed_at: float | None = None
        self._started = time.monotonic()
        self._thread = threading.Thread(target=self._run, args=(after,), daemon=True)
        if after is not None:
            self._thread.start()

    def _run(self, after: float) -> None:
        time.sleep(after)
        self.stack.kill_component("triggerer")
        self.killed_at = round(time.monotonic() - self._started, 1)
        print(f"killed the triggerer at {self.killed_at} s", flush=True)
        time.sleep(5)
        self.stack.start_component("triggerer")

    def join(self) -> None:
        if self._thread.is_alive():
            self._thread.join()


def run_size(cities: int, args: argparse.Namespace, folder: Path, register: bool) -> dict[str, Any]:
    from sagemaker_fleet.fleetspec import load_fleet_spec
    from sagemaker_fleet.fleetspec.triggerer import TRIGGERER_CAPACITY_DEFAULT
    from sagemaker_fleet.plan import FleetPlan
    from sagemaker_fleet.sim.client import SimClient
    from sagemaker_fleet.sim.server import ServerSettings, SimulatorServer
    from sagemaker_fleet.simulate import SimulateOptions, engine_config
    from sagemaker_fleet.testing.stack import LocalAirflowStack, StackSettings

    dags = folder / "dags"
    dags.mkdir(parents=True, exist_ok=True)
    path = fleet_file(dags, cities, args.width, args.seed)
    if register:
        with_register(path)
    spec = load_fleet_spec(path)
    (dags / "scale_dag.py").write_text(
        '"""airflow dag: the scale fleet."""\nfrom sagemaker_fleet.dags import DispatchConfig, build_fleet_dag\n'
        f"dag = build_fleet_dag({str(path)!r}, dag_id='scale', "
        f"dispatch=DispatchConfig(poll_interval={args.poll!r}, capacity_retry_seconds=3.0))\n"
    )
    config = engine_config(spec, SimulateOptions(seed=args.seed))
    broker = f"redis://127.0.0.1:6379/{9 + os.getpid() % 6}" if args.executor == "CeleryExecutor" else None
    dsn = database(f"sf_scale_{os.getpid()}_{cities}")
    extra_env: dict[str, str] = {}
    per_triggerer = -(-cities // args.triggerers)
    if per_triggerer > TRIGGERER_CAPACITY_DEFAULT:  # what `validate` tells such a fleet to do
        extra_env["AIRFLOW__TRIGGERER__CAPACITY"] = str(per_triggerer + 10)
    with SimulatorServer(ServerSettings(speed=args.speed, config=config)) as server:
        sim = SimClient(server.url)
        sim.boto3_client("s3").create_bucket(Bucket=spec.output_s3_uri.removeprefix("s3://").split("/")[0])
        settings = StackSettings(
            home=folder / "airflow",
            dags_folder=dags,
            endpoint_url=server.url,
            executor=args.executor,
            sql_alchemy_conn=dsn,
            celery_broker_url=broker,
            parallelism=args.parallelism,
            extra_env=extra_env,
        )
        with LocalAirflowStack(settings) as stack:
            for extra in range(2, args.triggerers + 1):
                stack.start_component(f"triggerer@{extra}")
            stack.wait_for_dag("scale", timeout=300)
            time.sleep(5)
            idle_kib = sum(rss_kib(stack, name) for name in stack.processes if name.startswith("triggerer"))
            cpu_before = stack.cpu_seconds()
            started = time.monotonic()
            triggerers = [name for name in stack.processes if name.startswith("triggerer")]
            rss = [PeakRss(stack, name) for name in triggerers]
            for meter in rss:
                meter.__enter__()
            try:
                with DeferralClock(dsn, cities) as clock:
                    run_id = stack.trigger("scale")
                    killer = TriggererKiller(stack, args.kill_triggerer_after)
                    state = stack.wait_for_run("scale", run_id, timeout=args.timeout)
                    killer.join()
            finally:
                for meter in rss:
                    meter.__exit__()
            wall = time.monotonic() - started
            cpu_after = stack.cpu_seconds()
            entry = stack.api(
                "GET", f"/api/v2/dags/scale/dagRuns/{run_id}/taskInstances/plan/xcomEntries/plan"
            )
            value = entry["value"]
            plan = value if isinstance(value, dict) else json.loads(value)
            registered = registration(stack, run_id) if register else None
        jobs = sim.state()["jobs"]
    (folder / f"simulator-jobs-{cities}.json").write_text(json.dumps(jobs, default=str))
    gaps = [gap / args.speed for _, gap in planned_handoffs(jobs, plan)]
    fleet_plan = FleetPlan.from_json(plan)
    prefix = f"{spec.fleet}-"
    per_city: Counter[str] = Counter()
    completed: set[str] = set()
    for job in jobs:
        city = next((c.name for c in spec.cities if job["name"].startswith(f"{prefix}{c.name}-")), None)
        if city is None:
            continue
        per_city[city] += 1
        if job["status"] == "Completed":
            completed.add(city)
    cpu = {k: cpu_after.get(k, 0.0) - cpu_before.get(k, 0.0) for k in cpu_after}

    def part(*names: str) -> float:
        return sum(cpu.get(n, 0.0) + cpu.get(f"{n}:children", 0.0) for n in names) * 1000 / cities

    by_component = {
        "scheduler loop": cpu.get("scheduler", 0.0) * 1000 / cities,
        "task processes": (cpu.get("scheduler:children", 0.0)) * 1000 / cities + part("celery-worker"),
        "triggerer": part(*triggerers),
        "dag-processor": part("dag-processor"),
        "api-server": part("api-server"),
    }
    return {
        "cities": cities,
        "state": state,
        "wall_s": round(wall),
        "triggerer_peak_mib": [round(m.peak_kib / 1024) for m in rss],
        "triggerer_idle_mib": round(idle_kib / 1024),
        "triggerer_mib_per_city": round(sum(m.peak_kib for m in rss) / 1024 / cities, 2),
        "triggerer_added_mib_per_city": round((sum(m.peak_kib for m in rss) - idle_kib) / 1024 / cities, 3),
        "cpu_ms_per_city": {k: round(v, 1) for k, v in by_component.items()},
        "cpu_ms_per_city_total": round(sum(by_component.values()), 1),
        "handoffs": len(gaps),
        "handoff_p50_s": round(percentile(gaps, 0.5), 2) if gaps else None,
        "handoff_p99_s": round(percentile(gaps, 0.99), 2) if gaps else None,
        "all_deferred_s": round(clock.all_deferred, 1) if clock.all_deferred is not None else None,
        "warm": sum(1 for j in jobs if j["start"] == "warm"),
        "warm_plan": fleet_plan.summary.warm_starts,
        "triggerer_killed_at_s": killer.killed_at,
        "duplicates": sum(1 for c in spec.cities if c.spot is None and per_city[c.name] > 1),
        "lost": sum(1 for c in spec.cities if c.name not in completed),
        **({"register": registered} if registered is not None else {}),
    }


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--sizes", default="200,500,1000", help="fleet sizes, comma-separated")
    parser.add_argument("--width", type=int, default=40)
    parser.add_argument("--speed", type=float, default=40.0)
    parser.add_argument("--poll", type=float, default=2.0, help="the DAG's poll interval, real seconds")
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--executor", default="LocalExecutor", choices=["LocalExecutor", "CeleryExecutor"])
    parser.add_argument("--triggerers", type=int, default=1)
    parser.add_argument(
        "--parallelism", type=int, default=32, help="Airflow's [core] parallelism (default 32)"
    )
    parser.add_argument("--timeout", type=float, default=3600.0)
    parser.add_argument(
        "--kill-triggerer-after",
        type=float,
        metavar="SECONDS",
        help="kill -9 the (first) triggerer this long after the run is triggered and start it again 5 s "
        "later: nothing may be lost or trained twice (CPU figures then miss the killed process)",
    )
    parser.add_argument(
        "--register",
        action="store_true",
        help="give the fleet register: (each city's model through the champion gate into the registry)",
    )
    parser.add_argument(
        "--register-both",
        action="store_true",
        help="run each size without register: and then with it, and print the ratios (with / without)",
    )
    parser.add_argument("--keep", type=Path, help="work in this folder and keep it")
    parser.add_argument("--json", type=Path, help="also write the figures here")
    add_result_options(parser)
    args = parser.parse_args()
    started = started_now()
    rows = []
    variants = (False, True) if args.register_both else (args.register,)
    for size in (int(s) for s in args.sizes.split(",")):
        for register in variants:
            with tempfile.TemporaryDirectory() as tmp:
                name = f"{size}-register" if register else str(size)
                folder = (args.keep / name) if args.keep else Path(tmp)
                row = run_size(size, args, folder, register)
            rows.append(row)
            print(json.dumps(row), flush=True)
    print(
        f"\n{args.executor}, {args.triggerers} triggerer(s), width {args.width}, speed {args.speed:g}×, "
        f"poll {args.poll:g} s, [core] parallelism {args.parallelism}, Airflow's [triggerer] defaults"
        + (
            ", without and with register:"
            if args.register_both
            else ", register: on"
            if args.register
            else ""
        )
    )
    header = (
        "cities",
        "run",
        "trig. MiB (idle)",
        "MiB/city",
        "added MiB/city",
        "CPU ms/city",
        "sched",
        "tasks",
        "trig.",
        "dag-proc",
        "api",
        "P50 s",
        "P99 s",
        "deferred s",
        "warm/plan",
        "dup",
        "lost",
        *(("register s", "approved/rejected") if args.register or args.register_both else ()),
    )
    print(" | ".join(header))
    for r in rows:
        c = r["cpu_ms_per_city"]
        print(
            " | ".join(
                str(x)
                for x in (
                    r["cities"],
                    r["state"],
                    "+".join(map(str, r["triggerer_peak_mib"])) + f" ({r['triggerer_idle_mib']})",
                    r["triggerer_mib_per_city"],
                    r["triggerer_added_mib_per_city"],
                    r["cpu_ms_per_city_total"],
                    c["scheduler loop"],
                    c["task processes"],
                    c["triggerer"],
                    c["dag-processor"],
                    c["api-server"],
                    r["handoff_p50_s"],
                    r["handoff_p99_s"],
                    r["all_deferred_s"],
                    f"{r['warm']}/{r['warm_plan']}",
                    r["duplicates"],
                    r["lost"],
                    *(
                        (
                            r["register"]["seconds"],
                            f"{r['register']['counts']['approved']}/{r['register']['counts']['rejected']}",
                        )
                        if "register" in r
                        else ("-", "-")
                        if args.register_both
                        else ()
                    ),
                )
            )
        )
    ratios = register_ratios(rows) if args.register_both else []
    for line in ratios:
        print(line)
    if args.json:
        args.json.write_text(json.dumps(rows, indent=2))
    write_result("scale", {"rows": rows, "register_ratios": ratios}, started, directory=args.results_dir)


def register_ratios(rows: list[dict[str, Any]]) -> list[str]:
    """Per size, what ``register:`` costs Airflow: each figure with it divided by the same figure without it,
    both from this run (the same machine, minutes apart)."""
    lines = ["", "with register: / without, per size:"]
    by_size: dict[int, dict[bool, dict[str, Any]]] = {}
    for r in rows:
        by_size.setdefault(r["cities"], {})["register" in r] = r
    for size, pair in by_size.items():
        off, on = pair.get(False), pair.get(True)
        if off is None or on is None:
            continue
        figures = {
            "CPU ms/city": lambda r: r["cpu_ms_per_city_total"],
            "scheduler loop": lambda r: r["cpu_ms_per_city"]["scheduler loop"],
            "task processes": lambda r: r["cpu_ms_per_city"]["task processes"],
            "triggerer CPU": lambda r: r["cpu_ms_per_city"]["triggerer"],
            "triggerer peak MiB": lambda r: sum(r["triggerer_peak_mib"]),
            "triggerer MiB/city": lambda r: r["triggerer_mib_per_city"],
            "hand-off P50": lambda r: r["handoff_p50_s"],
            "hand-off P99": lambda r: r["handoff_p99_s"],
            "run wall": lambda r: r["wall_s"],
        }
        parts = []
        for name, get in figures.items():
            a, b = get(off), get(on)
            parts.append(f"{name} {b}/{a} = {b / a:.2f}" if a and b is not None else f"{name} {b}/{a}")
        lines.append(f"  {size} cities: " + "; ".join(parts))
    return lines


if __name__ == "__main__":
    main()
