"""Shares and priorities between fleets, predicted by ``simulate`` (virtual time, no Airflow): a small fleet started
beside a big one that had the account first, without and with ``sharing:``.

The same generated fleets as ``shared_account.py`` (one warm-pool key, every spec declaring the whole account:
``--instances`` ml.m5.xlarge, ``--warm-pools``; the first ``--small`` of its durations go to ``small``, the rest of
``2 × --cities`` to ``big``). ``big`` starts first, ``small`` ``--offset`` seconds later. Scenarios: ``none`` (no
sharing: first come, first served), ``equal`` (both 50 %), ``priority`` (small priority 10, no shares), ``share``
(small 40 %, big 0 %). Printed per scenario: each fleet's makespan (its first creation to its last end), the
account's, ResourceLimitExceeded answers, warm starts, pools taken across fleets, idle-pool share, lost /
duplicated cities. Usage::

    cd benchmarks && ../.venv/bin/python simulate_shares.py [--cities 40] [--small 16] [--offset 3]
"""

from __future__ import annotations

import argparse
import tempfile
from pathlib import Path
from typing import Any

import yaml

from result_file import add_result_options, options, printed_lines, started_now, write_result
from sagemaker_fleet.fleetspec import load_fleet_spec
from sagemaker_fleet.simulate import AccountRun, SimulateOptions, simulate_account
from shared_account import durations, fleet_file

RUN_KEY = "20261129"
SCENARIOS: dict[str, tuple[dict[str, Any] | None, dict[str, Any] | None]] = {  # (small's, big's) sharing
    "none": (None, None),
    "equal": ({"share": "50%"}, {"share": "50%"}),
    "priority": ({"priority": 10}, {"priority": 0}),
    "share": ({"share": "40%"}, {"share": "0%"}),
}


def measure(name: str, args: argparse.Namespace, folder: Path) -> dict[str, Any]:
    every = durations(args)
    small_sharing, big_sharing = SCENARIOS[name]
    paths = {}
    for fleet, seconds, sharing in (
        ("big", every[args.small :], big_sharing),
        ("small", every[: args.small], small_sharing),
    ):
        (folder / name).mkdir(exist_ok=True)
        path = fleet_file(folder / name, fleet, seconds, args)
        if sharing is not None:
            data = yaml.safe_load(path.read_text())
            data["sharing"] = sharing
            path.write_text(yaml.safe_dump(data, sort_keys=False))
        paths[fleet] = path
    runs = [
        AccountRun(load_fleet_spec(paths["big"]), RUN_KEY, 0.0, str(paths["big"])),
        AccountRun(load_fleet_spec(paths["small"]), RUN_KEY, args.offset, str(paths["small"])),
    ]
    doc = simulate_account(runs, SimulateOptions(seed=args.seed)).to_json()
    account = doc["account"]
    fleets = {run["fleet"]: run for run in doc["runs"]}
    return {
        "scenario": name,
        "small_makespan": fleets["small"]["makespan_seconds"],
        "big_makespan": fleets["big"]["makespan_seconds"],
        "account_makespan": account["makespan_seconds"],
        "rle": account["resource_limit_exceeded"],
        "warm": account["warm_starts"],
        "across": account["pools_across_runs"],
        "idle": account["idle_share"],
        "lost": account["lost"],
        "duplicated": account["duplicated"],
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--cities", type=int, default=40)
    parser.add_argument("--small", type=int, default=16)
    parser.add_argument("--instances", type=int, default=12)
    parser.add_argument("--warm-pools", type=int, default=8)
    parser.add_argument("--offset", type=float, default=3.0)
    parser.add_argument("--seed", type=int, default=7)
    add_result_options(parser)
    args = parser.parse_args()
    run_started = started_now()
    rows = []
    with printed_lines() as printed:
        print(
            "| scenario | small fleet (s) | big fleet (s) | account (s) | RLE | warm | pools across | idle | lost / dup |"
        )
        print("|---|---|---|---|---|---|---|---|---|")
        with tempfile.TemporaryDirectory() as tmp:
            for name in SCENARIOS:
                r = measure(name, args, Path(tmp))
                rows.append(r)
                print(
                    f"| {r['scenario']} | {r['small_makespan']:,} | {r['big_makespan']:,} | {r['account_makespan']:,} "
                    f"| {r['rle']} | {r['warm']} | {r['across']} | {r['idle']:.2%} | {r['lost']} / {r['duplicated']} |"
                )
    write_result(
        "simulate_shares",
        {"options": options(args), "scenarios": rows, "printed": printed},
        run_started,
        directory=args.results_dir,
    )


if __name__ == "__main__":
    main()
