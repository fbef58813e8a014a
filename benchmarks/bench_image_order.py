"""The planner's image order: a fleet with two images interleaved in spec order, simulated with the training
image as secondary ordering key and without it, side by side.

Run: ``.venv/bin/python benchmarks/bench_image_order.py [--fleet F.yaml] [--seed 7] [--seeds 5]``

Fleet: ``benchmarks/fleets/two_images.yaml`` (40 cities of one warm-pool group, images tf and xgb alternating).
Both columns use the ``planned`` strategy with the same seeds; "off" plans with ``image_order=False``. The plan
rows are the planner's own counts; the rest is the simulated run, summed over ``--seeds`` seeds from ``--seed``
on (a warm start that re-pulled its image is read from DescribeTrainingJob, as the cost report reads it).
"""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from sagemaker_fleet.plan import plan_fleet
from sagemaker_fleet.sim.driver import SimulateOptions, simulate_fleet
from sagemaker_fleet.spec import load_fleet_spec

TWO_IMAGES = Path(__file__).resolve().parent / "fleets" / "two_images.yaml"
ROWS = (
    ("warm starts", "warm_starts"),
    ("warm image re-pulls", "warm_image_pulls"),
    ("start-up s", "startup_seconds"),
    ("makespan s", "makespan_seconds"),
    ("billable s", "billable_seconds"),
    ("cost USD", "cost_usd"),
)


def _cell(value: Any) -> str:
    return f"{value:,.2f}" if isinstance(value, float) else f"{value:,}"


def simulated(path: Path, seeds: range, image_order: bool) -> dict[str, Any]:
    spec = load_fleet_spec(path)
    totals: dict[str, Any] = dict.fromkeys((key for _, key in ROWS), 0)
    for seed in seeds:
        doc = simulate_fleet(spec, SimulateOptions(seed=seed, image_order=image_order)).to_json()
        for key in totals:
            totals[key] += doc[key]
    return totals


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--fleet", type=Path, default=TWO_IMAGES)
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--seeds", type=int, default=5, help="how many seeds to sum over")
    args = parser.parse_args()
    spec = load_fleet_spec(args.fleet)
    seeds = range(args.seed, args.seed + args.seeds)
    plans = {order: plan_fleet(spec, "20261129", image_order=order).summary for order in (True, False)}
    runs = {order: simulated(args.fleet, seeds, order) for order in (True, False)}
    print(f"{spec.fleet}: {len(spec.cities)} cities, seeds {seeds.start}–{seeds.stop - 1} (simulated sums)")
    print(f"  {'':26} {'image key on':>12} {'off':>10} {'off/on':>8}")
    rows = [
        ("plan: image changes", plans[True].image_changes, plans[False].image_changes),
        ("plan: makespan s", plans[True].planned_makespan_seconds, plans[False].planned_makespan_seconds),
    ]
    rows += [(label, runs[True][key], runs[False][key]) for label, key in ROWS]
    for label, on, off in rows:
        ratio = f"{off / on:.2f}" if on else "—"
        print(f"  {label:26} {_cell(on):>12} {_cell(off):>10} {ratio:>8}")


if __name__ == "__main__":
    main()
