"""The simulate JSON's leading fields, in order, with their types: one oracle for the driver's and the CLI's
tests, written out by hand from the promised format, not derived from the code that renders it."""

from __future__ import annotations

SIMULATE_FIELDS: dict[str, type] = {
    "strategy": str,
    "seed": int,
    "jobs": int,
    "completed": int,
    "failed": int,
    "resubmitted": int,
    "cold_starts": int,
    "warm_starts": int,
    "makespan_seconds": int,
    "startup_seconds": int,
    "training_seconds": int,
    "billable_seconds": int,
    "retained_billable_seconds": int,
    "cost_usd": float,
    "on_demand_equivalent_usd": float,
    "spot_savings_pct": float,
    "api_calls": dict,
    "throttled": int,
}
