"""``simulate`` of several fleets on one account: what it predicts for shared_account.py's scenarios, beside one fleet.

The same generated fleets as ``shared_account.py`` (its ``durations`` split, ``fleet_file`` and ``fleets_of``: one
warm-pool key, every spec declaring the account's whole quota, ``--instances`` ml.m5.xlarge and ``--warm-pools``)
run through ``sagemaker-fleet simulate A.yaml B.yaml --offset B.yaml=S`` in virtual time — no Airflow — each
scenario beside its reference, the same cities as ONE fleet (``one``; ``one-manual`` for ``manual``, the fleet's
cities twice). Every fleet after the first starts ``--offset`` seconds later (two DAG runs triggered together do
not sweep in the same second); ``--lockstep`` adds the pair and small+big at offset 0, the worst case (both runs
sweep in the same instant, so neither sees the other's admitted city before it is created).

Printed per scenario: ResourceLimitExceeded answers, makespan (first creation to last end, all fleets), its ratio
to the reference, the idle-pool share of the cost, warm starts, pools taken across runs, lost / duplicated
cities, and the real seconds of the simulation. Usage::

    cd benchmarks && ../.venv/bin/python simulate_shared_account.py [--cities 40] [--small 16] [--offset 3]
"""

from __future__ import annotations

import argparse
import json
import tempfile
import time
from pathlib import Path
from typing import Any

import yaml

from result_file import add_result_options, options, printed_lines, started_now, write_result
from sagemaker_fleet.fleetspec import load_fleet_spec
from sagemaker_fleet.simulate import AccountRun, SimulateOptions, simulate_account
from shared_account import durations, fleet_file, fleets_of

RUN_KEY = "20261129"
MANUAL_KEY = "manual1"  # the manual run's own key (a hash of its run id in a DAG run)
REFERENCE = {"pair": "one", "small-big": "one", "manual": "one-manual"}


def runs_of(scenario: str, offset: float, folder: Path, args: argparse.Namespace) -> list[AccountRun]:
    """The scenario's runs, its cities split from ``durations(args)`` as shared_account.py splits them."""
    every, taken = durations(args), 0
    if scenario == "one-manual":
        every = every[: args.cities] * 2
    runs: list[AccountRun] = []
    for name, cities in fleets_of(scenario, args):
        path = fleet_file(folder, name, every[taken : taken + cities], args)
        if args.sharing is not None:  # every fleet takes part in the account's shares (the board)
            data = yaml.safe_load(path.read_text())
            data["sharing"] = args.sharing
            path.write_text(yaml.safe_dump(data, sort_keys=False))
        taken += cities
        spec = load_fleet_spec(path)
        runs.append(AccountRun(spec, RUN_KEY, offset * len(runs), str(path)))
        if scenario == "manual":  # the same fleet file beside itself, under the manual run's key
            runs.append(AccountRun(spec, MANUAL_KEY, offset, f"{path}@{MANUAL_KEY}"))
    return runs


def measure(scenario: str, offset: float, args: argparse.Namespace) -> dict[str, Any]:
    with tempfile.TemporaryDirectory() as tmp:
        runs = runs_of(scenario, offset, Path(tmp), args)
        began = time.perf_counter()
        result = simulate_account(runs, SimulateOptions(seed=args.seed))
        real = time.perf_counter() - began
    account = result.to_json()["account"]
    return {
        "scenario": scenario,
        "offset_s": offset if len(runs) > 1 else None,
        "fleets": [f"{run.spec.fleet}@{run.run_key}:{len(run.spec.cities)}" for run in runs],
        **{
            key: account[key]
            for key in (
                "resource_limit_exceeded",
                "makespan_seconds",
                "idle_share",
                "warm_starts",
                "pools_across_runs",
                "lost",
                "duplicated",
                "completed",
            )
        },
        "real_s": round(real, 2),
    }


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--scenarios", default="one,pair,small-big,one-manual,manual")
    parser.add_argument("--cities", type=int, default=40, help="cities per fleet of the pair")
    parser.add_argument("--small", type=int, default=16)
    parser.add_argument("--instances", type=int, default=12)
    parser.add_argument("--warm-pools", type=int, default=8)
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--offset", type=float, default=3.0, help="seconds between the fleets' starts")
    parser.add_argument("--lockstep", action="store_true", help="also the pair and small+big at offset 0")
    parser.add_argument(
        "--sharing",
        type=json.loads,
        default=None,
        help='a `sharing:` block (JSON) every fleet declares, e.g. \'{"share": "50%%"}\' (default: none)',
    )
    parser.add_argument("--json", type=Path)
    add_result_options(parser)
    args = parser.parse_args()
    run_started = started_now()
    with printed_lines() as printed:
        plan = [(scenario, args.offset) for scenario in args.scenarios.split(",")]
        if args.lockstep:
            plan += [(scenario, 0.0) for scenario in ("pair", "small-big")]
        results = [measure(scenario, offset, args) for scenario, offset in plan]
        spans = {r["scenario"]: r["makespan_seconds"] for r in results if r["scenario"].startswith("one")}
        print(
            "scenario | offset s | fleets | RLE | makespan (sim s) | vs one | idle share | warm | across | lost / dup | real s"
        )
        for r in results:
            reference = spans.get(REFERENCE.get(r["scenario"], ""))
            ratio = f"{r['makespan_seconds'] / reference:.2f}×" if reference else "—"
            offset = "—" if r["offset_s"] is None else f"{r['offset_s']:g}"
            print(
                f"{r['scenario']} | {offset} | {' + '.join(r['fleets'])} | {r['resource_limit_exceeded']} | "
                f"{r['makespan_seconds']:,} | {ratio} | {100 * r['idle_share']:.2f} % | {r['warm_starts']} | "
                f"{r['pools_across_runs']} | {r['lost']} / {r['duplicated']} | {r['real_s']}"
            )
        if args.json:
            args.json.write_text(json.dumps(results, indent=2))
    write_result(
        "simulate_shared_account",
        {"options": options(args), "scenarios": results, "printed": printed},
        run_started,
        directory=args.results_dir,
    )


if __name__ == "__main__":
    main()
