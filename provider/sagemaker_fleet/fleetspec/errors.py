"""Errors raised while reading a fleet spec: every problem is collected and reported at once."""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING

from sagemaker_fleet.errors import SageMakerFleetError
from sagemaker_fleet.fleetspec.limits import capped
from sagemaker_fleet.fleetspec.render import render_issues

if TYPE_CHECKING:
    from sagemaker_fleet.fleetspec.issue import SpecIssue

#: How a refusal of a run's conf names where the values came from.
CONF_SOURCE = "the run's conf"


class FleetSpecError(SageMakerFleetError, ValueError):
    """The spec has one or more errors; nothing may be launched while any stands. ``city_names`` (index -> name,
    for the cities whose name is valid) lets the message say ``cities[4] (store-005)``; ``issues`` keep the bare
    paths."""

    def __init__(
        self, issues: list[SpecIssue], source: str = "", city_names: Mapping[int, str] | None = None
    ) -> None:
        self.issues = tuple(issues)
        self.source = source
        self.city_names = dict(city_names or {})
        head = f"{source}: " if source else ""
        lines = "\n".join(render_issues(self.issues, self.city_names))
        super().__init__(f"{head}{len(self.issues):,} error(s) in fleet spec:\n{lines}")


class RunConfError(FleetSpecError):
    """A run's conf asks what a fleet DAG does not take, or what its fleet cannot do
    (:mod:`sagemaker_fleet.fleetspec.runconf`, :func:`~sagemaker_fleet.fleetspec.overrides.apply_overrides`):
    nothing is planned or launched. Its message names each key and the fix on one line, in at most
    :data:`~sagemaker_fleet.fleetspec.limits.MESSAGE_MAX` characters whatever was sent."""

    def __init__(self, issues: list[SpecIssue]) -> None:
        super().__init__(issues, CONF_SOURCE)
        self.args = (capped(f"{CONF_SOURCE} is refused: " + "; ".join(str(issue) for issue in self.issues)),)

    def reasons(self) -> list[str]:
        """One line per problem, for a run note (together within the cap)."""
        return capped("\n".join(str(issue) for issue in self.issues)).split("\n")
