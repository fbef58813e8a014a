"""What a fleet spec asks of the account, to be checked before a run (pure): each execution role, image or S3
location with the cities that use it (in spec order), and the role name in a role ARN. (ECR image URIs are taken
apart in ``fleetspec/ecr.py``, which the simulator uses too.)"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from sagemaker_fleet.fleetspec.model import CitySpec, FleetSpec


def role_name(role_arn: str) -> str:
    """``arn:aws:iam::111122223333:role/team/FleetTraining`` → ``FleetTraining`` (GetRole takes the name alone)."""
    return role_arn.split(":role/", 1)[-1].rsplit("/", 1)[-1]


def cities_by(spec: FleetSpec, value: Callable[[CitySpec], str]) -> dict[str, list[str]]:
    """Each distinct ``value(city)`` (a role ARN, an image URI …) → the names of the cities with it, in spec order."""
    found: dict[str, list[str]] = {}
    for city in spec.cities:
        found.setdefault(value(city), []).append(city.name)
    return found
