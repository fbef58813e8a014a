"""Advice for the Airflow triggerer that runs a fleet's cities: how many triggers, and how many taken per loop.

Every city starts, waits and trains in the triggerer, so a fleet's size bears on two of Airflow's settings; the
loader warns (never fails) when a fleet is past their defaults (docs/troubleshooting.md).
"""

from __future__ import annotations

#: Airflow's default ``[triggerer] capacity``: triggers one triggerer runs at once.
TRIGGERER_CAPACITY_DEFAULT = 1000
#: Airflow's default ``[triggerer] max_trigger_to_select_per_loop``: new triggers a triggerer takes per loop.
TRIGGERER_SELECT_DEFAULT = 50
#: Cities × triggers per loop a triggerer was seen to take safely (200 × 50). Airflow 3.3 sends every city task
#: that starts in the triggerer with the whole serialized DAG (~1.5 kB per city), so a batch of new triggers grows
#: with cities × batch; at 1,000 × 50 the triggerer deadlocked here (its supervisor blocked sending a batch while
#: its trigger process blocked writing logs), at 1,000 × 5 it did not.
TRIGGERER_BATCH_BUDGET = 10_000


def triggerer_select_per_loop(cities: int) -> int:
    """The ``[triggerer] max_trigger_to_select_per_loop`` a fleet of ``cities`` should run with."""
    return max(1, min(TRIGGERER_SELECT_DEFAULT, TRIGGERER_BATCH_BUDGET // max(1, cities)))


def triggerer_warnings(cities: int) -> list[str]:
    """The warnings for a fleet of ``cities``: over the default capacity, and a smaller batch per loop."""
    warnings: list[str] = []
    if cities > TRIGGERER_CAPACITY_DEFAULT:
        warnings.append(
            f"cities: {cities} cities are {cities} triggers for a whole run (each city starts, waits "
            f"and trains in the triggerer); Airflow's `[triggerer] capacity` is {TRIGGERER_CAPACITY_DEFAULT} "
            f"by default: raise it above {cities} or run "
            f"{-(-cities // TRIGGERER_CAPACITY_DEFAULT)} triggerers"
        )
    select = triggerer_select_per_loop(cities)
    if select < TRIGGERER_SELECT_DEFAULT:
        warnings.append(
            f"cities: {cities} cities start in the triggerer, each sent to it with the whole DAG; set "
            f"Airflow's `[triggerer] max_trigger_to_select_per_loop` to {select} "
            f"or less (default {TRIGGERER_SELECT_DEFAULT}) so that it takes them in small batches: with the "
            "default a 1,000-city run deadlocked the triggerer (docs/troubleshooting.md)"
        )
    return warnings
