"""Advice for the Airflow triggerers that run a fleet's cities: how many triggers a run holds at once.

Every city of a run waits and trains in a triggerer (one trigger each, deferred from its mapped task instance), so
a fleet larger than what its triggerers hold (Airflow's ``[triggerer] capacity``, 1,000 by default, per triggerer)
leaves the cities past it unwatched until others end: they start late and miss their warm pools. The loader warns
(never fails) before any run starts (docs/troubleshooting.md). Nothing else about the triggerer needs tuning: a
city's trigger carries a few hundred bytes, whatever the fleet's size.
"""

from __future__ import annotations

#: Airflow's default ``[triggerer] capacity``: triggers one triggerer runs at once.
TRIGGERER_CAPACITY_DEFAULT = 1000


def triggerers_needed(cities: int, capacity: int = TRIGGERER_CAPACITY_DEFAULT) -> int:
    """Triggerers of ``capacity`` that hold every city of a run at once (at least one)."""
    return max(1, -(-cities // max(1, capacity)))


def triggerer_warnings(cities: int) -> list[str]:
    """The warning for a fleet of ``cities`` past one triggerer of Airflow's default capacity (none otherwise)."""
    if cities <= TRIGGERER_CAPACITY_DEFAULT:
        return []
    return [
        f"cities: {cities} cities are {cities} triggers at once (each city waits and trains in a triggerer); one "
        f"triggerer holds {TRIGGERER_CAPACITY_DEFAULT} by default (Airflow's `[triggerer] capacity`), and the "
        f"cities past it would start late and miss their warm pools: run {triggerers_needed(cities)} triggerers "
        f"or raise `[triggerer] capacity` above {cities}"
    ]
