"""``airflow dags test`` of a ten-city fleet on each Airflow minor, side by side in one run: how long Airflow's own
gap between two cities is (a job's end → the next city's CreateTrainingJob), how many on-demand cities start warm,
what the pools nobody took cost, and the run's wall time.

``dags test`` runs a run's task instances one after the other in one process: a city's job ends, its task ends,
Airflow starts the next task instance (on 3.2 two task starts of ~2.5 s each), and only then does the next city
create its job. Every second of that gap is a warm pool idling, ``speed`` times over against the simulator. The gap
decides the keep-alive the fleet gives each job in that mode (``sagemaker_fleet.compat.DAGS_TEST_GAP_SECONDS``).

Each minor gets a fresh Airflow home (SQLite, migrated), the fleet file and a DAG file written the way
docs/installation.md tells a user to write theirs (no poll interval, no retry delay set), and a fresh simulator
in this process provisioned with what the fleet names. Usage::

    python benchmarks/dags_test_minors.py --airflow .venv-af3.0/bin/airflow --airflow .venv-af3.2/bin/airflow \\
        --airflow .venv/bin/airflow [--speed 40] [--fleet tests/e2e/first_run/bakery.yaml]

Each ``--airflow`` must have the provider installed (the suites' virtualenvs, or a wheel's: scripts/package_check.sh).
"""

from __future__ import annotations

import argparse
import math
import os
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from result_file import add_result_options, options, started_now, write_result

REPO = Path(__file__).resolve().parents[1]
DAG_ID = "bench_dags_test"
DAG_FILE = f'''"""Airflow DAG: the fleet that benchmarks/dags_test_minors.py runs with airflow dags test."""

from pathlib import Path

from sagemaker_fleet.dags import build_fleet_dag

dag = build_fleet_dag(Path(__file__).parent / "fleets" / "fleet.yaml", dag_id="{DAG_ID}", schedule="@daily")
'''


def percentile(values: Sequence[float], share: float) -> float:
    ordered = sorted(values)
    return ordered[max(0, math.ceil(share * len(ordered)) - 1)] if ordered else float("nan")


def gaps(jobs: Sequence[Mapping[str, Any]]) -> list[float]:
    """Simulated seconds from each job's end to the next job's creation, in creation order (``dags test`` runs
    one city at a time: every city after the first is a hand-off, whether its pool was still there or not)."""
    ordered = sorted(jobs, key=lambda job: float(job["created_at"]))
    return [
        float(later["created_at"]) - float(earlier["ended_at"])
        for earlier, later in zip(ordered, ordered[1:], strict=False)
        if earlier.get("ended_at") is not None
    ]


def run_minor(airflow: str, fleet: Path, speed: float, date: str) -> dict[str, Any]:
    from sagemaker_fleet.fleetspec import load_fleet_spec
    from sagemaker_fleet.sim import SimConfig, SpotMarketConfig
    from sagemaker_fleet.sim.client import SimClient
    from sagemaker_fleet.sim.server import ServerSettings, SimulatorServer
    from sagemaker_fleet.sim.workload import WorkModel
    from sagemaker_fleet.testing.component_env import aws_connection_json

    spec = load_fleet_spec(fleet)
    config = SimConfig(
        seed=5,
        work=WorkModel.from_fleets([spec]),
        quotas=dict(spec.quotas),
        spot=SpotMarketConfig(interruptions_per_hour=0.0, capacity_wait_mean_seconds=0.0),
    )
    with tempfile.TemporaryDirectory(prefix="dags-test-minors-") as tmp:
        home, dags = Path(tmp) / "home", Path(tmp) / "dags"
        (dags / "fleets").mkdir(parents=True)
        shutil.copy(fleet, dags / "fleets" / "fleet.yaml")
        (dags / "bench_dags_test.py").write_text(DAG_FILE)
        with SimulatorServer(ServerSettings(speed=speed, config=config, provision=(spec,))) as server:
            env = {
                **{k: v for k, v in os.environ.items() if not k.startswith("AIRFLOW")},
                "AIRFLOW_HOME": str(home),
                "AIRFLOW__CORE__DAGS_FOLDER": str(dags),
                "AIRFLOW__CORE__LOAD_EXAMPLES": "False",
                "AIRFLOW__SAGEMAKER_FLEET__REPORT_DIR": str(home / "reports"),
                "AIRFLOW_CONN_AWS_DEFAULT": aws_connection_json(server.url, region=spec.region),
                "PYTHONUNBUFFERED": "1",
            }
            for command in (["db", "migrate"], ["dags", "reserialize"]):
                done = subprocess.run([airflow, *command], env=env, capture_output=True, text=True)
                if done.returncode != 0:
                    raise SystemExit(f"{airflow} {' '.join(command)} failed:\n{done.stderr[-3000:]}")
            version = subprocess.run([airflow, "version"], env=env, capture_output=True, text=True)
            started = time.monotonic()
            run = subprocess.run(
                [airflow, "dags", "test", DAG_ID, date], env=env, capture_output=True, text=True
            )
            wall = time.monotonic() - started
            state = SimClient(server.url).state()
    jobs = [job for job in state["jobs"] if job["name"].startswith(f"{spec.fleet}-")]
    on_demand = [job for job in jobs if not job["spot"]]
    between = gaps(jobs)
    return {
        "airflow": version.stdout.strip().splitlines()[-1] if version.stdout.strip() else "?",
        "exit_code": run.returncode,
        "wall_seconds": round(wall, 1),
        "jobs": len(jobs),
        "completed": sum(1 for job in jobs if job["status"] == "Completed"),
        "on_demand": len(on_demand),
        "warm": sum(1 for job in on_demand if job["start"] == "warm"),
        "gap_real_seconds": {
            "p50": round(percentile(between, 0.5) / speed, 2),
            "max": round(max(between, default=float("nan")) / speed, 2),
        },
        "gaps_simulated": [round(g) for g in between],
        "retained_seconds": round(sum(float(job.get("retained_seconds") or 0) for job in jobs)),
        "output_tail": run.stdout[-2000:] if run.returncode else "",
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument(
        "--airflow", action="append", required=True, help="an airflow executable (repeatable)"
    )
    parser.add_argument("--speed", type=float, default=40.0)
    parser.add_argument("--fleet", type=Path, default=REPO / "tests/e2e/first_run/bakery.yaml")
    parser.add_argument("--date", default="2026-12-04")
    add_result_options(parser)
    args = parser.parse_args(argv)
    started = started_now()
    results = {airflow: run_minor(airflow, args.fleet, args.speed, args.date) for airflow in args.airflow}
    print(f"airflow dags test of {args.fleet.name} at speed {args.speed:g}")
    print("airflow   exit  wall s  jobs  warm of on-demand  gap P50/max (real s)  idle pool s (simulated)")
    for result in results.values():
        gap = result["gap_real_seconds"]
        print(
            f"{result['airflow']:<9} {result['exit_code']:>4}  {result['wall_seconds']:>6.0f}  {result['jobs']:>4}  "
            f"{result['warm']:>3} of {result['on_demand']:<5} {gap['p50']:>6.2f} / {gap['max']:<6.2f}        "
            f"{result['retained_seconds']}"
        )
        if result["output_tail"]:
            print(result["output_tail"], file=sys.stderr)
    payload = {"options": options(args), "runs": results}
    write_result("dags_test_minors", payload, started, directory=args.results_dir)
    return 0


if __name__ == "__main__":
    sys.exit(main())
