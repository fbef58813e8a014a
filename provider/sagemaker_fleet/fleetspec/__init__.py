"""Parse and validate fleet specs (docs/reference.md, fleet spec) into typed, resolved values.

The names below are loaded on first use (PEP 562), not when the package is imported: a city's task process on a
worker imports :mod:`sagemaker_fleet.fleetspec.names` once per city and needs neither pydantic nor YAML.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from sagemaker_fleet.fleetspec.errors import FleetSpecError
    from sagemaker_fleet.fleetspec.issue import SpecIssue
    from sagemaker_fleet.fleetspec.load import build_fleet_spec, load_fleet_spec, parse_fleet_spec
    from sagemaker_fleet.fleetspec.model import CitySpec, FleetSpec, InstanceQuota, SpotSettings, VpcSettings

#: Where each exported name is defined.
_HOMES = {
    "FleetSpecError": "errors",
    "SpecIssue": "issue",
    "build_fleet_spec": "load",
    "load_fleet_spec": "load",
    "parse_fleet_spec": "load",
    "CitySpec": "model",
    "FleetSpec": "model",
    "InstanceQuota": "model",
    "SpotSettings": "model",
    "VpcSettings": "model",
}

__all__ = [
    "CitySpec",
    "FleetSpec",
    "FleetSpecError",
    "InstanceQuota",
    "SpecIssue",
    "SpotSettings",
    "VpcSettings",
    "build_fleet_spec",
    "load_fleet_spec",
    "parse_fleet_spec",
]


def __getattr__(name: str) -> Any:
    home = _HOMES.get(name)
    if home is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(f"{__name__}.{home}"), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted({*globals(), *__all__})
