"""Our fleet DAG against the stock SageMakerTrainingOperator, through real Airflow, on the same 100-city fleet.

Both runs use the same simulator seed and speed, the same LocalExecutor stack and the same CreateTrainingJob
requests (our request compiler), one after the other:
- ours: ``build_fleet_dag`` (pool-aware plan; every city starts, waits for its turn, trains and ends in the
  triggerer, handed over in the poll sweep that sees its predecessor end);
- stock: ``SageMakerTrainingOperator`` mapped over the same configs in spec order, deferrable, a fixed
  keep-alive of 600 s on every on-demand job, one mapped task per instance type with concurrency = its instance
  quota, and task retries (``--stock-retries``, 3 by default, ``--stock-retry-delay`` 120 simulated seconds
  apart) as a team running it would set: the operator does not retry a refused CreateTrainingJob
  (``ResourceLimitExceeded`` when its 600 s pools fill the warm-pool quota), so without them such cities fail.
Both poll at their AWS default, 30 s, scaled to the simulator's clock (``--aws-interval 30`` / ``--speed``): the
stock operator's ``check_interval`` and our DAG's ``poll_interval``.
Printed side by side with ratios: cold/warm starts, makespan, cost, idle-pool cost, API calls — those made while
the fleet trained, and the cost report's own calls (ours only: the stock DAG has no report), measured by
building the report once more against the same simulator — and Airflow's CPU per city (scheduler loop, task
processes, triggerer, dag-processor, api-server; ``/proc``, Linux). Usage::

    python benchmarks/fleet_vs_stock.py [--cities 100] [--speed 40] [--aws-interval 30] [--keep DIR]
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import tempfile
import time
from pathlib import Path
from types import MappingProxyType

import yaml

from result_file import add_result_options, started_now, write_result

REPO = Path(__file__).resolve().parent.parent

STOCK_DAG = '''"""airflow dag: the stock operator over the same requests."""
import datetime as dt, json
from pathlib import Path
from airflow.sdk import DAG
from airflow.providers.amazon.aws.operators.sagemaker import SageMakerTrainingOperator

CONFIGS = json.loads((Path(__file__).parent / "stock_configs.json").read_text())
with DAG("stock", schedule=None, start_date=dt.datetime(2026, 1, 1), catchup=False, max_active_runs=1,
         default_args={"retries": RETRIES, "retry_delay": dt.timedelta(seconds=RETRY_DELAY)}) as dag:
    for itype, configs in CONFIGS.items():
        SageMakerTrainingOperator.partial(
            task_id="train_" + itype.replace(".", "_"), wait_for_completion=True, deferrable=True,
            check_interval=CHECK_INTERVAL, max_attempts=1000000, print_log=False, check_if_job_exists=True,
            action_if_job_exists="fail", max_active_tis_per_dagrun=CONFIGS_LIMITS[itype],
        ).expand(config=configs)
'''


def fleet_file(folder: Path, cities: int) -> Path:
    data = yaml.safe_load((REPO / "dags" / "fleets" / "demo.yaml").read_text())
    data["cities"] = data["cities"][:cities]
    data["fleet"] = "bench"
    path = folder / "bench.yaml"
    path.write_text(yaml.safe_dump(data, sort_keys=False))
    return path


def stock_configs(spec, run_key: str) -> dict[str, list[dict]]:
    from sagemaker_fleet.jobs.request import Submission, compile_training_request

    stock = dataclasses.replace(spec, fleet="stock")
    by_type: dict[str, list[dict]] = {}
    for city in spec.cities:  # spec order, as the stock DAG would map them
        keep = 0 if city.spot else 600
        request = compile_training_request(
            stock, city, Submission(city.name, run_key, keep_alive_seconds=keep)
        )
        by_type.setdefault(city.instance_type, []).append(request)
    return by_type


def measure(sim, book, prefix: str, started_wall: float, finished_wall: float) -> dict[str, float]:
    from sagemaker_fleet.sim.client import billed_cost

    jobs = [j for j in sim.state()["jobs"] if j["name"].startswith(prefix)]
    calls = sim.calls()["calls"]
    cost, retained = billed_cost(jobs, lambda t: book.price(t).usd_per_hour)
    created = [j["created_at"] for j in jobs]
    ended = [j["ended_at"] for j in jobs if j["ended_at"]]
    return {
        "jobs": len(jobs),
        "completed": sum(1 for j in jobs if j["status"] == "Completed"),
        "cold starts": sum(1 for j in jobs if j["start"] == "cold"),
        "warm starts": sum(1 for j in jobs if j["start"] == "warm"),
        "makespan (sim s)": (max(ended) - min(created)) if ended else 0.0,
        "wall time (s)": finished_wall - started_wall,
        "cost USD": cost,
        "idle pool USD": retained,
        "CreateTrainingJob": calls.get("CreateTrainingJob", 0),
        "DescribeTrainingJob": calls.get("DescribeTrainingJob", 0),
        "ListTrainingJobs": calls.get("ListTrainingJobs", 0),
    }


#: Airflow's CPU per city during a run (``LocalAirflowStack.cpu_seconds``): the scheduler's own loop is the
#: scheduler overhead; its children are the LocalExecutor workers running the tasks.
CPU_ROWS = (
    ("scheduler loop", ("scheduler",)),
    ("task processes", ("scheduler:children",)),
    ("triggerer", ("triggerer", "triggerer:children")),
    ("dag-processor", ("dag-processor", "dag-processor:children")),
    ("api-server", ("api-server", "api-server:children")),
)


def report_calls(sim, spec, prefix: str) -> dict[str, int]:
    """The calls our DAG's cost_report task makes, measured by collecting the run's jobs once more (the same
    ListTrainingJobs pages and one DescribeTrainingJob per submission)."""
    from sagemaker_fleet.cost import RunJobIndex
    from sagemaker_fleet.cost.collect import describe_run_jobs
    from sagemaker_fleet.jobs.reader import ClientJobReader

    first = spec.cities[0].name
    names = [j["name"] for j in sim.state()["jobs"] if j["name"].startswith(f"{prefix}{first}-")]
    run_key = names[0].removeprefix(f"{prefix}{first}-").split("-")[0]
    before = sim.calls()["calls"]
    describe_run_jobs(ClientJobReader(sim.boto3_client("sagemaker")), RunJobIndex.for_run(spec, run_key))
    after = sim.calls()["calls"]
    return {op: after.get(op, 0) - before.get(op, 0) for op in after}


def end_pools(sim) -> None:
    """Stop idle pools so the next run starts from nothing and billing stops accruing."""
    client = sim.boto3_client("sagemaker")
    for job in sim.state()["jobs"]:
        if job["warm_pool_status"] == "Available":
            client.update_training_job(
                TrainingJobName=job["name"], ResourceConfig={"KeepAlivePeriodInSeconds": 0}
            )


def main() -> None:  # noqa: C901 - a linear script
    parser = argparse.ArgumentParser()
    parser.add_argument("--cities", type=int, default=100)
    parser.add_argument("--speed", type=float, default=40.0)
    parser.add_argument("--timeout", type=float, default=1500.0)
    parser.add_argument(
        "--aws-interval",
        type=float,
        default=30.0,
        help="both DAGs' polling interval in simulated seconds (the AWS default of both is 30)",
    )
    parser.add_argument("--stock-retries", type=int, default=3, help="the stock DAG's task retries")
    parser.add_argument(
        "--stock-retry-delay",
        type=float,
        default=120.0,
        help="the stock DAG's retry delay in simulated seconds",
    )
    parser.add_argument(
        "--keep", type=Path, help="work in this folder and keep it (Airflow home, logs, DAGs)"
    )
    add_result_options(parser)
    args = parser.parse_args()
    run_started = started_now()

    from sagemaker_fleet.fleetspec import load_fleet_spec
    from sagemaker_fleet.fleetspec.price_table import load_price_table
    from sagemaker_fleet.jobs.prices import PriceBook
    from sagemaker_fleet.sim import SimConfig
    from sagemaker_fleet.sim.client import SimClient
    from sagemaker_fleet.sim.server import ServerSettings, SimulatorServer
    from sagemaker_fleet.sim.workload import WorkModel
    from sagemaker_fleet.testing.stack import LocalAirflowStack, StackSettings

    with tempfile.TemporaryDirectory() as tmp:
        folder = args.keep or Path(tmp)
        folder.mkdir(parents=True, exist_ok=True)
        dags = folder / "dags"
        dags.mkdir()
        spec = load_fleet_spec(fleet_file(dags, args.cities))
        run_key = "20261129"
        configs = stock_configs(spec, run_key)
        (dags / "stock_configs.json").write_text(json.dumps(configs))
        limits = {t: spec.quota(t).instances for t in configs}
        interval = args.aws_interval / args.speed
        (dags / "stock_dag.py").write_text(
            STOCK_DAG.replace("CONFIGS_LIMITS", repr(limits))
            .replace("CHECK_INTERVAL", repr(interval))
            .replace("RETRIES", repr(args.stock_retries))
            .replace("RETRY_DELAY", repr(args.stock_retry_delay / args.speed))
        )
        (dags / "ours_dag.py").write_text(
            '"""airflow dag: ours."""\nfrom sagemaker_fleet.dags import DispatchConfig, build_fleet_dag\n'
            f"dag = build_fleet_dag({str(dags / 'bench.yaml')!r}, dag_id='ours', "
            f"dispatch=DispatchConfig(poll_interval={interval!r}, capacity_retry_seconds=3.0))\n"
        )
        config = SimConfig(
            seed=7,
            work=WorkModel.from_fleets([spec, dataclasses.replace(spec, fleet="stock")]),
            quotas=MappingProxyType(dict(spec.quotas)),
        )
        book = PriceBook(region=spec.region, table=load_price_table(), spec_prices=spec.prices)
        results = {}
        with SimulatorServer(ServerSettings(speed=args.speed, config=config)) as server:
            sim = SimClient(server.url)
            settings = StackSettings(
                home=folder / "airflow",
                dags_folder=dags,
                endpoint_url=server.url,
                parallelism=24,
            )
            with LocalAirflowStack(settings) as stack:
                for dag_id, prefix in (("ours", "bench-"), ("stock", "stock-")):
                    sim.reset(moto=True)
                    s3 = sim.boto3_client("s3")
                    for bucket in {c.train_s3_uri.split("/")[2] for c in spec.cities} | {
                        spec.output_s3_uri.split("/")[2]
                    }:
                        s3.create_bucket(Bucket=bucket)
                    for city in spec.cities:
                        bucket, _, key = city.train_s3_uri.removeprefix("s3://").partition("/")
                        s3.put_object(Bucket=bucket, Key=f"{key}train.csv", Body=b"day,demand\n1,1\n")
                    stack.wait_for_dag(dag_id)
                    started = time.monotonic()
                    cpu_before = stack.cpu_seconds()
                    run_id = stack.trigger(dag_id)
                    state = stack.wait_for_run(dag_id, run_id, timeout=args.timeout)
                    finished = time.monotonic()
                    cpu_after = stack.cpu_seconds()
                    end_pools(sim)
                    results[dag_id] = {"state": state, **measure(sim, book, prefix, started, finished)}
                    for label, keys in CPU_ROWS:
                        used = sum(cpu_after.get(k, 0.0) - cpu_before.get(k, 0.0) for k in keys)
                        results[dag_id][f"CPU ms/city: {label}"] = 1000 * used / max(1, args.cities)
                    report = report_calls(sim, spec, prefix) if dag_id == "ours" else {}
                    for op in ("DescribeTrainingJob", "ListTrainingJobs"):
                        results[dag_id][f"{op} (report)"] = report.get(op, 0)
                        results[dag_id][f"{op} (training)"] = results[dag_id][op] - report.get(op, 0)
                    training_calls = sum(
                        results[dag_id][f"{op} (training)"]
                        for op in ("DescribeTrainingJob", "ListTrainingJobs")
                    )
                    results[dag_id]["status calls/job (training)"] = training_calls / max(1, args.cities)
                    print(f"{dag_id}: run {state} in {finished - started:.0f} s", flush=True)
                    for ti_state, labels in stack.task_states(dag_id, run_id).items():
                        if ti_state != "success":
                            print(f"  {ti_state}: {', '.join(labels)}", flush=True)
                    unfinished = [
                        j
                        for j in sim.state()["jobs"]
                        if j["name"].startswith(prefix) and j["status"] != "Completed"
                    ]
                    for job in unfinished:
                        print(f"  job {job['name']}: {job['status']} ({job['secondary_status']})", flush=True)
        print(f"\n{args.cities}-city fleet, simulator speed {args.speed:g}×, LocalExecutor")
        print(f"{'':34}{'ours':>12}{'stock':>12}{'stock/ours':>12}")
        for metric in results["ours"]:
            if metric == "state":
                continue
            ours, stock = results["ours"][metric], results["stock"][metric]
            ratio = f"{stock / ours:.2f}" if ours else "—"
            print(f"{metric:34}{ours:>12,.2f}{stock:>12,.2f}{ratio:>12}")
    write_result(
        "fleet_vs_stock",
        {
            "cities": args.cities,
            "speed": args.speed,
            "aws_interval_s": args.aws_interval,
            "stock_retries": args.stock_retries,
            "stock_retry_delay_sim_s": args.stock_retry_delay,
            "dags": results,
        },
        run_started,
        directory=args.results_dir,
    )


if __name__ == "__main__":
    main()
