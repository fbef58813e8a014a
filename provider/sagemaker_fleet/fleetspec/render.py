"""Spec errors as text a person can read when there are thousands of them, naming stores rather than indices.

A rule that fails for many cities (20,000 cities without ``train_s3_uri``, say) is printed once in full — path,
line, message, fix — followed by the exact count and the index of every other city it fails for, as ranges
(``cities 4, 8-12, 17``) and the first few of their names. Errors of a single place, or of fewer than
:data:`GROUP_MIN` cities, print one a line. The jobs of a history file (``jobs[3].city``) group the same way.

Every ``cities[N]`` printed — an error's path, a path inside its message, a warning — carries the city's name,
``cities[4] (store-005)``: the index is zero-based and the user numbers stores their own way. It is added here, when
the text is rendered (:func:`label_cities`), so that no message writes it itself; a city whose ``name`` is itself
invalid is known by its index alone.
"""

from __future__ import annotations

import re
import textwrap
from collections.abc import Iterable, Mapping, Sequence
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from sagemaker_fleet.fleetspec.issue import SpecIssue

#: The fewest cities failing one rule that are printed as a group.
GROUP_MIN = 4
#: How many names a list of cities shows before "and N more".
SHOWN_NAMES = 5
#: A city's path in printed text, not already followed by its name.
_CITY_PATH_RE = re.compile(r"\bcities\[(\d+)\](?! \()")
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


def some_names(names: Sequence[str], shown: int = SHOWN_NAMES) -> str:
    """``a, b, c`` or, for a long list, its first ``shown`` and ``and N more`` (a group of 2,000 stores is one line)."""
    if len(names) <= shown:
        return ", ".join(names)
    return f"{', '.join(names[:shown])} and {len(names) - shown:,} more"


def label_cities(text: str, names: Mapping[int, str]) -> str:
    """``cities[4].spot`` -> ``cities[4] (store-005).spot`` wherever the city's name is known: at the first
    ``cities[4]`` of the text only, so that a message naming two fields of one city says its name once."""
    if not names:
        return text
    seen: set[int] = set()

    def named(match: re.Match[str]) -> str:
        index = int(match.group(1))
        name = names.get(index)
        if name is None or index in seen:
            return match.group(0)
        seen.add(index)
        return f"{match.group(0)} ({name})"

    return _CITY_PATH_RE.sub(named, text)


def render_issues(issues: Sequence[SpecIssue], names: Mapping[int, str] | None = None) -> list[str]:
    """One line per issue (``  - path (line N): message``), a group's other cities wrapped below its first;
    ``names`` (index -> city name) labels every ``cities[N]`` printed."""
    names = names or {}
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
            lines.append(f"  - {label_cities(str(issue), names)}")
        elif members[0] is issue:
            lines.append(f"  - {label_cities(str(issue), names)}")
            indices = [_city(other) for other in members[1:]]
            where = key[0] if key else ""
            kind = where.split("[", 1)[0]
            known = [names[index] for index in indices if index in names] if kind == "cities" else []
            stores = f" ({some_names(known)})" if known else ""
            lines += textwrap.wrap(
                f"the same error for {len(members) - 1:,} more {kind} (at {where}): {kind} {ranges(indices)}{stores}",
                width=_WIDTH,
                initial_indent="      ",
                subsequent_indent="      ",
                break_on_hyphens=False,
            )
    return lines
