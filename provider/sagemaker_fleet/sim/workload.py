"""How many seconds of training a job needs: its *work*, decided without any simulator-only request field.

Precedence: an administrator's override for the job name > an override for its city > the city's
``expected_seconds`` in a fleet spec given to the simulator (with a seeded spread, since real runs vary around the
estimate) > a default. Jobs are matched to cities through the tags the request compiler sets
(``sagemaker-fleet:fleet`` / ``sagemaker-fleet:city``).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field, replace
from types import MappingProxyType
from typing import TYPE_CHECKING, Literal

from sagemaker_fleet.fleetspec.names import CITY_TAG, FLEET_TAG
from sagemaker_fleet.sim.seeding import stream

if TYPE_CHECKING:
    from sagemaker_fleet.fleetspec.model import FleetSpec

WorkSource = Literal["job", "city-override", "fleet-spec", "default"]


@dataclass(frozen=True, order=True)
class CityRef:
    """A city, optionally qualified by its fleet (``None`` matches the city in any fleet)."""

    city: str
    fleet: str | None = None


@dataclass(frozen=True)
class WorkEstimate:
    seconds: float
    source: WorkSource


@dataclass(frozen=True)
class WorkModel:
    """Training work per job; ``spread`` is the relative standard deviation applied to estimates (not overrides)."""

    default_seconds: float = 600.0
    spread: float = 0.15
    city_expected: Mapping[CityRef, float] = field(default_factory=lambda: MappingProxyType({}))
    city_overrides: Mapping[CityRef, float] = field(default_factory=lambda: MappingProxyType({}))
    job_overrides: Mapping[str, float] = field(default_factory=lambda: MappingProxyType({}))

    @classmethod
    def from_fleets(
        cls, fleets: Iterable[FleetSpec], *, default_seconds: float = 600.0, spread: float = 0.15
    ) -> WorkModel:
        expected: dict[CityRef, float] = {}
        for fleet in fleets:
            for city in fleet.cities:
                expected[CityRef(city.name, fleet.fleet)] = float(city.expected_seconds)
                expected.setdefault(CityRef(city.name), float(city.expected_seconds))
        return cls(default_seconds, spread, MappingProxyType(expected))

    def with_job_override(self, job_name: str, seconds: float) -> WorkModel:
        overrides = {**self.job_overrides, job_name: float(seconds)}
        return replace(self, job_overrides=MappingProxyType(overrides))

    def with_city_override(self, city: str, seconds: float, fleet: str | None = None) -> WorkModel:
        overrides = {**self.city_overrides, CityRef(city, fleet): float(seconds)}
        return replace(self, city_overrides=MappingProxyType(overrides))

    def estimate(self, job_name: str, tags: Mapping[str, str], seed: int) -> WorkEstimate:
        if job_name in self.job_overrides:
            return WorkEstimate(self.job_overrides[job_name], "job")
        city, fleet = tags.get(CITY_TAG), tags.get(FLEET_TAG)
        if city is not None:
            exact = _lookup(self.city_overrides, city, fleet)
            if exact is not None:
                return WorkEstimate(exact, "city-override")
            expected = _lookup(self.city_expected, city, fleet)
            if expected is not None:
                return WorkEstimate(self._spread(expected, job_name, seed), "fleet-spec")
        return WorkEstimate(self._spread(self.default_seconds, job_name, seed), "default")

    def _spread(self, seconds: float, job_name: str, seed: int) -> float:
        if self.spread <= 0:
            return seconds
        factor = 1.0 + self.spread * stream(seed, job_name, "work").gauss(0.0, 1.0)
        return seconds * min(max(factor, 0.25), 3.0)


def _lookup(table: Mapping[CityRef, float], city: str, fleet: str | None) -> float | None:
    if fleet is not None and CityRef(city, fleet) in table:
        return table[CityRef(city, fleet)]
    return table.get(CityRef(city))
