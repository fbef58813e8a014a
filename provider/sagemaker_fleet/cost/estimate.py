"""What a plan is expected to cost before anything is launched (the manual DAG's dry run; pure).

On-demand jobs at the on-demand price for their planned span (start-up included) plus their planned retained
keep-alive; spot jobs at the on-demand equivalent (an upper bound: the real spot discount is only known
afterwards, from BillableTimeInSeconds).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from sagemaker_fleet.cost.prices import PriceBook
    from sagemaker_fleet.spec.model import FleetSpec


def estimate_plan_cost(plan: Mapping[str, Any], spec: FleetSpec, prices: PriceBook) -> dict[str, Any]:
    """Expected USD for the plan JSON (docs/formats.md, plan JSON) of ``spec``, priced by ``prices``."""
    cities = {city.name: city for city in spec.cities}
    jobs = list(plan.get("jobs", []))
    lanes: dict[int, list[Mapping[str, Any]]] = {}
    for job in jobs:
        lanes.setdefault(int(job["lane"]), []).append(job)
    on_demand = spot = retained = 0.0
    for lane_jobs in lanes.values():
        lane_jobs.sort(key=lambda job: int(job["position"]))
        for job, successor in zip(lane_jobs, [*lane_jobs[1:], None], strict=True):
            city = cities[str(job["city"])]
            rate = prices.price(city.instance_type).usd_per_hour * city.instance_count / 3600
            span = int(job["planned_end_seconds"]) - int(job["planned_start_seconds"])
            if job["spot"]:
                spot += span * rate
            else:
                on_demand += span * rate
            if successor is not None and int(job["keep_alive_seconds"]) > 0:
                idle = int(successor["planned_start_seconds"]) - int(job["planned_end_seconds"])
                retained += max(0, min(idle, int(job["keep_alive_seconds"]))) * rate
    return {
        "jobs": len(jobs),
        "on_demand_usd": round(on_demand, 2),
        "spot_upper_bound_usd": round(spot, 2),
        "retained_usd": round(retained, 2),
        "expected_usd": round(on_demand + spot + retained, 2),
    }
