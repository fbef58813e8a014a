"""Can ``sim serve`` keep up with its clock under the stock operator's polling pattern? (issue 4)

Run: ``.venv/bin/python benchmarks/bench_sim_serve.py [--jobs 200] [--speeds 10,30,60,120] [--work 600]``

For each speed a fresh ``sagemaker-fleet sim serve --speed S`` runs in its own process. ``--jobs`` jobs are
created at once, then each is polled the way the stock Airflow trigger does: one DescribeTrainingJob per job every
30 simulated seconds (30/S wall seconds), on a fixed schedule, until it ends; the jobs' schedules are spread evenly
over the period (triggers start at different moments). Two clients: ``aiobotocore`` (what the stock trigger uses;
signing and parsing cost client CPU on the same 2 cores) and ``raw`` (unsigned JSON over aiohttp: the server's
own capacity shows).
Required rate = jobs / 30 × S requests per wall second. "keeps up" = every job completed, the polls went out on
schedule (P99 lateness under 10 % of the period) and no completion was seen later than one period + P99 latency.
All figures are measured in this one run; nothing here is asserted by the test suite.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import signal
import subprocess
import sys
import time
from dataclasses import dataclass, field
from typing import Any

import aiohttp
from aiobotocore.config import AioConfig
from aiobotocore.session import get_session

from result_file import add_result_options, options, printed_lines, started_now, write_result
from sagemaker_fleet.sim.client import FAKE_CREDENTIALS, SimClient

PERIOD = 30.0  # simulated seconds between two polls of one job (the stock trigger's poke interval)
ROLE = "arn:aws:iam::111122223333:role/Bench"


@dataclass
class Measurements:
    latencies: list[float] = field(default_factory=list)  # wall seconds per DescribeTrainingJob
    received: list[float] = field(default_factory=list)  # wall time of each answer
    lateness: list[float] = field(default_factory=list)  # wall seconds a poll went out after its slot
    detection: list[float] = field(default_factory=list)  # simulated seconds from TrainingEndTime to seen
    statuses: list[str] = field(default_factory=list)
    errors: int = 0
    first_end: float = float("inf")  # wall time the first job was seen ended


def request(name: str, max_runtime: int = 86400) -> dict[str, Any]:
    """A minimal valid CreateTrainingJob request on ml.m5.xlarge (also used by bench_triggerer)."""
    return {
        "TrainingJobName": name,
        "AlgorithmSpecification": {
            "TrainingImage": "1.dkr.ecr.us-east-1.amazonaws.com/x:1",
            "TrainingInputMode": "FastFile",
        },
        "RoleArn": ROLE,
        "OutputDataConfig": {"S3OutputPath": "s3://bench/out/"},
        "ResourceConfig": {"InstanceType": "ml.m5.xlarge", "InstanceCount": 1, "VolumeSizeInGB": 30},
        "StoppingCondition": {"MaxRuntimeInSeconds": max_runtime},
    }


def start_server(speed: float, work: float) -> tuple[subprocess.Popen[str], str]:
    command = [
        sys.executable, "-m", "sagemaker_fleet.cli.main", "sim", "serve", "--speed", str(speed),
        "--default-work-seconds", str(work), "--no-moto",
    ]  # fmt: skip
    process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    assert process.stdout is not None
    return process, process.stdout.readline().strip()


class RawClient:
    """DescribeTrainingJob as unsigned JSON over aiohttp (the simulator does not check signatures)."""

    def __init__(self, session: Any, url: str) -> None:
        self._session = session
        self._url = url

    async def describe_training_job(self, TrainingJobName: str) -> dict[str, Any]:  # noqa: N803 - boto's name
        headers = {
            "X-Amz-Target": "SageMaker.DescribeTrainingJob",
            "Content-Type": "application/x-amz-json-1.1",
        }
        body = json.dumps({"TrainingJobName": TrainingJobName})
        async with self._session.post(self._url, data=body, headers=headers) as response:
            data: dict[str, Any] = json.loads(await response.read())
            if response.status != 200:
                raise RuntimeError(data)
            return data


def _epoch(value: Any) -> float:
    return float(value) if isinstance(value, int | float) else float(value.timestamp())


async def poll(
    client: Any, name: str, phase: float, speed: float, began: float, sim_began: float, out: Measurements
) -> None:
    """The stock trigger's loop for one job, on a fixed schedule of one call per period."""
    wall_period = PERIOD / speed
    slot = 0
    while True:
        due = began + (phase + slot) * wall_period
        slot += 1
        await asyncio.sleep(max(due - time.perf_counter(), 0.0))
        sent = time.perf_counter()
        out.lateness.append(sent - due)
        try:
            described = await client.describe_training_job(TrainingJobName=name)
        except Exception:  # a benchmark counts failures, it does not stop at the first
            out.errors += 1
            continue
        received = time.perf_counter()
        out.latencies.append(received - sent)
        out.received.append(received)
        status = described["TrainingJobStatus"]
        if status in ("Completed", "Failed", "Stopped"):
            out.first_end = min(out.first_end, received)
            out.statuses.append(status)
            sim_seen = sim_began + (received - began) * speed
            out.detection.append(sim_seen - _epoch(described["TrainingEndTime"]))
            return


def pct(values: list[float], share: float) -> float:
    ordered = sorted(values)
    return ordered[min(int(share * len(ordered)), len(ordered) - 1)] if ordered else float("nan")


async def run_speed(speed: float, jobs: int, work: float, kind: str) -> dict[str, float]:
    process, url = start_server(speed, work)
    admin = SimClient(url)
    out = Measurements()
    names = [f"bench-{i:04d}" for i in range(jobs)]
    try:
        config = AioConfig(max_pool_connections=jobs, retries={"mode": "standard", "max_attempts": 5})
        async with get_session().create_client(
            "sagemaker", endpoint_url=url, config=config, **FAKE_CREDENTIALS
        ) as sm:
            await asyncio.gather(*(sm.create_training_job(**request(n)) for n in names))
            async with aiohttp.ClientSession(connector=aiohttp.TCPConnector(limit=jobs)) as session:
                client = sm if kind == "aiobotocore" else RawClient(session, url)
                sim_began, began = admin.now(), time.perf_counter()
                await asyncio.gather(
                    *(poll(client, n, i / jobs, speed, began, sim_began, out) for i, n in enumerate(names))
                )
                wall = time.perf_counter() - began
                sim_elapsed = admin.now() - sim_began
        calls = admin.calls()["calls"].get("DescribeTrainingJob", 0)
    finally:
        process.send_signal(signal.SIGTERM)
        process.wait(timeout=30)
    return {
        "speed": speed,
        "required": jobs / PERIOD * speed,
        "achieved": calls / wall,
        # while every job is still running, the rate the clients asked for is the full requirement
        "steady": sum(1 for t in out.received if t < out.first_end) / max(out.first_end - began, 1e-9),
        "calls": calls,
        "wall": wall,
        "clock_ratio": sim_elapsed / wall,
        "lat50": pct(out.latencies, 0.5) * 1000,
        "lat99": pct(out.latencies, 0.99) * 1000,
        "late99_sim": pct(out.lateness, 0.99) * speed,
        "detect_max": max(out.detection, default=float("nan")),
        "completed": out.statuses.count("Completed"),
        "errors": out.errors,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--jobs", type=int, default=200)
    parser.add_argument("--speeds", default="10,30,60,120")
    parser.add_argument("--clients", default="aiobotocore,raw")
    parser.add_argument("--work", type=float, default=600.0, help="default training seconds per job")
    add_result_options(parser)
    args = parser.parse_args()
    run_started = started_now()
    with printed_lines() as printed:
        print(
            f"{args.jobs} jobs, one DescribeTrainingJob per job per {PERIOD:.0f} simulated s; cpu cores: {os.cpu_count()}"
        )
        print(
            f"{'client':<11} {'speed':>5} {'need r/s':>9} {'got r/s':>8} {'avg r/s':>8} {'calls':>6} {'wall s':>7} {'clock':>6} "
            f"{'lat p50':>8} {'lat p99':>8} {'late p99':>9} {'seen late':>9} {'done':>5} {'err':>4}  verdict"
        )
        for kind in args.clients.split(","):
            for speed in (float(s) for s in args.speeds.split(",")):
                r = asyncio.run(run_speed(speed, args.jobs, args.work, kind))
                keeps_up = (
                    r["completed"] == args.jobs
                    and r["errors"] == 0
                    and r["late99_sim"] < 0.1 * PERIOD
                    and r["detect_max"] <= PERIOD + r["lat99"] / 1000 * speed + 1
                )
                print(
                    f"{kind:<11} {speed:5.0f} {r['required']:9.1f} {r['steady']:8.1f} {r['achieved']:8.1f} {r['calls']:6.0f} "
                    f"{r['wall']:7.1f} {r['clock_ratio']:6.1f} {r['lat50']:6.1f}ms {r['lat99']:6.1f}ms "
                    f"{r['late99_sim']:7.2f}s {r['detect_max']:8.1f}s {r['completed']:5.0f} {r['errors']:4.0f}  "
                    f"{'keeps up' if keeps_up else 'FALLS BEHIND'}"
                )
        print(
            "got r/s = answers per wall second while all jobs ran (avg: over the whole run, tail included);"
        )
        print(
            "clock = simulated seconds per wall second as the server reported; late = simulated seconds a poll"
        )
        print(
            "went out after its slot; seen late = simulated seconds from TrainingEndTime to the poll that saw it."
        )
    write_result(
        "bench_sim_serve",
        {"options": options(args), "printed": printed},
        run_started,
        directory=args.results_dir,
    )


if __name__ == "__main__":
    main()
