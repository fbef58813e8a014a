"""Spec errors as text a person can read when there are thousands of them.

A rule that fails for many cities (20,000 cities without ``train_s3_uri``, say) is printed once in full — path,
line, message, fix — followed by the exact count and the index of every other city it fails for, as ranges
(``cities 4, 8-12, 17``). Errors of a single place, or of fewer than :data:`GROUP_MIN` cities, print one a line.
The jobs of a history file (``jobs[3].city``) group the same way.
"""

from __future__ import annotations

import re
import textwrap
from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from sagemaker_fleet.fleetspec.errors import SpecIssue

#: The fewest cities failing one rule that are printed as a group.
GROUP_MIN = 4
_CITY_RE = re.compile(r"^(cities|jobs)\[(\d+)\]")
#: What varies between cities failing the same rule: quoted values and numbers.
_VALUE_RE = re.compile(r"'(?:[^'\\]|\\.)*'|\"(?:[^\"\\]|\\.)*\"|\d+(?:\.\d+)?")
_WIDTH = 110


def _key(issue: SpecIssue) -> tuple[str, str] | None:
    match = _CITY_RE.match(issue.path)
    if match is None:
        return None
    return _CITY_RE.sub(r"\1[N]", issue.path, count=1), _VALUE_RE.sub("…", issue.message)


def _city(issue: SpecIssue) -> int:
    match = _CITY_RE.match(issue.path)
    return int(match.group(2)) if match else -1


def ranges(numbers: Iterable[int]) -> str:
    """``[1, 2, 3, 7, 9, 10]`` -> ``1-3, 7, 9-10``."""
    parts: list[str] = []
    run: list[int] = []
    for number in sorted(set(numbers)):
        if run and number == run[-1] + 1:
            run.append(number)
            continue
        if run:
            parts.append(f"{run[0]}-{run[-1]}" if len(run) > 1 else str(run[0]))
        run = [number]
    if run:
        parts.append(f"{run[0]}-{run[-1]}" if len(run) > 1 else str(run[0]))
    return ", ".join(parts)


def render_issues(issues: Sequence[SpecIssue]) -> list[str]:
    """One line per issue (``  - path (line N): message``), a group's other cities wrapped below its first."""
    groups: dict[tuple[str, str], list[SpecIssue]] = {}
    for issue in issues:
        key = _key(issue)
        if key is not None:
            groups.setdefault(key, []).append(issue)
    lines: list[str] = []
    for issue in issues:
        key = _key(issue)
        members = groups.get(key) if key is not None else None
        if members is None or len(members) < GROUP_MIN:
            lines.append(f"  - {issue}")
        elif members[0] is issue:
            lines.append(f"  - {issue}")
            others = ranges(_city(other) for other in members[1:])
            where = key[0] if key else ""
            kind = where.split("[", 1)[0]
            lines += textwrap.wrap(
                f"the same error for {len(members) - 1:,} more {kind} (at {where}): {kind} {others}",
                width=_WIDTH,
                initial_indent="      ",
                subsequent_indent="      ",
                break_on_hyphens=False,
            )
    return lines
