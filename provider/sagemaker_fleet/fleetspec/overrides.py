"""Run-time overrides of a fleet (a run's conf, the trigger form): a subset of cities, spot off, another instance
type.

Read from the conf by :func:`~sagemaker_fleet.fleetspec.runconf.parse_run_conf` and applied identically by the plan
task and every training task, so both see the same fleet.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Collection
from dataclasses import dataclass
from typing import TYPE_CHECKING

from sagemaker_fleet.fleetspec.errors import RunConfError
from sagemaker_fleet.fleetspec.instance_types import is_training_instance_type, unknown_instance_type
from sagemaker_fleet.fleetspec.issue import SpecIssue
from sagemaker_fleet.fleetspec.limits import shown
from sagemaker_fleet.fleetspec.render import some_names

if TYPE_CHECKING:
    from sagemaker_fleet.fleetspec.model import FleetSpec


@dataclass(frozen=True)
class FleetOverrides:
    """``cities``: train only these (empty: all). ``spot``: False turns spot off for every city.
    ``instance_type``: train every city on this type (must have a quota entry)."""

    cities: tuple[str, ...] = ()
    spot: bool = True
    instance_type: str | None = None

    @property
    def empty(self) -> bool:
        return self == FleetOverrides()


def apply_overrides(spec: FleetSpec, overrides: FleetOverrides) -> FleetSpec:
    """The fleet as this run trains it; :class:`RunConfError` for more cities than the fleet has, cities it does not
    have (the first few named, the rest counted) or an instance type without a quota."""
    if overrides.empty:
        return spec
    issues = _city_issues(spec, overrides.cities) + _type_issues(spec, overrides.instance_type)
    if issues:
        raise RunConfError(issues)
    if overrides.cities:
        spec = only_cities(spec, set(overrides.cities))
    cities = []
    for city in spec.cities:
        if not overrides.spot and city.spot is not None:
            city = dataclasses.replace(city, spot=None)
        if overrides.instance_type is not None:
            city = dataclasses.replace(city, instance_type=overrides.instance_type)
        cities.append(city)
    return dataclasses.replace(spec, cities=tuple(cities))


def only_cities(spec: FleetSpec, names: Collection[str]) -> FleetSpec:
    """``spec`` with the cities named in ``names`` only, in the spec's order; ``KeyError`` for a name it does not
    have (a run's plan names the run's cities: a city trigger restricts the fleet to them)."""
    for name in names:
        spec.city(name)
    return dataclasses.replace(spec, cities=tuple(city for city in spec.cities if city.name in names))


def _city_issues(spec: FleetSpec, cities: tuple[str, ...]) -> list[SpecIssue]:
    known = {city.name for city in spec.cities}
    if len(cities) > len(known):
        return [
            SpecIssue(
                "params.cities",
                f"{len(cities):,} cities named; fleet {spec.fleet} has {len(known):,}: name at most "
                f"{len(known):,}, or leave `cities` out to train the whole fleet",
            )
        ]
    unknown = [shown(name) for name in cities if name not in known]
    if not unknown:
        return []
    noun = "city" if len(unknown) == 1 else "cities"
    return [
        SpecIssue("params.cities", f"unknown {noun} {some_names(unknown)}; pick cities of fleet {spec.fleet}")
    ]


def _type_issues(spec: FleetSpec, itype: str | None) -> list[SpecIssue]:
    if itype is not None and not is_training_instance_type(itype):
        return [SpecIssue("params.instance_type", unknown_instance_type(itype))]
    if itype is not None and spec.quotas and itype not in spec.quotas:
        return [SpecIssue("params.instance_type", f"no quota for {itype}; use one of {sorted(spec.quotas)}")]
    return []
