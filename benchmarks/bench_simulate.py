"""``sagemaker-fleet simulate``: real seconds per run, and planned vs naive side by side (demo and 1,000 cities).

Run: ``.venv/bin/python benchmarks/bench_simulate.py [--seed 7] [--scale 5]``

Fleets: ``dags/fleets/demo.yaml`` (200 cities) and the same layout × ``scale`` (1,000 cities by default: every
demo city five times, quotas five times larger). For each fleet and strategy it prints the real seconds of the
in-process run and of the whole command (``python -m sagemaker_fleet.cli.main simulate … --json``: interpreter
start, imports, spec, plan, run, pricing), then the simulated outcome with the ratio naive / planned.
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import yaml

from result_file import add_result_options, options, printed_lines, started_now, write_result
from sagemaker_fleet.fleetspec import load_fleet_spec
from sagemaker_fleet.simulate import STRATEGIES, SimulateOptions, simulate_fleet

DEMO = Path(__file__).resolve().parent.parent / "dags" / "fleets" / "demo.yaml"
ROWS = (
    ("warm starts", "warm_starts"),
    ("cold starts", "cold_starts"),
    ("re-submitted", "resubmitted"),
    ("makespan s", "makespan_seconds"),
    ("retained pool s", "retained_billable_seconds"),
    ("cost USD", "cost_usd"),
    ("retained cost USD", "retained_cost_usd"),
    ("quota rejections", "quota_rejections"),
)


def scaled_demo(scale: int) -> str:
    """The demo fleet's cities ``scale`` times (suffixed -0, -1, …) with ``scale`` × its quotas."""
    data = yaml.safe_load(DEMO.read_text(encoding="utf-8"))
    data["fleet"] = f"demo-x{scale}"
    data["cities"] = [
        {**city, "name": f"{city['name']}-{k}", "train_s3_uri": f"{city['train_s3_uri'].rstrip('/')}-{k}/"}
        for k in range(scale)
        for city in data["cities"]
    ]
    data["quotas"] = {
        itype: {key: value * scale for key, value in quota.items()} for itype, quota in data["quotas"].items()
    }
    return yaml.safe_dump(data, sort_keys=False)


def command_seconds(path: Path, strategy: str, seed: int) -> float:
    args = [sys.executable, "-m", "sagemaker_fleet.cli.main", "simulate", str(path), "--json"]
    began = time.perf_counter()
    subprocess.run([*args, "--strategy", strategy, "--seed", str(seed)], check=True, capture_output=True)
    return time.perf_counter() - began


def _cell(value: Any) -> str:
    return f"{value:,.2f}" if isinstance(value, float) else f"{value:,}"


def bench(path: Path, seed: int) -> None:
    spec = load_fleet_spec(path)
    docs: dict[str, dict[str, Any]] = {}
    print(f"\n{spec.fleet}: {len(spec.cities)} cities, seed {seed}")
    print(f"{'':26} {'in-process s':>12} {'command s':>10}")
    for strategy in STRATEGIES:
        began = time.perf_counter()
        docs[strategy] = simulate_fleet(spec, SimulateOptions(strategy=strategy, seed=seed)).to_json()
        real = time.perf_counter() - began
        print(f"  {strategy:24} {real:12.2f} {command_seconds(path, strategy, seed):10.2f}")
    planned, naive = docs["planned"], docs["naive"]
    print(f"{'':26} {'planned':>12} {'naive':>10} {'naive/planned':>14}")
    rows = [(label, planned[key], naive[key]) for label, key in ROWS]
    rows += [(f"{op} calls", planned["api_calls"][op], naive["api_calls"][op]) for op in planned["api_calls"]]
    for label, p, n in rows:
        ratio = f"{n / p:.2f}" if p else "—"
        print(f"  {label:24} {_cell(p):>12} {_cell(n):>10} {ratio:>14}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--scale", type=int, default=5, help="the large fleet is demo.yaml × scale")
    add_result_options(parser)
    args = parser.parse_args()
    run_started = started_now()
    with printed_lines() as printed:
        bench(DEMO, args.seed)
        with tempfile.TemporaryDirectory() as tmp:
            large = Path(tmp) / f"demo-x{args.scale}.yaml"
            large.write_text(scaled_demo(args.scale), encoding="utf-8")
            bench(large, args.seed)
    write_result(
        "bench_simulate",
        {"options": options(args), "printed": printed},
        run_started,
        directory=args.results_dir,
    )


if __name__ == "__main__":
    main()
