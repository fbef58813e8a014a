"""Errors raised while reading a fleet spec: every problem is collected and reported at once."""

from __future__ import annotations

from collections.abc import Mapping

from sagemaker_fleet.errors import SageMakerFleetError
from sagemaker_fleet.fleetspec.issue import SpecIssue
from sagemaker_fleet.fleetspec.render import render_issues

#: SpecIssue is defined in ``issue.py`` (render.py needs it too); it is still importable from here.
__all__ = ["FleetSpecError", "SpecIssue"]


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
