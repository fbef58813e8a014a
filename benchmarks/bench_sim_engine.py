"""How fast the engine simulates a fleet in virtual time (what ``simulate`` builds on): 1k and 10k cities.

Run: ``.venv/bin/python benchmarks/bench_sim_engine.py [--lanes 20]``

Each of ``lanes`` lanes submits its next city (via ``compile_training_request``) the moment its previous job
ends — reacting to the engine's events, no polling — so every job after a lane's first starts on a warm pool.
Printed: real seconds, jobs and events per real second, and the simulated makespan.
"""

from __future__ import annotations

import argparse
import time
from types import MappingProxyType
from typing import TYPE_CHECKING

from result_file import add_result_options, options, printed_lines, started_now, write_result
from sagemaker_fleet.fleetspec import InstanceQuota, parse_fleet_spec
from sagemaker_fleet.jobs.request import Submission, compile_training_request
from sagemaker_fleet.sim import JobEvent, SimConfig, SimEngine, VirtualClock, WorkModel

if TYPE_CHECKING:
    from sagemaker_fleet.fleetspec.model import FleetSpec


def fleet(cities: int) -> FleetSpec:
    lines = [
        "fleet: bench",
        "region: us-east-1",
        "role_arn: arn:aws:iam::111122223333:role/FleetTraining",
        "image_uri: 111122223333.dkr.ecr.us-east-1.amazonaws.com/demand:1.4",
        "output_s3_uri: s3://acme-ml/fleets/bench",
        "defaults: {instance_type: ml.m5.xlarge, expected_seconds: 1200}",
        "cities:",
    ]
    lines += [f'  - {{name: c{i:05d}, train_s3_uri: "s3://acme-ml/data/c{i:05d}/"}}' for i in range(cities)]
    return parse_fleet_spec("\n".join(lines))


def run(spec: FleetSpec, lanes: int, seed: int) -> tuple[float, int, float, int]:
    """Returns (real seconds, events processed, simulated makespan, warm starts)."""
    quota = MappingProxyType({"ml.m5.xlarge": InstanceQuota(instances=lanes, warm_pools=lanes)})
    sim = SimEngine(SimConfig(seed=seed, work=WorkModel.from_fleets([spec]), quotas=quota), VirtualClock())
    requests = [
        compile_training_request(spec, city, Submission(city.name, "20261129", keep_alive_seconds=300))
        for city in spec.cities
    ]
    pending = list(reversed(requests))
    events = 0

    def on_event(event: JobEvent) -> None:
        nonlocal events
        events += 1
        if event.status in ("Completed", "Failed", "Stopped") and pending:
            sim.create_training_job(pending.pop())

    sim.subscribe(on_event)
    began = time.perf_counter()
    start = sim.now()
    for _ in range(lanes):
        sim.create_training_job(pending.pop())
    while (upcoming := sim.next_event_time()) is not None:
        sim.run_until(upcoming)
    real = time.perf_counter() - began
    warm = sum(1 for r in requests if sim.facts(str(r["TrainingJobName"])).start == "warm")
    last_end = max(sim.facts(str(r["TrainingJobName"])).ended_at or 0.0 for r in requests)
    return real, events, last_end - start, warm


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--lanes", type=int, default=20)
    parser.add_argument("--seed", type=int, default=7)
    add_result_options(parser)
    args = parser.parse_args()
    run_started = started_now()
    with printed_lines() as printed:
        print(
            f"{'cities':>7} {'real s':>8} {'jobs/s':>9} {'events/s':>9} {'sim makespan h':>15} {'warm starts':>12}"
        )
        for cities in (1_000, 10_000):
            real, events, makespan, warm = run(fleet(cities), args.lanes, args.seed)
            print(
                f"{cities:7d} {real:8.2f} {cities / real:9.0f} {events / real:9.0f} {makespan / 3600:15.1f} "
                f"{warm:12d}"
            )
    write_result(
        "bench_sim_engine",
        {"options": options(args), "printed": printed},
        run_started,
        directory=args.results_dir,
    )


if __name__ == "__main__":
    main()
