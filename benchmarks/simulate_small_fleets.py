"""``sagemaker-fleet simulate --compare`` on the generated 30-store fleets, planned against naive per seed.

Simulated in virtual time, no Airflow: the figures do not depend on the machine or its load. Each fleet is
``store_fleet(seed)`` of ``tests/unit/sim/small_fleets.py`` (30 stores on two instance types, two on spot, one on
another role), written as a fleet YAML file (read back, it must resolve to the same spec but for ``sharing``, which a
file without it resolves to the account's board at share 0, priority 0) and run through the
command itself, ``python -m sagemaker_fleet.cli.main simulate FLEET.yaml --compare --run-key K --seed S``, once with
``--json`` for the figures and once without for the ``why:`` lines the command prints when planned does worse.
Printed per fleet seed: warm starts, makespan and cost, planned / naive, and the range over the seeds. Usage::

    python benchmarks/simulate_small_fleets.py [--seeds 1-10] [--run-key 20261129] [--seed 7]
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import TYPE_CHECKING, Any

import yaml

from result_file import add_result_options, options, printed_lines, started_now, write_result

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO / "tests"))

from sagemaker_fleet.fleetspec import load_fleet_spec  # noqa: E402
from unit.sim.small_fleets import store_fleet  # noqa: E402  (the tests' fleets, as the tests build them)

if TYPE_CHECKING:
    from sagemaker_fleet.fleetspec.model import FleetSpec


def fleet_yaml(spec: FleetSpec) -> str:
    """The spec as a fleet file: every value ``store_fleet`` sets, the rest left to the defaults."""
    cities = []
    for city in spec.cities:
        entry: dict[str, Any] = {
            "name": city.name,
            "train_s3_uri": city.train_s3_uri,
            "role_arn": city.role_arn,
            "image_uri": city.image_uri,
            "instance_type": city.instance_type,
            "expected_seconds": city.expected_seconds,
        }
        if city.spot is not None:
            entry["spot"] = dataclasses.asdict(city.spot)
        cities.append(entry)
    quotas = {
        itype: {k: v for k, v in dataclasses.asdict(quota).items() if v is not None}
        for itype, quota in spec.quotas.items()
    }
    document = {
        "fleet": spec.fleet,
        "region": spec.region,
        "role_arn": spec.role_arn,
        "image_uri": spec.image_uri,
        "output_s3_uri": spec.output_s3_uri,
        "quotas": quotas,
        "cities": cities,
    }
    return yaml.safe_dump(document, sort_keys=False)


def simulate(path: Path, run_key: str, seed: int, *extra: str) -> str:
    args = [sys.executable, "-m", "sagemaker_fleet.cli.main", "simulate", str(path), "--compare"]
    args += ["--run-key", run_key, "--seed", str(seed), *extra]
    return subprocess.run(args, check=True, capture_output=True, text=True).stdout


def seeds_of(text: str) -> list[int]:
    first, _, last = text.partition("-")
    return list(range(int(first), int(last or first) + 1))


def _span(values: list[float], fmt: str = "{:,}") -> str:
    low, high = min(values), max(values)
    return fmt.format(low) if low == high else f"{fmt.format(low)}–{fmt.format(high)}"


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument(
        "--seeds", default="1-10", help="fleet seeds of store_fleet, FIRST-LAST (default 1-10)"
    )
    parser.add_argument("--run-key", default="20261129", help="the simulated run's key (default 20261129)")
    parser.add_argument("--seed", type=int, default=7, help="the simulator's seed (simulate's default, 7)")
    add_result_options(parser)
    args = parser.parse_args()
    run_started = started_now()
    rows: list[dict[str, Any]] = []
    with printed_lines() as printed, tempfile.TemporaryDirectory() as tmp:
        print(
            f"30-store fleets of tests/unit/sim/small_fleets.py, run key {args.run_key}, simulator seed {args.seed}"
        )
        print(
            f"{'fleet seed':>10} {'warm planned':>12} {'naive':>6} {'plan':>5} {'makespan planned':>16} {'naive':>7}"
            f" {'planned/naive':>13} {'cost planned':>12} {'naive':>6}"
        )
        for fleet_seed in seeds_of(args.seeds):
            spec = store_fleet(fleet_seed)
            path = Path(tmp) / f"stores-{fleet_seed}.yaml"
            path.write_text(fleet_yaml(spec), encoding="utf-8")
            read = load_fleet_spec(path)
            # a fleet file without ``sharing:`` takes part in the account's board (share 0, priority 0), which
            # store_fleet's spec, built in Python, leaves out: the command runs the file, as a user's would
            same = dataclasses.replace(read, warnings=(), sharing=None) == dataclasses.replace(
                spec, warnings=()
            )
            if not same:
                raise SystemExit(f"{path.name}: the fleet file does not resolve to store_fleet({fleet_seed})")
            doc = json.loads(simulate(path, args.run_key, args.seed, "--json"))
            planned, naive = doc["planned"], doc["naive"]
            why = [
                line
                for line in simulate(path, args.run_key, args.seed).splitlines()
                if line.startswith("why:")
            ]
            row = {
                "fleet_seed": fleet_seed,
                "sharing": None if read.sharing is None else dataclasses.asdict(read.sharing),
                "warm_planned": planned["warm_starts"],
                "warm_naive": naive["warm_starts"],
                "warm_in_plan": planned["plan"]["warm_starts"],
                "makespan_planned_s": planned["makespan_seconds"],
                "makespan_naive_s": naive["makespan_seconds"],
                "makespan_planned_over_naive": round(
                    planned["makespan_seconds"] / naive["makespan_seconds"], 4
                ),
                "cost_planned_usd": round(planned["cost_usd"], 4),
                "cost_naive_usd": round(naive["cost_usd"], 4),
                "quota_rejections_naive": naive["quota_rejections"],
                "why": why,
                "planned": planned,
                "naive": naive,
            }
            rows.append(row)
            print(
                f"{fleet_seed:>10} {row['warm_planned']:>12} {row['warm_naive']:>6} {row['warm_in_plan']:>5}"
                f" {row['makespan_planned_s']:>16,} {row['makespan_naive_s']:>7,}"
                f" {row['makespan_planned_over_naive']:>13.3f} {row['cost_planned_usd']:>12.2f}"
                f" {row['cost_naive_usd']:>6.2f}"
            )
            for line in why:
                print(f"{'':>10} {line}")
        shorter = [100 * (1 - r["makespan_planned_over_naive"]) for r in rows]
        summary = {
            "warm_planned": _span([r["warm_planned"] for r in rows]),
            "warm_naive": _span([r["warm_naive"] for r in rows]),
            "planned_shorter_pct": _span(shorter, "{:.0f}"),
            "cost_planned_over_naive": _span(
                [r["cost_planned_usd"] / r["cost_naive_usd"] for r in rows], "{:.2f}"
            ),
            "seeds_with_fewer_warm": [r["fleet_seed"] for r in rows if r["warm_planned"] < r["warm_naive"]],
            "seeds_with_why": [r["fleet_seed"] for r in rows if r["why"]],
        }
        print(
            f"seeds {args.seeds}: planned {summary['warm_planned']} warm starts, naive {summary['warm_naive']};"
            f" planned {summary['planned_shorter_pct']} % shorter; cost planned/naive"
            f" {summary['cost_planned_over_naive']}; fewer warm on seeds {summary['seeds_with_fewer_warm']},"
            f" why: on seeds {summary['seeds_with_why']}"
        )
    write_result(
        "simulate_small_fleets",
        {"options": options(args), "summary": summary, "fleets": rows, "printed": printed},
        run_started,
        directory=args.results_dir,
    )


if __name__ == "__main__":
    main()
