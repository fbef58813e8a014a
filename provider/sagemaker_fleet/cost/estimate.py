"""What a plan is expected to cost before anything is launched (the manual DAG's dry run; pure).

On-demand jobs at the on-demand price for their planned span (start-up included) plus their planned retained
keep-alive; spot jobs at the on-demand equivalent (an upper bound: the real spot discount is only known
afterwards, from BillableTimeInSeconds). A job on an instance type no price source knows counts for nothing, and
the estimate names the type (``unpriced``).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from sagemaker_fleet.fleetspec.model import FleetSpec
    from sagemaker_fleet.jobs.prices import PriceBook


def estimate_plan_cost(plan: Mapping[str, Any], spec: FleetSpec, prices: PriceBook) -> dict[str, Any]:
    """Expected USD for the plan JSON (docs/formats.md, plan JSON) of ``spec``, priced by ``prices``."""
    parts = _planned_parts(plan, spec, prices)
    on_demand = sum(part[1] for part in parts if not part[3])
    spot = sum(part[1] for part in parts if part[3])
    retained = sum(part[2] for part in parts)
    book = prices.cover(city.instance_type for city in spec.cities)
    return {
        "jobs": len(parts),
        "on_demand_usd": round(on_demand, 2),
        "spot_upper_bound_usd": round(spot, 2),
        "retained_usd": round(retained, 2),
        "expected_usd": round(on_demand + spot + retained, 2),
        "unpriced": sorted(itype for itype, price in book.items() if not price.known),
    }


def expected_cost_by_city(plan: Mapping[str, Any], spec: FleetSpec, prices: PriceBook) -> dict[str, float]:
    """Each planned city's share of :func:`estimate_plan_cost` (unrounded): its span and the idle time its pool is
    planned to be kept for its successor. The Fleet view projects a running fleet's total from these."""
    out: dict[str, float] = {}
    for city, span, retained, _ in _planned_parts(plan, spec, prices):
        out[city] = out.get(city, 0.0) + span + retained
    return out


def _planned_parts(
    plan: Mapping[str, Any], spec: FleetSpec, prices: PriceBook
) -> list[tuple[str, float, float, bool]]:
    """(city, USD of its planned span, USD of its planned retained keep-alive, spot) per planned job."""
    cities = {city.name: city for city in spec.cities}
    book = prices.cover(city.instance_type for city in spec.cities)
    lanes: dict[int, list[Mapping[str, Any]]] = {}
    for job in plan.get("jobs", []):
        lanes.setdefault(int(job["lane"]), []).append(job)
    parts: list[tuple[str, float, float, bool]] = []
    for lane_jobs in lanes.values():
        lane_jobs.sort(key=lambda job: int(job["position"]))
        for job, successor in zip(lane_jobs, [*lane_jobs[1:], None], strict=True):
            city = cities[str(job["city"])]
            rate = book[city.instance_type].usd_per_hour * city.instance_count / 3600
            span = int(job["planned_end_seconds"]) - int(job["planned_start_seconds"])
            retained = 0.0
            if successor is not None and int(job["keep_alive_seconds"]) > 0:
                idle = int(successor["planned_start_seconds"]) - int(job["planned_end_seconds"])
                retained = max(0, min(idle, int(job["keep_alive_seconds"]))) * rate
            parts.append((city.name, span * rate, retained, bool(job["spot"])))
    return parts
