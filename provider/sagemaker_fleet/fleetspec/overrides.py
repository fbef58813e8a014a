"""Run-time overrides of a fleet (the UI trigger form): a subset of cities, spot off, another instance type.

Applied identically by the plan task and every training task, so both see the same fleet.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from sagemaker_fleet.fleetspec.errors import FleetSpecError
from sagemaker_fleet.fleetspec.instance_types import is_training_instance_type, unknown_instance_type
from sagemaker_fleet.fleetspec.issue import SpecIssue

if TYPE_CHECKING:
    from sagemaker_fleet.fleetspec.model import FleetSpec


@dataclass(frozen=True)
class FleetOverrides:
    """``cities``: train only these (empty: all). ``spot``: False turns spot off for every city.
    ``instance_type``: train every city on this type (must have a quota entry)."""

    cities: tuple[str, ...] = ()
    spot: bool = True
    instance_type: str | None = None

    @classmethod
    def from_params(cls, params: Mapping[str, Any] | None) -> FleetOverrides:
        params = params or {}
        cities = params.get("cities") or ()
        if isinstance(cities, str):
            cities = [c.strip() for c in cities.split(",") if c.strip()]
        instance_type = params.get("instance_type") or None
        return cls(cities=tuple(cities), spot=bool(params.get("spot", True)), instance_type=instance_type)

    @property
    def empty(self) -> bool:
        return self == FleetOverrides()


def apply_overrides(spec: FleetSpec, overrides: FleetOverrides) -> FleetSpec:
    """The fleet as this run trains it; unknown cities or an instance type without quota are errors."""
    if overrides.empty:
        return spec
    known = {city.name for city in spec.cities}
    issues = [
        SpecIssue("params.cities", f"unknown city {name!r}; pick cities of fleet {spec.fleet}")
        for name in overrides.cities
        if name not in known
    ]
    itype = overrides.instance_type
    if itype is not None and not is_training_instance_type(itype):
        issues.append(SpecIssue("params.instance_type", unknown_instance_type(itype)))
    elif itype is not None and spec.quotas and itype not in spec.quotas:
        issues.append(
            SpecIssue("params.instance_type", f"no quota for {itype}; use one of {sorted(spec.quotas)}")
        )
    if issues:
        raise FleetSpecError(issues, "trigger params")
    wanted = set(overrides.cities)
    cities = []
    for city in spec.cities:
        if wanted and city.name not in wanted:
            continue
        if not overrides.spot and city.spot is not None:
            city = dataclasses.replace(city, spot=None)
        if itype is not None:
            city = dataclasses.replace(city, instance_type=itype)
        cities.append(city)
    return dataclasses.replace(spec, cities=tuple(cities))
