"""What it costs if AWS refuses keep-alive changes of running jobs, in ``simulate`` (planned), side by side in one
run for each given fleet: the simulator accepting them (its default) and refusing them
(``--refuse-keep-alive-while-running``).

Run: ``.venv/bin/python benchmarks/keep_alive_refused.py [FLEET.yaml ...] [--seed 7] [--run-key 20261203]``

AWS documents UpdateTrainingJob(KeepAlivePeriodInSeconds) only for an ended job whose pool is Available. The run's
poller gives a warm-pool group's last running jobs keep-alive 0 so they end without a pool; when that is refused,
each ends with its pool and the poller ends the pool in the sweep that lists it Available. Printed per fleet and
way: the refused changes, the run's idle pool seconds, their cost and share of the run's cost, the longest idle of
a pool that idled and ended (``Terminated``), the idle seconds after the run's last job end, warm starts and makespan.
"""

from __future__ import annotations

import argparse
from pathlib import Path

from result_file import add_result_options, options, started_now, write_result
from sagemaker_fleet.fleetspec import load_fleet_spec
from sagemaker_fleet.simulate import FleetSimulation, SimulateOptions

ROOT = Path(__file__).resolve().parent.parent
FLEETS = [ROOT / "dags" / "fleets" / "demo.yaml", ROOT / "dags" / "fleets" / "weekly.yaml"]
REFUSED = "UpdateTrainingJob:ValidationException"


def measure(path: Path, seed: int, run_key: str, refuse: bool) -> dict[str, float]:
    spec = load_fleet_spec(path)
    options = SimulateOptions(
        strategy="planned", seed=seed, run_key=run_key, refuse_keep_alive_while_running=refuse
    )
    sim = FleetSimulation(spec, options)
    doc = sim.run().to_json()
    describes = sim.describes()
    last = max(sim.ended_at.values())
    after = longest = 0.0
    for described in describes:
        pool = described.get("WarmPoolStatus") or {}
        retained = float(pool.get("ResourceRetainedBillableTimeInSeconds", 0))
        after += max(0.0, sim.ended_at[described["TrainingJobName"]] + retained - last)
        if pool.get("Status") == "Terminated":
            longest = max(longest, retained)
    return {
        "refused": sim.engine.api_calls()["errors"].get(REFUSED, 0),
        "idle_s": doc["retained_billable_seconds"],
        "idle_usd": doc["retained_cost_usd"],
        "idle_pct": 100 * doc["retained_cost_usd"] / doc["cost_usd"],
        "longest_s": longest,
        "after_s": after,
        "warm": doc["warm_starts"],
        "makespan_s": doc["makespan_seconds"],
        "cost_usd": doc["cost_usd"],
    }


ROWS = (
    ("keep-alive changes refused", "refused", "{:,.0f}"),
    ("idle pool s (run)", "idle_s", "{:,.0f}"),
    ("idle pool USD", "idle_usd", "{:,.4f}"),
    ("idle share of cost %", "idle_pct", "{:.2f}"),
    ("longest idle of an ended pool s", "longest_s", "{:,.0f}"),
    ("idle after last end s", "after_s", "{:,.0f}"),
    ("warm starts", "warm", "{:,.0f}"),
    ("makespan s", "makespan_s", "{:,.0f}"),
    ("cost USD", "cost_usd", "{:,.2f}"),
)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("fleets", nargs="*", type=Path, default=FLEETS)
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--run-key", default=SimulateOptions().run_key)
    add_result_options(parser)
    args = parser.parse_args()
    run_started = started_now()
    fleets = []
    for path in args.fleets:
        accepted = measure(path, args.seed, args.run_key, refuse=False)
        refused = measure(path, args.seed, args.run_key, refuse=True)
        print(f"\n{path.stem} (seed {args.seed}, run {args.run_key})")
        print(f"{'':32} {'accepted':>10} {'refused':>10} {'refused/accepted':>17}")
        for label, key, fmt in ROWS:
            ratio = f"{refused[key] / accepted[key]:.2f}" if accepted[key] else "—"
            print(f"{label:32} {fmt.format(accepted[key]):>10} {fmt.format(refused[key]):>10} {ratio:>17}")
        fleets.append({"fleet": path.stem, "accepted": accepted, "refused": refused})
    write_result(
        "keep_alive_refused",
        {"options": options(args), "fleets": fleets},
        run_started,
        directory=args.results_dir,
    )


if __name__ == "__main__":
    main()
