"""Real orchestration latency from an end-to-end run: a job's end → its successor's CreateTrainingJob.

Reads the simulator's job list saved by the e2e tests (``simulator-jobs.json``: each job's pool hand-over in
``warm_pool.ReusedByJob``) and the simulator speed, and prints the gaps in real seconds (P50/P90/P99/max) and
in simulated seconds. Usage::

    python benchmarks/orchestration_latency.py /tmp/e2e-local/*/simulator-jobs.json --speed 40
"""

from __future__ import annotations

import argparse
import json
import math
from pathlib import Path


def percentile(values: list[float], share: float) -> float:
    ordered = sorted(values)
    return ordered[max(0, math.ceil(share * len(ordered)) - 1)]


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("jobs", type=Path)
    parser.add_argument("--speed", type=float, required=True)
    args = parser.parse_args()
    jobs = {job["name"]: job for job in json.loads(args.jobs.read_text())}
    gaps = []
    for job in jobs.values():
        successor = (job.get("warm_pool") or {}).get("ReusedByJob")
        if successor in jobs:
            gaps.append(jobs[successor]["created_at"] - job["ended_at"])
    real = [gap / args.speed for gap in gaps]
    print(f"{len(gaps)} pool hand-overs, simulator speed {args.speed:g}×")
    print("            P50      P90      P99      max")
    print("real s  " + "".join(f"{percentile(real, q):9.1f}" for q in (0.5, 0.9, 0.99, 1.0)))
    print("sim s   " + "".join(f"{percentile(gaps, q):9.0f}" for q in (0.5, 0.9, 0.99, 1.0)))


if __name__ == "__main__":
    main()
