"""Several fleets on one account, through one real Airflow against one simulator: the account's quotas are shared.

Each scenario runs generated fleets (one warm-pool key: the same role, image and instance type, so their pools
match each other's jobs) at the same time in one LocalAirflowStack against one simulator whose account has
``--instances`` ml.m5.xlarge training instances and ``--warm-pools`` warm pools. Every fleet's spec declares the
account's whole quota (what a team writes) and nothing of ``sharing`` (every run posts on the account's board, share
0, priority 0), but in the ``-off`` scenarios (``sharing: false``: the runs count each other's jobs in their listings
only). Scenarios:

- ``one``: the cities of the pair as ONE fleet (the reference: what the account can do; every scenario splits the
  same 2 × ``--cities`` expected durations between its fleets);
- ``pair``: two fleets of ``--cities`` each, triggered together;
- ``small-big``: a small fleet (``--small``) beside a big one (2 × ``--cities`` − ``--small``), triggered together;
- ``small-big-priority``: the same, the small fleet of higher priority (each fleet's makespan is printed too);
- ``pair-off``, ``small-big-off``: ``pair`` and ``small-big`` with ``sharing: false``;
- ``manual``: a fleet's manual DAG (its trigger form, all cities) run beside its scheduled DAG (the same fleet
  file: the same cities, two run keys); its reference is ``one-manual``, those cities twice as one fleet.

Printed per scenario: ResourceLimitExceeded answers (CreateTrainingJob refused for the quota), makespan (simulated
seconds, first creation to last end, all fleets), its ratio to ``one``, the idle-pool share of the cost, warm starts,
pools taken across fleets, lost and duplicated cities, the hand-off of every pool reused (simulated seconds from a
job's end to its successor's CreateTrainingJob: the pool idles meanwhile; P50 and P90), and the SageMaker calls per
sweep. The hand-off is the sweep's real latency times ``--speed``: at the default ``--poll 2`` and 40×, a sweep every
80 simulated seconds, eight times the product's sweep on AWS while cities wait (10 s); ``--poll 0.25`` at 40× is
that 10 s in the simulator's time. Usage::

    cd benchmarks && ../.venv/bin/python shared_account.py [--scenarios one,pair,small-big] [--cities 40]
"""

from __future__ import annotations

import argparse
import json
import os
import random
import shutil
import tempfile
import time
from collections import Counter
from dataclasses import replace
from pathlib import Path
from typing import Any

import yaml

from handoff_under_load import database
from orchestration_latency import percentile
from result_file import add_result_options, started_now, write_result

ROLE = "arn:aws:iam::111122223333:role/FleetTraining"
IMAGE = "111122223333.dkr.ecr.us-east-1.amazonaws.com/demand:1.4"
#: Scenarios whose fleets declare ``sharing`` (the small fleet first by priority; ``false``: no board), by fleet.
SHARING: dict[str, dict[str, Any]] = {
    "small-big-priority": {"small": {"priority": 10}, "big": {"priority": 0}},
    "pair-off": {"fa": False, "fb": False},
    "small-big-off": {"small": False, "big": False},
}


def durations(args: argparse.Namespace) -> list[int]:
    """Expected seconds of the 2 × ``--cities`` cities, the same in every scenario (each splits them otherwise)."""
    rng = random.Random(args.seed)
    return [rng.randint(600, 1800) for _ in range(2 * args.cities)]


def fleet_file(folder: Path, name: str, seconds: list[int], args: argparse.Namespace) -> Path:
    data = {
        "fleet": name,
        "region": "us-east-1",
        "role_arn": ROLE,
        "image_uri": IMAGE,
        "output_s3_uri": f"s3://sagemaker-fleet-shared/fleets/{name}",
        "orchestration_latency_seconds": 120,
        "quotas": {"ml.m5.xlarge": {"instances": args.instances, "warm_pools": args.warm_pools}},
        "defaults": {"instance_type": "ml.m5.xlarge", "max_runtime_seconds": 7200},
        "cities": [
            {
                "name": f"{name}{i:03d}",
                "train_s3_uri": f"s3://sagemaker-fleet-shared/data/{name}{i:03d}/",
                "expected_seconds": expected,
            }
            for i, expected in enumerate(seconds)
        ],
    }
    path = folder / f"{name}.yaml"
    path.write_text(yaml.safe_dump(data, sort_keys=False))
    return path


def fleets_of(scenario: str, args: argparse.Namespace) -> list[tuple[str, int]]:
    total = 2 * args.cities
    return {
        "one": [("one", total)],
        "pair": [("fa", args.cities), ("fb", args.cities)],
        "small-big": [("small", args.small), ("big", total - args.small)],
        "small-big-priority": [("small", args.small), ("big", total - args.small)],
        "pair-off": [("fa", args.cities), ("fb", args.cities)],
        "small-big-off": [("small", args.small), ("big", total - args.small)],
        "manual": [("daily", args.cities)],
        "one-manual": [
            ("twice", total)
        ],  # the manual scenario's reference: its fleet's cities twice, one fleet
    }[scenario]


def run_scenario(scenario: str, args: argparse.Namespace) -> dict[str, Any]:  # noqa: PLR0915 - a linear script
    from sagemaker_fleet.fleetspec import load_fleet_spec
    from sagemaker_fleet.fleetspec.price_table import load_price_table
    from sagemaker_fleet.jobs.prices import PriceBook
    from sagemaker_fleet.sim.client import SimClient, billed_cost
    from sagemaker_fleet.sim.server import ServerSettings, SimulatorServer
    from sagemaker_fleet.sim.workload import WorkModel
    from sagemaker_fleet.simulate import SimulateOptions, engine_config
    from sagemaker_fleet.testing.stack import LocalAirflowStack, StackSettings

    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        dags = folder / "dags"
        dags.mkdir()
        fleets = fleets_of(scenario, args)
        specs = {}
        dag_ids: list[str] = []
        every, taken = durations(args), 0
        if scenario == "one-manual":
            every = every[: args.cities] * 2
        for name, cities in fleets:
            path = fleet_file(dags, name, every[taken : taken + cities], args)
            if scenario in SHARING:  # the fleets' places in the account (the board on the simulator's S3)
                data = yaml.safe_load(path.read_text())
                data["sharing"] = SHARING[scenario][name]
                path.write_text(yaml.safe_dump(data, sort_keys=False))
            taken += cities
            specs[name] = load_fleet_spec(path)
            # the manual scenario: the fleet's manual DAG (its trigger form) beside its scheduled one
            for dag_id, manual in [(name, False)] + (
                [(f"{name}_manual", True)] if scenario == "manual" else []
            ):
                (dags / f"{dag_id}_dag.py").write_text(
                    f'"""airflow dag: fleet {name}."""\nfrom sagemaker_fleet.dags import DispatchConfig, build_fleet_dag\n'
                    f"dag = build_fleet_dag({str(path)!r}, dag_id={dag_id!r}, manual={manual!r}, "
                    f"dispatch=DispatchConfig(poll_interval={args.poll!r}, capacity_retry_seconds=3.0))\n"
                )
                dag_ids.append(dag_id)
        first = specs[fleets[0][0]]
        # one account: the quotas every spec declares; every fleet's cities' expected work (not only the first's)
        config = replace(
            engine_config(first, SimulateOptions(seed=args.seed)), work=WorkModel.from_fleets(specs.values())
        )
        prices = PriceBook(region=first.region, table=load_price_table(), spec_prices=first.prices)
        with SimulatorServer(ServerSettings(speed=args.speed, config=config)) as server:
            sim = SimClient(server.url)
            sim.boto3_client("s3").create_bucket(Bucket="sagemaker-fleet-shared")
            settings = StackSettings(
                home=folder / "airflow",
                dags_folder=dags,
                endpoint_url=server.url,
                executor="LocalExecutor",
                sql_alchemy_conn=database(f"sf_shared_{os.getpid()}"),
                parallelism=32,
            )
            with LocalAirflowStack(settings) as stack:
                runs: list[tuple[str, str]] = []
                for dag_id in dag_ids:
                    stack.wait_for_dag(dag_id, timeout=300)
                started = time.monotonic()
                for dag_id in dag_ids:  # a manual DAG's run: its own run id, so its own run key
                    date = None if dag_id.endswith("_manual") else "2026-11-29T00:00:00+00:00"
                    runs.append((dag_id, stack.trigger(dag_id, logical_date=date)))
                states = [stack.wait_for_run(dag, run, timeout=args.timeout) for dag, run in runs]
                wall = time.monotonic() - started
            jobs = sim.state()["jobs"]
            calls = sim.calls()
        if args.logs is not None:  # the tasks' and components' logs: why a city waited, what a sweep did
            for part in ("logs", "component-logs"):
                if (folder / "airflow" / part).is_dir():
                    shutil.copytree(
                        folder / "airflow" / part, args.logs / scenario / part, dirs_exist_ok=True
                    )
    if args.jobs_json is not None:  # every job as the simulator recorded it, to see where idle time went
        args.jobs_json.mkdir(parents=True, exist_ok=True)
        (args.jobs_json / f"{scenario}.json").write_text(json.dumps(jobs, indent=1, default=str))
    return summarize(scenario, specs, runs, states, jobs, calls, wall, prices, billed_cost)


def summarize(scenario, specs, runs, states, jobs, calls, wall, prices, billed_cost) -> dict[str, Any]:
    cost, retained = billed_cost(jobs, lambda t: prices.price(t).usd_per_hour)
    by_city: Counter[tuple[str, str]] = Counter()
    fleet_of: dict[str, str] = {}
    expected = Counter[tuple[str, str]]()
    for name, spec in specs.items():
        for city in spec.cities:
            expected[(name, city.name)] = sum(1 for dag, _ in runs if dag.removesuffix("_manual") == name)
    for job in jobs:
        fleet, city = _owner(job["name"], specs)
        fleet_of[job["name"]] = fleet
        if job["status"] == "Completed":
            by_city[(fleet, city)] += 1
    lost = sum(max(0, n - by_city[key]) for key, n in expected.items())
    duplicated = sum(max(0, by_city[key] - n) for key, n in expected.items())
    # every pool reused: (its job, the job that took it over)
    by_name = {j["name"]: j for j in jobs}
    reused = [
        (job, by_name[successor])
        for job in jobs
        if (successor := (job.get("warm_pool") or {}).get("ReusedByJob")) in by_name
    ]
    across = sum(1 for job, successor in reused if fleet_of[successor["name"]] != fleet_of[job["name"]])
    # simulated seconds from a job's end to its successor's CreateTrainingJob: the pool idles meanwhile
    reuses = [successor["created_at"] - job["ended_at"] for job, successor in reused if job["ended_at"]]
    created = [j["created_at"] for j in jobs]
    ended = [j["ended_at"] for j in jobs if j["ended_at"]]
    errors = calls.get("errors", {})
    return {
        "scenario": scenario,
        "fleets": {name: len(spec.cities) for name, spec in specs.items()},
        "runs": len(runs),
        "states": states,
        "wall_s": round(wall),
        "resource_limit_exceeded": errors.get("CreateTrainingJob:ResourceLimitExceeded", 0),
        "makespan_s": round(max(ended) - min(created)) if ended else None,
        "idle_share": round(retained / cost, 4) if cost else None,
        "cost_usd": round(cost, 2),
        "warm": sum(1 for j in jobs if j["start"] == "warm"),
        "jobs": len(jobs),
        "pools_across_fleets": across,
        "handoff_p50_s": round(percentile(reuses, 0.5)) if reuses else None,
        "handoff_p90_s": round(percentile(reuses, 0.9)) if reuses else None,
        "makespan_by_fleet_s": {
            name: round(max(j["ended_at"] for j in own) - min(j["created_at"] for j in own))
            for name in specs
            if (own := [j for j in jobs if fleet_of[j["name"]] == name and j["ended_at"]])
        },
        "lost": lost,
        "duplicated": duplicated,
        "calls": calls.get("calls", {}),
    }


def _owner(job_name: str, specs: dict[str, Any]) -> tuple[str, str]:
    for name, spec in specs.items():
        for city in spec.cities:
            if job_name.startswith(f"{name}-{city.name}-"):
                return name, city.name
    return "?", job_name


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--scenarios", default="one,pair,small-big")
    parser.add_argument("--cities", type=int, default=40, help="cities per fleet of the pair")
    parser.add_argument("--small", type=int, default=16)
    parser.add_argument("--instances", type=int, default=12)
    parser.add_argument("--warm-pools", type=int, default=8)
    parser.add_argument("--speed", type=float, default=40.0)
    parser.add_argument(
        "--poll",
        type=float,
        default=2.0,
        help="real seconds between a run's sweeps (the DAGs' poll_interval). The default, 2, is a sweep every 80 "
        "simulated seconds at 40x; 0.25 at 40x is the sweep the product makes on AWS while cities wait (every 10 s) "
        "in the simulator's time",
    )
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--timeout", type=float, default=1800.0)
    parser.add_argument("--json", type=Path)
    parser.add_argument(
        "--jobs-json", type=Path, help="a folder: each scenario's jobs as the simulator recorded them"
    )
    parser.add_argument(
        "--logs", type=Path, help="a folder: each scenario's Airflow logs (tasks and components)"
    )
    add_result_options(parser)
    args = parser.parse_args()
    started = started_now()
    results = []
    for scenario in args.scenarios.split(","):
        result = run_scenario(scenario, args)
        results.append(result)
        print(json.dumps({k: v for k, v in result.items() if k != "calls"}), flush=True)
    references = {r["scenario"]: r["makespan_s"] for r in results if r["scenario"].startswith("one")}
    print(
        "\nscenario | fleets | RLE | makespan (sim s) | vs one | per fleet (sim s) | idle share | warm | across | "
        "lost / dup | hand-off P50 / P90 (sim s) | state"
    )
    for r in results:
        reference = references.get("one-manual" if r["scenario"] == "manual" else "one")
        ratio = f"{r['makespan_s'] / reference:.2f}×" if reference and r["makespan_s"] else "—"
        print(
            f"{r['scenario']} | {r['fleets']} | {r['resource_limit_exceeded']} | {r['makespan_s']:,} | {ratio} | "
            f"{', '.join(f'{k} {v:,}' for k, v in r['makespan_by_fleet_s'].items())} | {100 * (r['idle_share'] or 0):.1f} % | {r['warm']} | {r['pools_across_fleets']} | "
            f"{r['lost']} / {r['duplicated']} | {r['handoff_p50_s']} / {r['handoff_p90_s']} | {','.join(r['states'])}"
        )
    if args.json:
        args.json.write_text(json.dumps(results, indent=2))
    write_result("shared_account", {"scenarios": results}, started, directory=args.results_dir)


if __name__ == "__main__":
    main()
