"""What a preflight check found: one line each, and whether the run can work at all.

``ERROR`` means the run cannot work as specified (a missing role, bucket, image or data, an instance quota of 0
for cities that need it): ``preflight`` exits 2. ``WARNING`` means it runs, worse than planned (cold starts,
cities waiting on ``ResourceLimitExceeded``) or could not be checked. ``NOTE`` is information; ``OK`` a check
that passed.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Literal

Level = Literal["OK", "NOTE", "WARNING", "ERROR"]
LEVELS: tuple[Level, ...] = ("OK", "NOTE", "WARNING", "ERROR")
#: ``preflight``'s exit code when any finding is an ERROR: the run cannot work as specified.
CANNOT_RUN_EXIT = 2


@dataclass(frozen=True)
class Finding:
    """One result: its level, what was checked (``quota ml.m5.xlarge warm pools``, ``role FleetTraining``,
    ``data tokyo``) and what was found, with the fix where there is one."""

    level: Level
    subject: str
    text: str

    def line(self) -> str:
        return f"{self.level:<7} {self.subject}: {self.text}"


def exit_code(findings: Iterable[Finding]) -> int:
    """0 when the run can work (whatever the warnings), :data:`CANNOT_RUN_EXIT` when any finding is an ERROR."""
    return CANNOT_RUN_EXIT if any(finding.level == "ERROR" for finding in findings) else 0


def tally(findings: Iterable[Finding]) -> str:
    """``14 OK, 1 note, 2 warnings, 0 errors``."""
    counts = Counter(finding.level for finding in findings)
    words = {"OK": "OK", "NOTE": "note", "WARNING": "warning", "ERROR": "error"}
    parts = []
    for level in LEVELS:
        count = counts[level]
        noun = words[level] if count == 1 or level == "OK" else words[level] + "s"
        parts.append(f"{count} {noun}")
    return ", ".join(parts)
