"""What the Fleet view shows of the account beside the run (pure): the run's instances and the other runs' per
instance type against the quota, and the warm pools that went between the run and other runs.

Other runs appear as counts of instances; their jobs are named only where the view's disclosure allows
(:mod:`sagemaker_fleet.cost.disclosure`), which :func:`other_fleets` tells the plugin whom to ask about.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import TYPE_CHECKING, Any

from sagemaker_fleet.fleetspec.names import fleet_of_job
from sagemaker_fleet.jobs.statuses import POOL_AVAILABLE
from sagemaker_fleet.jobs.statuses import TERMINAL_STATUSES as TERMINAL
from sagemaker_fleet.plan.fleet_plan import FleetPlan

if TYPE_CHECKING:
    from sagemaker_fleet.cost.model import CostLine
    from sagemaker_fleet.fleetspec.model import FleetSpec


@dataclass(frozen=True)
class AccountSnapshot:
    """The account's jobs that are not the run's, as one refresh listed them (:mod:`.source`): instances held per
    instance type by running jobs and by Available pools, jobs holding capacity of a type not known (not described
    yet, or ``other_denied`` of them the credentials may not describe), and the other runs' jobs whose pool a job
    of the run took (taker → giver, from the listing's ``ReusedByJob``). ``listed_since``: None, not looked at.

    What the run's tracker reads of the account, as the triggerer's sweeps give it (:mod:`.model`: the view's
    waiting reasons are the triggerer's): ``listed``, the other runs' jobs as the listing summarised them;
    ``described``, the descriptions of those that hold capacity; ``board``, the account's board's records (None:
    the fleet does not share, or the board was not read)."""

    listed_since: datetime | None = None
    other_running: Mapping[str, int] = field(default_factory=dict)
    other_pools: Mapping[str, int] = field(default_factory=dict)
    other_unknown: int = 0
    other_denied: int = 0
    givers: Mapping[str, str] = field(default_factory=dict)
    listed: Sequence[Mapping[str, Any]] = ()
    described: Mapping[str, Mapping[str, Any]] = field(default_factory=dict)
    board: Sequence[object] | None = None


def other_fleets(
    fleet: str, describes: Iterable[Mapping[str, Any]], snapshot: AccountSnapshot
) -> frozenset[str]:
    """The fleets, other than the run's, whose jobs a warm pool went to or came from: the only other fleets the
    view could name, so the only ones whose readability is worth asking about."""
    jobs = list(describes)
    own = {str(job.get("TrainingJobName")) for job in jobs}
    names = set(snapshot.givers.values()) | {
        str(taker)
        for job in jobs
        if (taker := (job.get("WarmPoolStatus") or {}).get("ReusedByJob")) and taker not in own
    }
    fleets = {other for name in names if (other := fleet_of_job(name)) is not None}
    return frozenset(fleets - {fleet})


def _quotas(spec: FleetSpec, plan: Mapping[str, Any] | None) -> dict[str, int]:
    """Instances per type the run was planned within (the plan's quotas, read from Service Quotas), else the
    spec's."""
    quotas = FleetPlan.from_json(dict(plan)).quotas if plan else {}
    return {itype: q.instances for itype, q in (quotas or spec.quotas).items()}


def account_json(
    snapshot: AccountSnapshot, spec: FleetSpec, plan: Mapping[str, Any] | None, lines: Sequence[CostLine]
) -> dict[str, Any]:
    """Each instance type the run uses: its quota, what the run holds (running jobs, Available pools) and what the
    account's other runs hold; and the warm pools that went between this run and others."""
    quotas = _quotas(spec, plan)
    types = sorted({city.instance_type for city in spec.cities} | {line.instance_type for line in lines})
    capacity = []
    for itype in types:
        mine = [line for line in lines if line.instance_type == itype]
        running = sum(line.instance_count for line in mine if line.status not in TERMINAL)
        pools = sum(
            line.instance_count
            for line in mine
            if line.status in TERMINAL and line.warm_pool_status == POOL_AVAILABLE
        )
        others = snapshot.other_running.get(itype, 0) + snapshot.other_pools.get(itype, 0)
        quota = quotas.get(itype)
        capacity.append(
            {
                "instance_type": itype,
                "quota_instances": quota,
                "run_running": running,
                "run_pools": pools,
                "other_running": snapshot.other_running.get(itype, 0),
                "other_pools": snapshot.other_pools.get(itype, 0),
                "free": max(0, quota - running - pools - others) if quota is not None else None,
            }
        )
    return {
        "looked_up": snapshot.listed_since is not None,
        "listed_since": snapshot.listed_since.isoformat() if snapshot.listed_since else None,
        "capacity": capacity,
        "other_jobs_unknown": snapshot.other_unknown,
        "other_jobs_denied": snapshot.other_denied,
        "pools_taken_from_other_runs": [
            {"city": line.city, "job_name": line.job_name, "from_job": line.pool_from_job}
            for line in lines
            if line.pool_from_other_run
        ],
        "pools_given_to_other_runs": [
            {"city": line.city, "job_name": line.job_name, "taken_by_job": line.reused_by_job}
            for line in lines
            if line.reused_by_other_run
        ],
    }
