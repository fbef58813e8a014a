"""The image order at run time: a fleet with two images interleaved in spec order, simulated three ways in one
run — without the planner's image key (hand-off in start order), with it (hand-off in start order: the old
dispatch) and with it and the image-aware hand-off (the dispatch now) — with the ratios side by side.

Run: ``.venv/bin/python benchmarks/bench_image_order.py [--fleet F.yaml] [--seed 7] [--seeds 5]``

Fleet: ``benchmarks/fleets/two_images.yaml`` (40 cities of one warm-pool group, images tf and xgb alternating).
All columns use the ``planned`` strategy with the same seeds. The plan rows are the planner's own counts (the
hand-off does not change the plan); the rest is the simulated run, summed over ``--seeds`` seeds from ``--seed``
on (a warm start that re-pulled its image is read from DescribeTrainingJob, as the cost report reads it).
"old/new" is the start-order hand-off against the image-aware one, "off/new" the plan without the image key and
the start-order hand-off against both.
"""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from result_file import add_result_options, options, printed_lines, started_now, write_result
from sagemaker_fleet.fleetspec import load_fleet_spec
from sagemaker_fleet.plan import plan_fleet
from sagemaker_fleet.simulate import SimulateOptions, simulate_fleet

TWO_IMAGES = Path(__file__).resolve().parent / "fleets" / "two_images.yaml"
ROWS = (
    ("warm starts", "warm_starts"),
    ("warm image re-pulls", "warm_image_pulls"),
    ("start-up s", "startup_seconds"),
    ("makespan s", "makespan_seconds"),
    ("billable s", "billable_seconds"),
    ("cost USD", "cost_usd"),
)
#: column → (the planner's image key, the image-aware hand-off)
COLUMNS = {"off": (False, False), "old": (True, False), "new": (True, True)}


def _cell(value: Any) -> str:
    return f"{value:,.2f}" if isinstance(value, float) else f"{value:,}"


def _ratio(numerator: float, denominator: float) -> str:
    return f"{numerator / denominator:.2f}" if denominator else "—"


def simulated(path: Path, seeds: range, image_order: bool, image_handoff: bool) -> dict[str, Any]:
    spec = load_fleet_spec(path)
    totals: dict[str, Any] = dict.fromkeys((key for _, key in ROWS), 0)
    for seed in seeds:
        options = SimulateOptions(seed=seed, image_order=image_order, image_handoff=image_handoff)
        doc = simulate_fleet(spec, options).to_json()
        for key in totals:
            totals[key] += doc[key]
    return totals


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--fleet", type=Path, default=TWO_IMAGES)
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--seeds", type=int, default=5, help="how many seeds to sum over")
    add_result_options(parser)
    args = parser.parse_args()
    run_started = started_now()
    with printed_lines() as printed:
        spec = load_fleet_spec(args.fleet)
        seeds = range(args.seed, args.seed + args.seeds)
        plans = {order: plan_fleet(spec, "20261129", image_order=order).summary for order in (True, False)}
        runs = {column: simulated(args.fleet, seeds, *flags) for column, flags in COLUMNS.items()}
        print(
            f"{spec.fleet}: {len(spec.cities)} cities, seeds {seeds.start}–{seeds.stop - 1} (simulated sums)"
        )
        print(
            "  off: no image key, start-order hand-off; old: image key, start-order hand-off; "
            "new: image key, image-aware hand-off"
        )
        print(f"  {'':26} {'off':>10} {'old':>10} {'new':>10} {'off/new':>8} {'old/new':>8}")
        rows = [
            (
                "plan: image changes",
                plans[False].image_changes,
                plans[True].image_changes,
                plans[True].image_changes,
            ),
            (
                "plan: makespan s",
                plans[False].planned_makespan_seconds,
                plans[True].planned_makespan_seconds,
                plans[True].planned_makespan_seconds,
            ),
        ]
        rows += [(label, runs["off"][key], runs["old"][key], runs["new"][key]) for label, key in ROWS]
        for label, off, old, new in rows:
            print(
                f"  {label:26} {_cell(off):>10} {_cell(old):>10} {_cell(new):>10} {_ratio(off, new):>8} "
                f"{_ratio(old, new):>8}"
            )
    write_result(
        "bench_image_order",
        {"options": options(args), "printed": printed},
        run_started,
        directory=args.results_dir,
    )


if __name__ == "__main__":
    main()
