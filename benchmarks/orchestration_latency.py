"""The hand-off, measured from a run's jobs: a job's end → the CreateTrainingJob of the city it made room for.

Every planned hand-off counts, not only those that reused a pool (which would hide the slow ones whose pool
expired): in a warm-pool group of width W, the city of rank k ≥ W gets its turn when the (k − W + 1)-th of the
group's cities ends, so its gap is its first job's creation less that end. Reads the simulator's job list
(``simulator-jobs.json``, written by the e2e tests and the benchmarks) and the plan the run dispatched by
(``plan.json`` beside it), and prints the gaps in real seconds (P50/P90/P99/max) and in simulated seconds, with
the pool hand-overs (``ReusedByJob``) for comparison. Usage::

    python benchmarks/orchestration_latency.py /tmp/e2e/*/simulator-jobs.json --speed 40
"""

from __future__ import annotations

import argparse
import json
import math
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from result_file import add_result_options, options, started_now, write_result


def percentile(values: Sequence[float], share: float) -> float:
    ordered = sorted(values)
    return ordered[max(0, math.ceil(share * len(ordered)) - 1)] if ordered else float("nan")


def planned_handoffs(jobs: Sequence[Mapping[str, Any]], plan: Mapping[str, Any]) -> list[tuple[str, float]]:
    """(city, gap in simulated seconds) for every planned hand-off of the run."""
    from sagemaker_fleet.dispatch import peak_lanes
    from sagemaker_fleet.plan import FleetPlan

    fleet_plan = FleetPlan.from_json(dict(plan))
    by_name = {str(job["name"]): job for job in jobs}
    gaps: list[tuple[str, float]] = []
    for group in fleet_plan.groups:
        planned = sorted(
            (j for j in fleet_plan.jobs if j.group == group.group),
            key=lambda j: (j.planned_start_seconds, j.lane, j.position),
        )
        width = min(peak_lanes(fleet_plan, group.group), len(planned))
        firsts = [by_name[j.job_name] for j in planned if j.job_name in by_name]
        if len(firsts) < len(planned):
            continue  # the run did not reach every city of the group (a subset or a broken run)
        ends = sorted(float(job["ended_at"]) for job in firsts if job.get("ended_at") is not None)
        for rank, job in enumerate(firsts):
            if rank < width or rank - width >= len(ends):
                continue
            gaps.append((planned[rank].city, float(job["created_at"]) - ends[rank - width]))
    return gaps


def pool_handovers(jobs: Sequence[Mapping[str, Any]]) -> list[float]:
    by_name = {str(job["name"]): job for job in jobs}
    gaps = []
    for job in jobs:
        successor = (job.get("warm_pool") or {}).get("ReusedByJob")
        if successor in by_name:
            gaps.append(float(by_name[successor]["created_at"]) - float(job["ended_at"]))
    return gaps


def table(label: str, gaps: Sequence[float], speed: float) -> str:
    real = [gap / speed for gap in gaps]
    return "\n".join(
        [
            f"{label}: {len(gaps)} (simulator speed {speed:g}×)",
            "            P50      P90      P99      max",
            "real s  " + "".join(f"{percentile(real, q):9.1f}" for q in (0.5, 0.9, 0.99, 1.0)),
            "sim s   " + "".join(f"{percentile(gaps, q):9.0f}" for q in (0.5, 0.9, 0.99, 1.0)),
        ]
    )


def summary(gaps: Sequence[float], speed: float) -> dict[str, Any]:
    """The gaps' count and P50/P90/P99/max, in real and in simulated seconds."""
    quantiles = (0.5, 0.9, 0.99, 1.0)
    return {
        "count": len(gaps),
        "real_s": {
            f"p{round(100 * q)}": round(percentile([g / speed for g in gaps], q), 2) for q in quantiles
        },
        "sim_s": {f"p{round(100 * q)}": round(percentile(gaps, q), 1) for q in quantiles},
    }


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("jobs", type=Path)
    parser.add_argument("--plan", type=Path, help="the run's plan JSON (default: plan.json beside the jobs)")
    parser.add_argument("--speed", type=float, required=True)
    add_result_options(parser)
    args = parser.parse_args()
    run_started = started_now()
    jobs = json.loads(args.jobs.read_text())
    plan = json.loads((args.plan or args.jobs.with_name("plan.json")).read_text())
    planned = [gap for _, gap in planned_handoffs(jobs, plan)]
    handovers = pool_handovers(jobs)
    print(table("planned hand-offs (every one)", planned, args.speed))
    print(table("pool hand-overs (ReusedByJob only)", handovers, args.speed))
    write_result(
        "orchestration_latency",
        {
            "options": options(args),
            "planned_handoffs": summary(planned, args.speed),
            "pool_handovers": summary(handovers, args.speed),
        },
        run_started,
        directory=args.results_dir,
    )


if __name__ == "__main__":
    main()
