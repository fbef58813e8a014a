"""`make demo`: the daily 200-city fleet through real Airflow against the embedded simulator, on this machine.

Starts `sagemaker-fleet sim serve` and Airflow (api-server, scheduler, dag-processor, triggerer; LocalExecutor,
SQLite under .demo/), points `aws_default` at the simulator, seeds the cities' training data in simulated S3,
unpauses `city_training_daily` (the scheduler starts its latest daily run), shows progress, prints the cost
summary and the report's path, and leaves the UI running. `make demo-stop` (this script with --stop) ends it.

Clock: the simulator runs --speed times faster than the wall clock, so every real second between a job's end and
its successor's CreateTrainingJob idles a warm pool for --speed simulated seconds. The hand-off happens in the
triggerer, in the poll sweep (every 2 s real here) that sees the job end, so the demo fleet keeps an AWS-like
`orchestration_latency_seconds` of 120 (see dags/fleets/demo.yaml and docs/concepts/groups-lanes-keep-alive.md).
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import signal
import subprocess
import sys
import time
import urllib.parse
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
STATE = REPO / ".demo"
PIDS = STATE / "pids.json"
DAG_ID = "city_training_daily"


#: Seconds each component has to end after SIGTERM before its process group is killed: the scheduler was seen
#: still running a minute after SIGTERM (its LocalExecutor workers' processes ended, not reaped).
STOP_GRACE_SECONDS = 15.0


def _alive(pid: int) -> bool:
    """Whether the component ``pid`` still runs (an ended process nobody reaped yet does not)."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    with contextlib.suppress(OSError):
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0] != "Z"
    return True


def stop() -> int:
    if not PIDS.exists():
        print("no demo is running")
        return 0
    running: dict[str, int] = {}
    for name, pid in json.loads(PIDS.read_text()).items():
        try:
            os.killpg(pid, signal.SIGTERM)
            running[name] = pid
        except ProcessLookupError:
            pass
    deadline = time.monotonic() + STOP_GRACE_SECONDS
    while running and time.monotonic() < deadline:
        for name, pid in list(running.items()):
            if not _alive(pid):
                print(f"stopped {name} ({pid})")
                del running[name]
        time.sleep(0.2)
    for name, pid in running.items():  # still there after the grace: its whole process group goes
        with contextlib.suppress(ProcessLookupError):
            os.killpg(pid, signal.SIGKILL)
        print(f"stopped {name} ({pid}, killed after {STOP_GRACE_SECONDS:.0f} s)")
    PIDS.unlink()
    return 0


def start_simulator(speed: float, port: int, fleet: Path) -> tuple[subprocess.Popen[bytes], str]:
    log = (STATE / "simulator.log").open("wb")
    process = subprocess.Popen(
        [
            str(Path(sys.executable).parent / "sagemaker-fleet"),
            "sim",
            "serve",
            "--port",
            str(port),
            "--speed",
            str(speed),
            "--fleet",
            str(fleet),
            "--no-provision",  # seed_data makes the buckets and the data, with rows a city can train on
            "--seed",
            "7",
        ],
        stdout=subprocess.PIPE,
        stderr=log,
        start_new_session=True,
    )
    assert process.stdout is not None
    url = process.stdout.readline().decode().strip().split()[-1]
    if not url.startswith("http"):
        raise SystemExit(f"the simulator did not start; see {STATE / 'simulator.log'}")
    return process, url


def seed_data(sim_url: str, spec) -> None:
    from sagemaker_fleet.sim.client import SimClient

    s3 = SimClient(sim_url).boto3_client("s3")
    bucket = spec.output_s3_uri.removeprefix("s3://").split("/", 1)[0]
    s3.create_bucket(Bucket=bucket)
    for city in spec.cities:
        data_bucket, _, prefix = city.train_s3_uri.removeprefix("s3://").partition("/")
        if data_bucket != bucket:
            s3.create_bucket(Bucket=data_bucket)
        rows = "\n".join(f"{day},{(hash(city.name) % 97 + day * 3) % 500}" for day in range(1, 91))
        s3.put_object(Bucket=data_bucket, Key=f"{prefix}train.csv", Body=f"day,demand\n{rows}\n".encode())
    print(f"seeded training data for {len(spec.cities)} cities in simulated S3")


def progress(sim_url: str, spec, book) -> tuple[str, bool]:
    from sagemaker_fleet.sim.client import SimClient, billed_cost

    jobs = SimClient(sim_url).state()["jobs"]
    done = sum(1 for j in jobs if j["status"] == "Completed")
    warm = sum(1 for j in jobs if j["start"] == "warm")
    cold = sum(1 for j in jobs if j["start"] == "cold")
    cost = billed_cost(jobs, lambda t: book.price(t).usd_per_hour).total_usd
    total = len(spec.cities)
    filled = int(30 * done / total)
    bar = "#" * filled + "-" * (30 - filled)
    running = sum(1 for j in jobs if j["status"] == "InProgress")
    return (
        f"[{bar}] {done}/{total} cities · {running} running · {warm} warm / {cold} cold · ${cost:,.2f}",
        done >= total,
    )


def main() -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--stop", action="store_true", help="stop a running demo")
    parser.add_argument("--speed", type=float, default=40.0, help="simulated seconds per real second")
    parser.add_argument("--ui-port", type=int, default=8080)
    parser.add_argument("--sim-port", type=int, default=4566)
    parser.add_argument("--timeout", type=float, default=900.0, help="give up waiting for the run after this")
    args = parser.parse_args()
    if args.stop:
        return stop()

    from sagemaker_fleet.fleetspec import load_fleet_spec
    from sagemaker_fleet.fleetspec.price_table import load_price_table
    from sagemaker_fleet.jobs.prices import PriceBook
    from sagemaker_fleet.testing.stack import LocalAirflowStack, StackSettings

    started = time.monotonic()
    STATE.mkdir(exist_ok=True)
    stop()
    fleet = REPO / "dags" / "fleets" / "demo.yaml"
    spec = load_fleet_spec(fleet)
    book = PriceBook(region=spec.region, table=load_price_table(), spec_prices=spec.prices)
    sim, sim_url = start_simulator(args.speed, args.sim_port, fleet)
    pids = {"simulator": sim.pid}
    PIDS.write_text(json.dumps(pids))
    print(f"simulated SageMaker at {sim_url} (speed {args.speed:g}×)")
    seed_data(sim_url, spec)

    home = STATE / "airflow"
    subprocess.run(["rm", "-rf", str(home)], check=True)
    stack = LocalAirflowStack(
        StackSettings(
            home=home,
            dags_folder=REPO / "dags",
            endpoint_url=sim_url,
            api_port=args.ui_port,
            parallelism=24,
            extra_env={
                "AIRFLOW__SAGEMAKER_FLEET__POLL_INTERVAL": "2",
                "AIRFLOW__SAGEMAKER_FLEET__CAPACITY_RETRY_SECONDS": "3",
                "AIRFLOW__SAGEMAKER_FLEET__REPORT_DIR": str(STATE / "reports"),
            },
        )
    )
    print("starting Airflow (api-server, scheduler, dag-processor, triggerer) …")
    try:
        stack.start()
    finally:
        pids.update({name: p.pid for name, p in stack.processes.items()})
        PIDS.write_text(json.dumps(pids))
    stack.wait_for_dag(DAG_ID)
    stack.unpause(DAG_ID)
    print(f"Airflow UI: {stack.url}  (local demo: SimpleAuthManager all-admins, no login needed)")
    print(f"unpaused {DAG_ID}: the scheduler starts its latest daily run")
    print(
        f"each city waits in the triggerer for its turn; the sweep that sees a job end (every 2 s real, "
        f"{2 * args.speed:.0f} simulated s at {args.speed:g}×) starts the next city on its warm pool"
    )
    run_id = None
    deadline = time.monotonic() + args.timeout
    while run_id is None and time.monotonic() < deadline:
        runs = stack.runs(DAG_ID)
        run_id = runs[0]["dag_run_id"] if runs else None
        time.sleep(1)
    if run_id is None:
        raise SystemExit("the scheduler created no run")
    fleet_tab = f"{stack.url}/dags/{DAG_ID}/runs/{urllib.parse.quote(run_id, safe='')}/plugin/sagemaker-fleet"
    print(f"watch it live in the Fleet tab: {fleet_tab}")
    state = "running"
    while time.monotonic() < deadline:
        try:
            line, _ = progress(sim_url, spec, book)
        except (OSError, KeyError, TypeError, ValueError) as exc:  # a progress line is never worth a crash
            line = f"(progress unavailable: {exc})"
        state = stack.run_state(DAG_ID, run_id)
        print(f"\r{line} · run {state}   ", end="", flush=True)
        if state in ("success", "failed"):
            break
        time.sleep(2)
    print()
    result = stack.api(
        "GET", f"/api/v2/dags/{DAG_ID}/dagRuns/{run_id}/taskInstances/cost_report/xcomEntries/return_value"
    )
    value = result.get("value") or {}
    totals = value.get("totals", {})
    print(
        f"run {run_id}: {state} in {time.monotonic() - started:.0f} s since `make demo` started its services"
    )
    if totals:
        print(
            f"cost ${totals['cost_usd']:,.2f} (on-demand equivalent ${totals['on_demand_cost_usd']:,.2f}; "
            f"spot saved ${totals['spot_savings_usd']:,.2f}; idle warm pools ${totals['retained_cost_usd']:,.2f})"
        )
        print(
            f"starts: {totals['warm_starts']} warm / {totals['cold_starts']} cold · "
            f"start-up saved {totals['startup_seconds_saved'] / 3600:.1f} h"
        )
        print(f"report: {value.get('local_html')}")
    print(f"Fleet tab (lanes, starts, cost, the report): {fleet_tab}")
    print(f"the UI stays up at {stack.url}; stop everything with `make demo-stop`")
    return 0 if state == "success" else 1


if __name__ == "__main__":
    sys.exit(main())
