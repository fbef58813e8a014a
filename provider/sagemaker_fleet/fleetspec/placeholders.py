"""Placeholders in a fleet's strings — a ``job:`` template's, and the ``hyperparameters`` and ``environment``
shorthand's values alike: ``{city}``, ``{fleet}``, ``{run_key}``; ``{{`` and ``}}`` are literal braces (metric
regexes and JSON carry braces). An unknown name is refused wherever it is written.

A string is split once into literal text and placeholder names (cached: a fleet-level template is rendered for
every city), so checking and rendering 20,000 cities costs a dictionary look-up per string.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Mapping

from sagemaker_fleet.errors import SageMakerFleetError

#: The names a template may use, each filled per city and run.
PLACEHOLDERS = ("city", "fleet", "run_key")
_TOKEN_RE = re.compile(r"\{\{|\}\}|\{([^{}]*)\}|[{}]")
#: A part of a split string: literal text, or the name of a placeholder.
Part = tuple[bool, str]


class PlaceholderError(SageMakerFleetError, ValueError):
    """A string with an unknown placeholder or a lone brace; the message quotes it and says how to write it."""


@functools.lru_cache(maxsize=65536)
def split(text: str) -> tuple[Part, ...]:
    """``text`` as (is_placeholder, value) parts; raises :class:`PlaceholderError`."""
    parts: list[Part] = []
    literal: list[str] = []
    at = 0
    for match in _TOKEN_RE.finditer(text):
        literal.append(text[at : match.start()])
        at = match.end()
        token = match.group(0)
        if token in ("{{", "}}"):
            literal.append(token[0])
            continue
        name = match.group(1)
        if name is None:
            raise PlaceholderError(
                f"a lone `{token}` in {text!r}; write a literal brace as `{token}{token}`, "
                "a placeholder as {city}, {fleet} or {run_key}"
            )
        if name not in PLACEHOLDERS:
            raise PlaceholderError(
                f"unknown placeholder `{{{name}}}` in {text!r}; use {{city}}, {{fleet}} or {{run_key}}, "
                f"or write a literal brace as `{{{{` and `}}}}`"
            )
        chunk = "".join(literal)
        if chunk:
            parts.append((False, chunk))
        literal = []
        parts.append((True, name))
    literal.append(text[at:])
    if "".join(literal) or not parts:
        parts.append((False, "".join(literal)))
    return tuple(parts)


def values_for(fleet: str, city: str, run_key: str) -> dict[str, str]:
    """What each placeholder is filled with for ``city`` of ``fleet`` in run ``run_key``."""
    return {"city": city, "fleet": fleet, "run_key": run_key}


def names_in(text: str) -> frozenset[str]:
    """The placeholders ``text`` uses (none for plain text)."""
    if "{" not in text and "}" not in text:
        return frozenset()
    return frozenset(value for is_name, value in split(text) if is_name)


def render(text: str, values: Mapping[str, str]) -> str:
    """``text`` with its placeholders filled from ``values`` and ``{{``/``}}`` made single braces."""
    if "{" not in text and "}" not in text:
        return text
    return "".join(values[value] if is_name else value for is_name, value in split(text))


def render_value(value: object, values: Mapping[str, str]) -> object:
    """A template value (mappings, lists, scalars) with every string rendered; keys are never rendered."""
    if isinstance(value, str):
        return render(value, values)
    if isinstance(value, Mapping):
        return {key: render_value(item, values) for key, item in value.items()}
    if isinstance(value, list):
        return [render_value(item, values) for item in value]
    return value
