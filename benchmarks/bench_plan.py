"""Benchmark of the pool-aware planner (issue 3): planning time and plan quality, side by side in one run.

Run: ``.venv/bin/python benchmarks/bench_plan.py`` (``--quick`` skips the 100k-city fleet).

1. Plan time for 1k, 10k and 100k cities (same shape of fleet), best of a few runs, with the ratio to the
   previous size — near-linear growth shows as a time ratio close to the size ratio (10×).
2. Planned makespan / lower bound (``makespan_lower_bound_seconds``, see ``sagemaker_fleet.plan.summary``) on a
   few generated fleets, with lanes, cold/warm starts and the planned idle pool-seconds. Target: ≤ 1.05.
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from dataclasses import dataclass

from result_file import add_result_options, options, printed_lines, started_now, write_result
from sagemaker_fleet.fleetspec.model import CitySpec, FleetSpec, InstanceQuota, SpotSettings
from sagemaker_fleet.plan import FleetPlan, plan_fleet

ROLE = "arn:aws:iam::111122223333:role/Team{}"
IMAGE = "111122223333.dkr.ecr.us-east-1.amazonaws.com/demand:1.4"


@dataclass(frozen=True)
class Shape:
    name: str
    cities: int
    keys: int  # roles: each a warm-pool matching key
    types: tuple[str, ...]
    quotas: dict[str, InstanceQuota]
    spot_share: float = 0.0
    skew: float = 0.0  # 0: cities spread evenly over keys; >0: Zipf-like sizes
    mean_seconds: int = 1200
    deadline: int | None = None


def make_fleet(shape: Shape, seed: int = 7) -> FleetSpec:
    rng = random.Random(seed)
    weights = [1.0 / (k + 1) ** shape.skew for k in range(shape.keys)]
    cities = []
    for index in range(shape.cities):
        key = rng.choices(range(shape.keys), weights)[0]
        seconds = int(min(7200, max(120, rng.lognormvariate(0, 0.6) * shape.mean_seconds)))
        spot = SpotSettings(max_wait_seconds=14400) if rng.random() < shape.spot_share else None
        cities.append(
            CitySpec(
                name=f"c{index:06d}",
                train_s3_uri=f"s3://acme-ml/data/c{index}/",
                role_arn=ROLE.format(key),
                image_uri=IMAGE,
                instance_type=shape.types[key % len(shape.types)],
                expected_seconds=seconds,
                spot=spot,
            )
        )
    return FleetSpec(
        fleet="bench",
        region="us-east-1",
        role_arn=ROLE.format(0),
        image_uri=IMAGE,
        output_s3_uri="s3://acme-ml/fleets/bench",
        cities=tuple(cities),
        deadline_seconds=shape.deadline,
        quotas=shape.quotas,
    )


M5, M52 = "ml.m5.xlarge", "ml.m5.2xlarge"
SCALE = {M5: InstanceQuota(100, 40, 40), M52: InstanceQuota(60, 20)}

TIMING = [
    Shape(f"{n // 1000}k cities", n, 8, (M5, M52), SCALE, spot_share=0.1) for n in (1000, 10000, 100000)
]

QUALITY = [
    Shape("500 cities, 1 key, 20 inst / 8 pools", 500, 1, (M5,), {M5: InstanceQuota(20, 8)}),
    Shape("500 cities, 1 key, 20 inst / 20 pools", 500, 1, (M5,), {M5: InstanceQuota(20, 20)}),
    Shape(
        "500 cities, 3 keys, 2 types",
        500,
        3,
        (M5, M52),
        {M5: InstanceQuota(20, 8), M52: InstanceQuota(10, 4)},
    ),
    Shape("1000 cities, 5 keys skewed, 20% spot", 1000, 5, (M5,), {M5: InstanceQuota(30, 10, 10)}, 0.2, 1.0),
    Shape("2000 cities, 10 keys, 4 pools for 10 keys", 2000, 10, (M5,), {M5: InstanceQuota(40, 4)}),
    Shape("300 cities, 12 keys, 8 instances (time-sliced)", 300, 12, (M5,), {M5: InstanceQuota(8, 4)}),
    Shape("5000 cities, 8 keys, 2 types, 10% spot", 5000, 8, (M5, M52), SCALE, 0.1, 0.5),
    Shape("800 cities, 1 key, no warm-pool quota", 800, 1, (M5,), {M5: InstanceQuota(25, 0)}),
]


def timed_plan(spec: FleetSpec, repeat: int) -> tuple[float, FleetPlan]:
    best = float("inf")
    plan = None
    for _ in range(repeat):
        start = time.perf_counter()
        plan = plan_fleet(spec, "20261129")
        best = min(best, time.perf_counter() - start)
    assert plan is not None
    return best, plan


def reference_seconds(spec: FleetSpec) -> float:
    """A plainly linear job of the same size (one small object per city, sorted, indexed), to tell the
    planner's growth from the machine's: per-item costs rise with the working set (caches, allocator)."""
    start = time.perf_counter()
    rows = sorted(
        ((city.expected_seconds, city.name, index) for index, city in enumerate(spec.cities)), reverse=True
    )
    index = {name: (seconds, position) for seconds, name, position in rows}
    assert len(index) == len(spec.cities)
    return time.perf_counter() - start


def timing_table(shapes: list[Shape]) -> None:
    print("Plan time (best of 3 runs)")
    print(
        f"{'fleet':<14}{'cities':>8}{'lanes':>7}{'seconds':>10}{'× prev':>8}{'µs/city':>9}"
        f"{'reference s':>13}{'ref × prev':>11}"
    )
    previous = previous_ref = None
    for shape in shapes:
        spec = make_fleet(shape)
        seconds, plan = timed_plan(spec, 3)
        ref = min(reference_seconds(spec) for _ in range(3))
        ratio = f"{seconds / previous:.1f}" if previous else "-"
        ref_ratio = f"{ref / previous_ref:.1f}" if previous_ref else "-"
        per_city = seconds / shape.cities * 1e6
        print(
            f"{shape.name:<14}{shape.cities:>8}{plan.summary.lanes:>7}{seconds:>10.3f}{ratio:>8}{per_city:>9.1f}"
            f"{ref:>13.4f}{ref_ratio:>11}"
        )
        previous, previous_ref = seconds, ref
    print()


def quality_table(shapes: list[Shape]) -> list[float]:
    print("Plan quality: planned makespan / lower bound (target ≤ 1.05)")
    header = f"{'fleet':<48}{'lanes':>6}{'cold':>6}{'warm':>6}{'makespan':>10}{'bound':>9}{'ratio':>7}{'idle pool s':>12}"
    print(header)
    ratios = []
    for shape in shapes:
        summary = plan_fleet(make_fleet(shape), "20261129").summary
        ratio = summary.planned_makespan_seconds / summary.makespan_lower_bound_seconds
        ratios.append(ratio)
        print(
            f"{shape.name:<48}{summary.lanes:>6}{summary.cold_starts:>6}{summary.warm_starts:>6}"
            f"{summary.planned_makespan_seconds:>10}{summary.makespan_lower_bound_seconds:>9}{ratio:>7.3f}"
            f"{summary.planned_retained_seconds:>12}"
        )
    print(f"worst ratio {max(ratios):.3f}")
    return ratios


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="skip the 100k-city fleet")
    add_result_options(parser)
    args = parser.parse_args(argv)
    run_started = started_now()
    with printed_lines() as printed:
        timing_table([shape for shape in TIMING if not (args.quick and shape.cities >= 100000)])
        quality_table(QUALITY)
    write_result(
        "bench_plan", {"options": options(args), "printed": printed}, run_started, directory=args.results_dir
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
