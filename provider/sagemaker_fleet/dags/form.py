"""The manual DAG's trigger form: which cities, on what capacity, and whether to launch at all.

Shaped for the widgets Airflow's UI picks from the JSON schema: an array with ``examples`` is a searchable
multi-select (a person picks from the fleet's cities instead of typing them), a ``null`` in the type makes a field
optional (no red star: empty means the whole fleet), ``values_display`` labels the "no override" choice, and
``section`` groups the fields by concern. Airflow opens only its own section ("Run Parameters") and folds the
others, so what a person always chooses (the cities, a dry run) stays there and the capacity overrides are folded
into a section of their own. The city list is offered, not enforced by the schema: Airflow would answer
a mistyped name from the REST API with the whole list and the schema; the plan task refuses it instead, naming
only that city (:func:`sagemaker_fleet.fleetspec.overrides.apply_overrides`). The schema bounds the list: at most the
fleet's cities, each at most a city name's length, so Airflow refuses a larger one when the run is triggered.

The form's fields are the keys every fleet DAG's conf takes (:data:`~sagemaker_fleet.fleetspec.runconf.CONF_KEYS`),
with their defaults: a DAG without the form reads the same keys from a run's conf.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from airflow.sdk import Param

from sagemaker_fleet.fleetspec.limits import CITY_NAME_MAX

if TYPE_CHECKING:
    from sagemaker_fleet.fleetspec.model import FleetSpec

#: The label of "no instance-type override" in the form (the value is ``None``).
FLEET_DEFAULT = "fleet default"
#: The section of the capacity overrides (the other fields stay in Airflow's open "Run Parameters").
CAPACITY_SECTION = "Capacity overrides"


def manual_params(spec: FleetSpec) -> dict[str, Param]:
    """The form of fleet ``spec``: cities, spot on/off, instance-type override, dry run."""
    types = sorted(spec.quotas)
    return {
        "cities": Param(
            [],
            # a string too, so that `airflow dags trigger -c '{"cities": "lima,oslo"}'` works (split on commas)
            type=["null", "array", "string"],
            items={"type": "string", "maxLength": CITY_NAME_MAX},
            maxItems=len(spec.cities),
            # every name of the fleet, each with a comma and a space
            maxLength=sum(len(city.name) + 2 for city in spec.cities),
            examples=[city.name for city in spec.cities],
            title="Cities",
            description=f"Train only the cities picked here (type to search the {len(spec.cities)}); "
            "leave empty to train the whole fleet. The others are skipped.",
        ),
        "spot": Param(
            True,
            type="boolean",
            title="Use spot",
            description="On: the cities the fleet file marks spot train on spot capacity. Off: every city trains "
            "on demand (and may then take a warm pool from the city before it).",
            section=CAPACITY_SECTION,
        ),
        "instance_type": Param(
            None,
            type=["null", "string"],
            enum=[None, *types],
            values_display={None: f"{FLEET_DEFAULT} (each city's own type)", **{t: t for t in types}},
            title="Instance type override",
            description="Train every picked city on this instance type instead of its own (one with a quota in "
            "the fleet file).",
            section=CAPACITY_SECTION,
        ),
        "dry_run": Param(
            False,
            type="boolean",
            title="Dry run",
            description="On: plan only and show the expected cost, warm/cold starts and makespan in the run's "
            "note; no training job is created.",
        ),
    }
