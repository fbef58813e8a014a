"""Simulated start-up P90s per input mode, beside the seed table they are calibrated to (docs/sagemaker-behaviour.md, start-up times).

Run: ``.venv/bin/python benchmarks/bench_sim_startup.py [--jobs N] [--seed S]``

Jobs go through the whole engine (CreateTrainingJob → Training), not just the start-up model: cold starts are jobs
with no pool to take; warm starts are the jobs of a chain where each job is created the moment its predecessor
ends and takes over its warm pool. Start-up = SecondaryStatus Training's start − CreationTime.
"""

from __future__ import annotations

import argparse
import time
from types import MappingProxyType

from result_file import add_result_options, options, printed_lines, started_now, write_result
from sagemaker_fleet.jobs.startup import STARTUP_P90
from sagemaker_fleet.sim import JobEvent, SimConfig, SimEngine, SpotMarketConfig, VirtualClock, WorkModel

ROLE = "arn:aws:iam::111122223333:role/Bench"


def request(name: str, mode: str, keep_alive: int) -> dict[str, object]:
    channel: dict[str, object] = {
        "ChannelName": "train",
        "DataSource": {"S3DataSource": {"S3DataType": "S3Prefix", "S3Uri": "s3://bench/data/"}},
    }
    input_mode = mode
    if mode == "FSx":
        input_mode = "File"
        channel["DataSource"] = {
            "FileSystemDataSource": {
                "FileSystemId": "fs-0123456789abcdef0",
                "FileSystemAccessMode": "ro",
                "FileSystemType": "FSxLustre",
                "DirectoryPath": "/fsx/data",
            }
        }
    resources: dict[str, object] = {"InstanceType": "ml.m5.xlarge", "InstanceCount": 1, "VolumeSizeInGB": 30}
    if keep_alive:
        resources["KeepAlivePeriodInSeconds"] = keep_alive
    return {
        "TrainingJobName": name,
        "AlgorithmSpecification": {
            "TrainingImage": "1.dkr.ecr.us-east-1.amazonaws.com/x:1",
            "TrainingInputMode": input_mode,
        },
        "RoleArn": ROLE,
        "InputDataConfig": [channel],
        "OutputDataConfig": {"S3OutputPath": "s3://bench/out/"},
        "ResourceConfig": resources,
        "StoppingCondition": {"MaxRuntimeInSeconds": 3600},
    }


def percentile(values: list[float], share: float) -> float:
    ordered = sorted(values)
    return ordered[min(int(share * len(ordered)), len(ordered) - 1)]


def engine(seed: int) -> SimEngine:
    config = SimConfig(
        seed=seed,
        work=WorkModel(default_seconds=60, spread=0.0),
        spot=SpotMarketConfig(interruptions_per_hour=0.0),
        quotas=MappingProxyType({}),
    )
    return SimEngine(config, VirtualClock())


def drain(sim: SimEngine) -> None:
    while (upcoming := sim.next_event_time()) is not None:
        sim.run_until(upcoming)


def cold_startups(mode: str, jobs: int, seed: int) -> list[float]:
    sim = engine(seed)
    names = [f"cold-{mode.lower()}-{i}" for i in range(jobs)]
    for name in names:
        sim.create_training_job(request(name, mode, keep_alive=0))
    drain(sim)
    return [sim.facts(n).startup_seconds or 0.0 for n in names]


def warm_startups(mode: str, jobs: int, seed: int) -> list[float]:
    sim = engine(seed)
    names = [f"warm-{mode.lower()}-{i}" for i in range(jobs + 1)]
    pending = list(names)

    def next_job(event: JobEvent) -> None:
        if event.status == "Completed" and pending:
            sim.create_training_job(request(pending.pop(0), mode, keep_alive=300))

    sim.subscribe(next_job)
    sim.create_training_job(request(pending.pop(0), mode, keep_alive=300))
    drain(sim)
    facts = [sim.facts(n) for n in names[1:]]
    assert all(f.start == "warm" for f in facts), "every job after the first must start on the pool"
    return [f.startup_seconds or 0.0 for f in facts]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--jobs", type=int, default=2000, help="jobs per mode and start kind (default 2000)")
    parser.add_argument("--seed", type=int, default=7)
    add_result_options(parser)
    args = parser.parse_args()
    run_started = started_now()
    with printed_lines() as printed:
        began = time.perf_counter()
        print(f"start-up seconds, {args.jobs} simulated jobs per cell, seed {args.seed}")
        header = f"{'mode':<9} | {'cold P50':>8} {'cold P90':>8} {'table':>6} {'ratio':>6} | "
        header += f"{'warm P50':>8} {'warm P90':>8} {'table':>6} {'ratio':>6} | {'cold/warm P90':>13}"
        print(header)
        print("-" * len(header))
        for mode, table in STARTUP_P90.items():
            cold = cold_startups(mode, args.jobs, args.seed)
            warm = warm_startups(mode, args.jobs, args.seed)
            cold90, warm90 = percentile(cold, 0.9), percentile(warm, 0.9)
            print(
                f"{mode:<9} | {percentile(cold, 0.5):8.1f} {cold90:8.1f} {table.cold:6d} {cold90 / table.cold:6.3f} | "
                f"{percentile(warm, 0.5):8.1f} {warm90:8.1f} {table.warm:6d} {warm90 / table.warm:6.3f} | "
                f"{cold90 / warm90:10.1f}x (table {table.cold / table.warm:.1f}x)"
            )
        print(
            f"({time.perf_counter() - began:.1f} s of real time; Pipe has no published figure and uses FastFile's)"
        )
    write_result(
        "bench_sim_startup",
        {"options": options(args), "printed": printed},
        run_started,
        directory=args.results_dir,
    )


if __name__ == "__main__":
    main()
