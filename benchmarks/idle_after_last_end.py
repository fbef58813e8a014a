"""Idle warm-pool time after a run's last job ended, in ``simulate`` (planned strategy), for each given fleet.

Run: ``.venv/bin/python benchmarks/idle_after_last_end.py [FLEET.yaml ...] [--seed 7]``

A pool still ``Available`` when the run's last job ends bills until it is ended or expires. The run's poller ends
a pool in the sweep after no city of its group is left to start (and the DAG's ``release_pools`` task ends any
left at the run's end), so what remains is at most one sweep per pool. For each fleet it prints the retained
(idle) seconds of the whole run, the part of them after the last job's end, and that part's share.
"""

from __future__ import annotations

import argparse
from pathlib import Path

from sagemaker_fleet.sim.driver import FleetSimulation, SimulateOptions
from sagemaker_fleet.spec import load_fleet_spec

ROOT = Path(__file__).resolve().parent.parent
FLEETS = [ROOT / "dags" / "fleets" / "demo.yaml", ROOT / "dags" / "fleets" / "small.yaml",
          ROOT / "tests" / "e2e" / "fleets" / "e2e.yaml"]


def idle_after_last_end(path: Path, seed: int) -> tuple[int, float, float]:
    spec = load_fleet_spec(path)
    sim = FleetSimulation(spec, SimulateOptions(strategy="planned", seed=seed))
    retained = int(sim.run().to_json()["retained_billable_seconds"])
    describes = sim.describes()
    last = max(float(d["TrainingEndTime"]) for d in describes if d.get("TrainingEndTime"))
    after, worst = 0.0, 0.0
    for d in describes:
        pool = d.get("WarmPoolStatus") or {}
        if pool.get("Status") == "Terminated" and d.get("TrainingEndTime"):
            end = float(d["TrainingEndTime"]) + float(pool.get("ResourceRetainedBillableTimeInSeconds", 0))
            after += max(0.0, end - last)
            worst = max(worst, end - last)
    return retained, after, worst


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("fleets", nargs="*", type=Path, default=FLEETS)
    parser.add_argument("--seed", type=int, default=7)
    args = parser.parse_args()
    print(f"{'fleet':<28} {'idle s (run)':>13} {'after last end':>15} {'share':>7} {'longest pool':>13}")
    for path in args.fleets:
        retained, after, worst = idle_after_last_end(path, args.seed)
        share = after / retained if retained else 0.0
        print(f"{path.name:<28} {retained:>13} {after:>15.0f} {share:>7.1%} {max(0.0, worst):>12.0f}s")


if __name__ == "__main__":
    main()
