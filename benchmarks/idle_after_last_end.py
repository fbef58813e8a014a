"""Idle warm-pool time after a run's last job ended, in ``simulate`` (planned strategy), for each given fleet: the
old way (a group's last pools ended once idle, by the sweep after) and the new one (keep-alive 0 on a group's
running jobs once none of its cities is left to start) side by side, in one run.

Run: ``.venv/bin/python benchmarks/idle_after_last_end.py [FLEET.yaml ...] [--seed 7]``

A pool still ``Available`` when the run's last job ends bills until it is ended or expires. Before, the run's
poller ended a pool in the sweep after no city of its group was left to start (and the DAG's ``release_pools``
task ends any left at the run's end), so up to one sweep per pool remained. Now a group's last jobs end without a
pool. For each fleet and way it prints the retained (idle) seconds of the whole run and the part of them after
the last job's end; "old/new" is the ratio of the whole run's idle seconds.
"""

from __future__ import annotations

import argparse
from pathlib import Path

from result_file import add_result_options, options, started_now, write_result
from sagemaker_fleet.fleetspec import load_fleet_spec
from sagemaker_fleet.simulate import FleetSimulation, SimulateOptions

ROOT = Path(__file__).resolve().parent.parent
FLEETS = [
    ROOT / "dags" / "fleets" / "demo.yaml",
    ROOT / "dags" / "fleets" / "small.yaml",
    ROOT / "tests" / "e2e" / "fleets" / "e2e.yaml",
]


def idle_after_last_end(path: Path, seed: int, tail_release: bool) -> tuple[int, float, int]:
    """(retained seconds of the run, of them after the run's last job end, makespan)."""
    spec = load_fleet_spec(path)
    sim = FleetSimulation(spec, SimulateOptions(strategy="planned", seed=seed, tail_release=tail_release))
    doc = sim.run().to_json()
    describes = sim.describes()
    last = max(float(d["TrainingEndTime"]) for d in describes if d.get("TrainingEndTime"))
    after = 0.0
    for d in describes:
        pool = d.get("WarmPoolStatus") or {}
        if d.get("TrainingEndTime"):
            end = float(d["TrainingEndTime"]) + float(pool.get("ResourceRetainedBillableTimeInSeconds", 0))
            after += max(0.0, end - last)
    return int(doc["retained_billable_seconds"]), after, int(doc["makespan_seconds"])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("fleets", nargs="*", type=Path, default=FLEETS)
    parser.add_argument("--seed", type=int, default=7)
    add_result_options(parser)
    args = parser.parse_args()
    run_started = started_now()
    rows = []
    print(f"{'':14} {'idle s (run)':>23} {'after last end s':>19} {'makespan s':>17}")
    print(f"{'fleet':<14} {'old':>7} {'new':>7} {'old/new':>7} {'old':>9} {'new':>9} {'old':>8} {'new':>8}")
    for path in args.fleets:
        old_idle, old_after, old_span = idle_after_last_end(path, args.seed, tail_release=False)
        new_idle, new_after, new_span = idle_after_last_end(path, args.seed, tail_release=True)
        ratio = f"{old_idle / new_idle:.2f}" if new_idle else "—"
        print(
            f"{path.stem:<14} {old_idle:>7} {new_idle:>7} {ratio:>7} {old_after:>9.0f} {new_after:>9.0f} "
            f"{old_span:>8} {new_span:>8}"
        )
        rows.append(
            {
                "fleet": path.stem,
                "old": {"idle_s": old_idle, "after_last_end_s": old_after, "makespan_s": old_span},
                "new": {"idle_s": new_idle, "after_last_end_s": new_after, "makespan_s": new_span},
            }
        )
    write_result(
        "idle_after_last_end",
        {"options": options(args), "fleets": rows},
        run_started,
        directory=args.results_dir,
    )


if __name__ == "__main__":
    main()
