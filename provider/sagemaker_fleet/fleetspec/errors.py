"""Errors raised while reading a fleet spec: every problem is collected and reported at once."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from sagemaker_fleet.errors import SageMakerFleetError
from sagemaker_fleet.fleetspec.render import render_issues


@dataclass(frozen=True)
class SpecIssue:
    """One problem in a spec: the field path (``cities[3].spot.max_wait_seconds``), what is wrong and the fix."""

    path: str
    message: str
    line: int | None = None

    def __str__(self) -> str:
        where = f" (line {self.line})" if self.line is not None else ""
        return f"{self.path or '<root>'}{where}: {self.message}"


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
