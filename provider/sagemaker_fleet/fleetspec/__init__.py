"""Parse and validate fleet specs (docs/reference.md, fleet spec) into typed, resolved values."""

from __future__ import annotations

from sagemaker_fleet.fleetspec.errors import FleetSpecError, SpecIssue
from sagemaker_fleet.fleetspec.load import build_fleet_spec, load_fleet_spec, parse_fleet_spec
from sagemaker_fleet.fleetspec.model import CitySpec, FleetSpec, InstanceQuota, SpotSettings, VpcSettings

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
