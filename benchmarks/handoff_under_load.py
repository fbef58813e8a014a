"""The hand-off under load, through real Airflow: a wide fleet, every planned hand-off measured, and the run
set beside what ``simulate`` predicts for the same fleet, seed and measured hand-off.

A generated fleet (``--cities``, one warm-pool key, ``--width`` jobs at once = the instance and warm-pool quota,
expected durations 10-30 min, the fleet's ``orchestration_latency_seconds`` left at the AWS-like 120 s) runs
through the simulator at ``--speed`` and a LocalAirflowStack (PostgreSQL; LocalExecutor or CeleryExecutor on
Redis). Printed: the gap from each job's end to the creation of the city it made room for, for every planned
hand-off (P50/P90/P99/max, real and simulated seconds — not only those that reused a pool), warm starts against
the plan, cost and idle-pool share, makespan, Airflow's CPU per city (scheduler loop, task processes,
triggerer), the triggerer's peak memory, and ``simulate``'s prediction with the ratios. Usage::

    python benchmarks/handoff_under_load.py [--cities 96] [--width 24] [--speed 40] [--executor LocalExecutor]
    python benchmarks/handoff_under_load.py --cities 1000 --width 40 --timeout 5400   # the 1,000-city run
    python benchmarks/handoff_under_load.py --refuse-keep-alive-while-running   # AWS refusing tail releases
"""

from __future__ import annotations

import argparse
import json
import os
import random
import statistics
import tempfile
import threading
import time
from pathlib import Path

import yaml

from result_file import add_result_options, started_now, write_result

REPO = Path(__file__).resolve().parent.parent
PG = {"host": "127.0.0.1", "port": 5432, "user": "postgres"}


def fleet_file(folder: Path, cities: int, width: int, seed: int) -> Path:
    rng = random.Random(seed)
    data = {
        "fleet": "load",
        "region": "us-east-1",
        "role_arn": "arn:aws:iam::111122223333:role/FleetTraining",
        "image_uri": "111122223333.dkr.ecr.us-east-1.amazonaws.com/demand:1.4",
        "output_s3_uri": "s3://sagemaker-fleet-load/fleets/load",
        "orchestration_latency_seconds": 120,
        "quotas": {"ml.m5.xlarge": {"instances": width, "warm_pools": width}},
        "defaults": {"instance_type": "ml.m5.xlarge", "max_runtime_seconds": 7200},
        "cities": [
            {
                "name": f"city{i:04d}",
                "train_s3_uri": f"s3://sagemaker-fleet-load/data/city{i:04d}/",
                "expected_seconds": rng.randint(600, 1800),
            }
            for i in range(cities)
        ],
    }
    path = folder / "load.yaml"
    path.write_text(yaml.safe_dump(data, sort_keys=False))
    return path


def database(name: str) -> str:
    import psycopg2

    admin = psycopg2.connect(dbname="postgres", **PG)
    admin.autocommit = True
    with admin.cursor() as cursor:
        cursor.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
        cursor.execute(f'CREATE DATABASE "{name}"')
    admin.close()
    return f"postgresql+psycopg2://{PG['user']}@{PG['host']}:{PG['port']}/{name}"


def rss_kib(stack, component: str) -> int:
    """Resident memory of a component's process tree now (KiB, from ``/proc``)."""
    total = 0
    for pid in [stack.processes[component].pid, *stack.descendants(component)]:
        try:
            for line in Path(f"/proc/{pid}/status").read_text().splitlines():
                if line.startswith("VmRSS:"):
                    total += int(line.split()[1])
        except OSError:
            continue
    return total


class PeakRss:
    """Samples the resident memory of a process tree (the triggerer) every second."""

    def __init__(self, stack, component: str) -> None:
        self.stack, self.component, self.peak_kib = stack, component, 0
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)

    def _run(self) -> None:
        while not self._stop.wait(1.0):
            try:
                total = rss_kib(self.stack, self.component)
            except KeyError:
                continue
            self.peak_kib = max(self.peak_kib, total)

    def __enter__(self) -> PeakRss:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        self._thread.join()


def main() -> None:  # noqa: C901 - a linear script
    parser = argparse.ArgumentParser()
    parser.add_argument("--cities", type=int, default=96)
    parser.add_argument("--width", type=int, default=24)
    parser.add_argument("--speed", type=float, default=40.0)
    parser.add_argument("--poll", type=float, default=2.0, help="the DAG's poll interval, real seconds")
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--executor", default="LocalExecutor", choices=["LocalExecutor", "CeleryExecutor"])
    parser.add_argument("--timeout", type=float, default=1800.0)
    parser.add_argument("--keep", type=Path, help="work in this folder and keep it")
    parser.add_argument("--fleet", type=Path, help="run this fleet YAML instead of a generated one")
    parser.add_argument(
        "--throttle", type=float, default=0.0, help="share of API calls the simulator throttles"
    )
    parser.add_argument(
        "--refuse-keep-alive-while-running",
        action="store_true",
        help="the simulator refuses keep-alive changes of running jobs (ValidationException), as AWS may; "
        "simulate's prediction too",
    )
    add_result_options(parser)
    args = parser.parse_args()
    run_started = started_now()

    from orchestration_latency import percentile, planned_handoffs
    from sagemaker_fleet.dispatch.cadence import Cadence
    from sagemaker_fleet.fleetspec import load_fleet_spec
    from sagemaker_fleet.fleetspec.price_table import load_price_table
    from sagemaker_fleet.jobs.prices import PriceBook
    from sagemaker_fleet.plan import FleetPlan
    from sagemaker_fleet.sim.client import SimClient, billed_cost
    from sagemaker_fleet.sim.server import ServerSettings, SimulatorServer
    from sagemaker_fleet.simulate import SimulateOptions, engine_config, simulate_fleet
    from sagemaker_fleet.testing.stack import LocalAirflowStack, StackSettings

    with tempfile.TemporaryDirectory() as tmp:
        folder = args.keep or Path(tmp)
        dags = folder / "dags"
        dags.mkdir(parents=True, exist_ok=True)
        path = args.fleet.resolve() if args.fleet else fleet_file(dags, args.cities, args.width, args.seed)
        spec = load_fleet_spec(path)
        args.cities = len(spec.cities)
        (dags / "load_dag.py").write_text(
            '"""airflow dag: the load fleet."""\nfrom sagemaker_fleet.dags import DispatchConfig, build_fleet_dag\n'
            f"dag = build_fleet_dag({str(path)!r}, dag_id='load', "
            f"dispatch=DispatchConfig(poll_interval={args.poll!r}, capacity_retry_seconds=3.0))\n"
        )
        config = engine_config(
            spec,
            SimulateOptions(
                seed=args.seed, refuse_keep_alive_while_running=args.refuse_keep_alive_while_running
            ),
        )
        book = PriceBook(region=spec.region, table=load_price_table(), spec_prices=spec.prices)
        broker = (
            f"redis://127.0.0.1:6379/{9 + os.getpid() % 6}" if args.executor == "CeleryExecutor" else None
        )
        with SimulatorServer(ServerSettings(speed=args.speed, config=config)) as server:
            sim = SimClient(server.url)
            sim.boto3_client("s3").create_bucket(
                Bucket=spec.output_s3_uri.removeprefix("s3://").split("/")[0]
            )
            sim.throttle(args.throttle)
            settings = StackSettings(
                home=folder / "airflow",
                dags_folder=dags,
                endpoint_url=server.url,
                executor=args.executor,
                sql_alchemy_conn=database(f"sf_load_{os.getpid()}"),
                celery_broker_url=broker,
                parallelism=16,
                extra_env={"AIRFLOW__TRIGGERER__CAPACITY": str(max(1000, args.cities + 10))},
            )
            with LocalAirflowStack(settings) as stack:
                stack.wait_for_dag("load", timeout=300)
                cpu_before = stack.cpu_seconds()
                started = time.monotonic()
                with PeakRss(stack, "triggerer") as rss:
                    run_id = stack.trigger("load")
                    state = stack.wait_for_run("load", run_id, timeout=args.timeout)
                wall = time.monotonic() - started
                cpu_after = stack.cpu_seconds()
                entry = stack.api(
                    "GET", f"/api/v2/dags/load/dagRuns/{run_id}/taskInstances/plan/xcomEntries/plan"
                )
                value = entry["value"]
                plan = value if isinstance(value, dict) else json.loads(value)
            jobs = sim.state()["jobs"]
            sim_calls = sim.calls()
        (folder / "simulator-jobs.json").write_text(json.dumps(jobs, default=str))
        (folder / "plan.json").write_text(json.dumps(plan))
        gaps = [gap for _, gap in planned_handoffs(jobs, plan)]
        real = [gap / args.speed for gap in gaps]
        fleet_plan = FleetPlan.from_json(plan)
        cost, retained = billed_cost(jobs, lambda t: book.price(t).usd_per_hour)
        created = [j["created_at"] for j in jobs]
        ended = [j["ended_at"] for j in jobs if j["ended_at"]]
        makespan = max(ended) - min(created)
        warm = sum(1 for j in jobs if j["start"] == "warm")
        cpu = {k: cpu_after.get(k, 0.0) - cpu_before.get(k, 0.0) for k in cpu_after}
        tasks = (
            cpu.get("scheduler:children", 0.0)
            + cpu.get("celery-worker", 0.0)
            + cpu.get("celery-worker:children", 0.0)
        )
        triggerer = cpu.get("triggerer", 0.0) + cpu.get("triggerer:children", 0.0)
        loop = cpu.get("scheduler", 0.0)
        processor = cpu.get("dag-processor", 0.0) + cpu.get("dag-processor:children", 0.0)

        # simulate's prediction: the same fleet, seed and run key; the hand-off as measured (its median less the
        # half sweep the poll interval adds on average), and the triggerer's cadence (the DAG's poll interval and
        # capacity back-off, every other interval its default) in simulated seconds
        run_key = next(iter(fleet_plan.jobs)).job_name.rsplit("-", 1)[-1]
        poll_sim = args.poll * args.speed
        handoff = max(0.0, statistics.median(gaps) - poll_sim / 2) if gaps else 0.0
        predicted = simulate_fleet(
            spec,
            SimulateOptions(
                seed=args.seed,
                run_key=run_key,
                cadence=Cadence(poll_interval=args.poll, capacity_retry_seconds=3.0).scaled(args.speed),
                handoff_seconds=handoff,
                throttle_share=args.throttle,
                refuse_keep_alive_while_running=args.refuse_keep_alive_while_running,
            ),
        )
        p = predicted.to_json()

        print(
            f"\n{args.cities} cities, width {args.width}, speed {args.speed:g}×, {args.executor}, "
            f"poll {args.poll:g} s real: run {state} in {wall:.0f} s"
        )
        print(f"planned hand-offs measured: {len(gaps)} (every one, pool reused or not)")
        print("            P50      P90      P99      max")
        print("real s  " + "".join(f"{percentile(real, q):9.1f}" for q in (0.5, 0.9, 0.99, 1.0)))
        print("sim s   " + "".join(f"{percentile(gaps, q):9.0f}" for q in (0.5, 0.9, 0.99, 1.0)))
        print(f"warm starts {warm} (plan {fleet_plan.summary.warm_starts}), cold {len(jobs) - warm}")
        refused = sim_calls["errors"].get("UpdateTrainingJob:ValidationException", 0)
        print(
            f"keep-alive changes refused {refused} (the simulator "
            f"{'refuses' if args.refuse_keep_alive_while_running else 'accepts'} them while a job runs)"
        )
        print(f"cost ${cost:,.2f}, idle pools ${retained:,.2f} ({100 * retained / cost:.1f} %)")
        print(
            f"Airflow CPU per city: task processes {1000 * tasks / args.cities:.0f} ms, triggerer "
            f"{1000 * triggerer / args.cities:.0f} ms, scheduler loop {1000 * loop / args.cities:.0f} ms, "
            f"total {1000 * (tasks + triggerer + loop) / args.cities:.0f} ms (dag-processor, apart: "
            f"{1000 * processor / args.cities:.0f} ms)"
        )
        print(f"triggerer peak RSS {rss.peak_kib / 1024:.0f} MiB")
        print(
            f"{'':24}{'DAG':>12}{'simulate':>12}{'DAG/sim':>10}   (simulate with hand-off {handoff:.0f} sim s)"
        )
        for label, dag_value, sim_value in (
            ("makespan (sim s)", makespan, p["makespan_seconds"]),
            ("cost USD", cost, p["cost_usd"]),
            ("warm starts", warm, p["warm_starts"]),
            ("idle pool s", sum(j["retained_seconds"] for j in jobs), p["retained_billable_seconds"]),
        ):
            ratio = f"{dag_value / sim_value:.3f}" if sim_value else "—"
            print(f"{label:24}{dag_value:>12,.1f}{sim_value:>12,.1f}{ratio:>10}")
    per_city = 1000 / args.cities
    write_result(
        "handoff_under_load",
        {
            "cities": args.cities,
            "width": args.width,
            "speed": args.speed,
            "poll_s": args.poll,
            "executor": args.executor,
            "throttle": args.throttle,
            "fleet": str(args.fleet) if args.fleet else None,
            "state": state,
            "wall_s": round(wall, 1),
            "handoffs": len(gaps),
            "handoff_real_s": {
                f"p{round(100 * q)}": round(percentile(real, q), 2) for q in (0.5, 0.9, 0.99, 1.0)
            },
            "handoff_sim_s": {
                f"p{round(100 * q)}": round(percentile(gaps, q), 1) for q in (0.5, 0.9, 0.99, 1.0)
            },
            "warm": warm,
            "warm_plan": fleet_plan.summary.warm_starts,
            "cold": len(jobs) - warm,
            "keep_alive_refused": refused,
            "cost_usd": round(cost, 4),
            "idle_pool_usd": round(retained, 4),
            "idle_share": round(retained / cost, 5) if cost else None,
            "cpu_ms_per_city": {
                "task processes": round(tasks * per_city, 1),
                "triggerer": round(triggerer * per_city, 1),
                "scheduler loop": round(loop * per_city, 1),
                "dag-processor": round(processor * per_city, 1),
            },
            "cpu_ms_per_city_total": round((tasks + triggerer + loop) * per_city, 1),
            "triggerer_peak_mib": round(rss.peak_kib / 1024),
            "makespan_sim_s": makespan,
            "simulate": {
                k: p[k] for k in ("makespan_seconds", "cost_usd", "warm_starts", "retained_billable_seconds")
            },
            "simulate_handoff_sim_s": handoff,
        },
        run_started,
        directory=args.results_dir,
    )


if __name__ == "__main__":
    main()
