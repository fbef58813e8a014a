"""The cities of an ``import`` draft, read out of the names of the jobs you already run (pure).

A team names its per-city jobs after one pattern — ``demand-oslo-2026-11-28-02-00-00``,
``demand-caen-2026-11-28-02-10-00`` — so with several jobs the city is what differs between their names once the
timestamp at the end is set aside (:func:`guess_cities`). One job alone, or names with nothing in common, keep the
plain rule (:func:`city_of_name`: the whole name, lowercased). A ``sagemaker-fleet:city`` tag and ``--cities`` are
the caller's to apply first: both win over any guess.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from sagemaker_fleet.fleetspec.formats import CITY_RE

#: The timestamps that end job names, as the SageMaker SDK writes them — ``name_from_base``:
#: ``2026-11-28-02-00-00-123`` (its short form ``261128-0200``), ``unique_name_from_base``: epoch seconds and four
#: hex digits, ``1764295200-a1b2`` — and as people write them by hand (``2026-11-28``, ``20261128``,
#: ``20261128t0200``, epoch milliseconds). Matched on the lowercased name.
TIMESTAMP_RE = re.compile(
    r"-(?:"
    r"\d{4}-\d{2}-\d{2}(?:-\d{2}-\d{2}(?:-\d{2}(?:-\d{1,6})?)?)?"
    r"|\d{6}-\d{4}"
    r"|\d{10}(?:\d{3})?(?:-[0-9a-f]{4})?"
    r"|\d{8}(?:[-t]?\d{4}(?:\d{2})?)?"
    r")$"
)
#: What a city is called when nothing names it (a request file without a TrainingJobName).
UNNAMED = "city"


@dataclass(frozen=True)
class CityGuess:
    """The cities guessed from job names (one per name, in order), or None and why no sensible guess exists."""

    cities: tuple[str, ...] | None
    why_not: str = ""


def city_of_name(name: str) -> str:
    """The plain rule: the whole name, lowercased, with any run of other characters made one ``-``."""
    return re.sub(r"[^a-z0-9-]+", "-", name.lower()).strip("-") or UNNAMED


def without_timestamp(name: str) -> str:
    """``name`` (lowercased) without the timestamp that ends it, if one does."""
    return TIMESTAMP_RE.sub("", city_of_name(name))


def guess_cities(names: Sequence[str]) -> CityGuess:
    """The city of each of ``names``: what is left of the name once the timestamp at its end and the words every
    name starts or ends with are set aside (words are what ``-`` separates). ``demand-oslo-2026-11-28-02-00-00``
    and ``demand-caen-2026-11-28-02-10-00`` give ``oslo`` and ``caen``; ``bakery-store-12-…`` and
    ``bakery-store-15-…`` give ``store-12`` and ``store-15`` (a city of digits alone keeps the word before it).

    No guess (None, and why) for fewer than two names, or when the names share nothing, or when what is left
    would name two jobs alike or is no valid city name."""
    if len(names) < 2:
        return CityGuess(None, "one job has nothing to compare its name with")
    words = [without_timestamp(name).split("-") for name in names]
    head = _shared_length(words)
    tail = _shared_length([list(reversed(w[head:])) for w in words])
    if head == 0 and tail == 0 and all(without_timestamp(n) == city_of_name(n) for n in names):
        return CityGuess(None, "the names share no word and end in no timestamp")
    middles = [w[head : len(w) - tail] for w in words]
    if head and any(all(part.isdigit() for part in middle) for middle in middles):
        middles = [[w[head - 1], *middle] for w, middle in zip(words, middles, strict=True)]
    cities = ["-".join(middle) for middle in middles]
    bad = [city for city in cities if not CITY_RE.fullmatch(city)]
    if bad:
        return CityGuess(None, f"{bad[0]!r} would be no valid city name")
    seen: dict[str, str] = {}
    for name, city in zip(names, cities, strict=True):
        if city in seen:
            return CityGuess(
                None, f"{seen[city]} and {name} would both be city {city!r} (one city imported twice?)"
            )
        seen[city] = name
    return CityGuess(tuple(cities))


def _shared_length(words: list[list[str]]) -> int:
    """How many leading words every list shares, leaving each at least one word of its own."""
    shortest = min(len(w) for w in words)
    count = 0
    while count < shortest - 1 and all(w[count] == words[0][count] for w in words):
        count += 1
    return count
