"""The outcome of several fleet runs on one account: each run's simulate JSON and the account's totals.

Each run is priced and counted as ``simulate`` prices one fleet (:class:`~.result.SimulationResult`, its own calls).
The account's figures are read from the engine — what SageMaker would show of the account after the runs:

- ``makespan_seconds``: from the account's first CreateTrainingJob to the end of its last job (runs may start at
  offsets, so not from any one run's start);
- ``resource_limit_exceeded``, ``throttled``, ``api_calls``: the engine's counters, every run's calls;
- ``idle_share``: what idle warm pools cost (retained seconds) as a share of the whole cost;
- ``pools_across_runs``: jobs whose warm pool a job of another run took over (``ReusedByJob``): another fleet's,
  or the same fleet's under another run key;
- ``lost``: cities of a run with no completed job (failed ones too, as ``benchmarks/shared_account.py`` counts
  them through Airflow); ``duplicated``: completed jobs beyond one per city and run.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from sagemaker_fleet.simulate.result import COUNTED_OPERATIONS

if TYPE_CHECKING:
    from sagemaker_fleet.fleetspec.model import InstanceQuota
    from sagemaker_fleet.simulate.result import SimulationResult


@dataclass(frozen=True)
class Crossings:
    """Warm pools handed between runs: per run, its jobs whose pool another run's job took (``given``) and its
    jobs that started on another run's pool (``taken``)."""

    given: tuple[int, ...]
    taken: tuple[int, ...]

    @property
    def total(self) -> int:
        return sum(self.given)


def crossings(jobs: Sequence[Mapping[str, Any]], run_of: Mapping[str, int], runs: int) -> Crossings:
    """Read the pools handed between runs from the engine's jobs (``run_of``: job name → its run's index)."""
    given, taken = [0] * runs, [0] * runs
    for job in jobs:
        successor = (job.get("warm_pool") or {}).get("ReusedByJob")
        giver, taker = run_of.get(str(job["name"])), run_of.get(str(successor))
        if giver is not None and taker is not None and giver != taker:
            given[giver] += 1
            taken[taker] += 1
    return Crossings(tuple(given), tuple(taken))


def lost_and_duplicated(
    jobs: Sequence[Mapping[str, Any]],
    cities: Mapping[str, tuple[int, str]],
    expected: Sequence[tuple[int, str]],
) -> tuple[int, int]:
    """Cities of a run without a completed job, and completed jobs beyond one per city and run (``cities``: job
    name → (run index, city); ``expected``: every (run index, city))."""
    completed = Counter(
        cities[str(job["name"])]
        for job in jobs
        if job.get("status") == "Completed" and str(job["name"]) in cities
    )
    lost = sum(1 for key in expected if completed[key] == 0)
    duplicated = sum(max(0, n - 1) for n in completed.values())
    return lost, duplicated


@dataclass(frozen=True)
class AccountResult:
    """Several runs on one engine (docs/formats.md, simulate JSON of several fleets)."""

    runs: tuple[SimulationResult, ...]
    offsets: tuple[float, ...]
    quotas: Mapping[str, InstanceQuota]
    quota_notes: tuple[str, ...]
    makespan_seconds: int
    api_calls: Mapping[str, int]
    throttled: int
    resource_limit_exceeded: int
    crossings: Crossings
    lost: int
    duplicated: int
    #: each run's spec as the caller named it (the command line: the file), None where it named none
    labels: tuple[str | None, ...] = field(default=(), compare=False)

    def to_json(self) -> dict[str, Any]:
        """``{"runs": [simulate JSON + extras], "account": {…}}`` (docs/formats.md)."""
        runs = []
        for index, result in enumerate(self.runs):
            doc = result.to_json()
            doc["spec"] = self.labels[index] if index < len(self.labels) else None
            doc["offset_seconds"] = self.offsets[index]
            doc["pools_to_other_runs"] = self.crossings.given[index]
            doc["pools_from_other_runs"] = self.crossings.taken[index]
            runs.append(doc)
        return {"runs": runs, "account": self.account_json(runs)}

    def account_json(self, runs: Sequence[Mapping[str, Any]]) -> dict[str, Any]:
        cost = sum(doc["cost_usd"] for doc in runs)
        retained = sum(doc["retained_cost_usd"] for doc in runs)
        return {
            "runs": len(runs),
            "jobs": sum(doc["jobs"] for doc in runs),
            "completed": sum(doc["completed"] for doc in runs),
            "failed": sum(doc["failed"] for doc in runs),
            "submissions": sum(doc["submissions"] for doc in runs),
            "warm_starts": sum(doc["warm_starts"] for doc in runs),
            "cold_starts": sum(doc["cold_starts"] for doc in runs),
            "makespan_seconds": self.makespan_seconds,
            "resource_limit_exceeded": self.resource_limit_exceeded,
            "throttled": self.throttled,
            "api_calls": {operation: self.api_calls.get(operation, 0) for operation in COUNTED_OPERATIONS},
            "cost_usd": round(cost, 2),
            "retained_cost_usd": round(retained, 2),
            "idle_share": round(retained / cost, 4) if cost else 0.0,
            "pools_across_runs": self.crossings.total,
            "lost": self.lost,
            "duplicated": self.duplicated,
            "quotas": {
                itype: {
                    "instances": quota.instances,
                    "warm_pools": quota.warm_pools,
                    "spot_instances": quota.spot_instances,
                }
                for itype, quota in self.quotas.items()
            },
            "quota_notes": list(self.quota_notes),
        }
