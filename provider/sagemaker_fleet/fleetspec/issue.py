"""One problem in a fleet spec (:class:`SpecIssue`): its own module so that ``errors.py`` (which raises them) and
``render.py`` (which prints them) both import it and neither imports the other."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class SpecIssue:
    """One problem in a spec: the field path (``cities[3].spot.max_wait_seconds``), what is wrong and the fix."""

    path: str
    message: str
    line: int | None = None

    def __str__(self) -> str:
        where = f" (line {self.line})" if self.line is not None else ""
        return f"{self.path or '<root>'}{where}: {self.message}"
