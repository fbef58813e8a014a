"""The cities of an ``import`` draft guessed from job names: what differs between the names once the timestamp at
their end and the words they share are set aside; no guess, and why, where none makes sense."""

from __future__ import annotations

import pytest

from sagemaker_fleet.fleetspec.draft_cities import city_of_name, guess_cities, without_timestamp
from sagemaker_fleet.fleetspec.formats import CITY_RE


@pytest.mark.parametrize(
    ("names", "cities"),
    [
        # the SageMaker SDK's name_from_base, with and without its milliseconds
        (["demand-oslo-2026-11-28-02-00-00", "demand-caen-2026-11-28-02-10-00"], ("oslo", "caen")),
        (["demand-oslo-2026-11-28-02-00-00-123", "demand-caen-2026-11-29-02-00-00-457"], ("oslo", "caen")),
        # its short timestamp, and unique_name_from_base: epoch seconds and four hex digits
        (["demand-oslo-261128-0200", "demand-caen-261128-0210"], ("oslo", "caen")),
        (["demand-oslo-1764295200-a1b2", "demand-caen-1764295260-00ff"], ("oslo", "caen")),
        # written by hand: a date, a compact date-time, epoch milliseconds; any case
        (["demand-oslo-2026-11-28", "demand-caen-2026-11-28"], ("oslo", "caen")),
        (["Demand-Oslo-20261128T020000", "Demand-Caen-20261128T021000"], ("oslo", "caen")),
        (["demand-oslo-1764295200000", "demand-caen-1764295260000"], ("oslo", "caen")),
        # words shared at the end too, a city of several words, no timestamp at all
        (
            ["acme-oslo-demand-v2", "acme-new-york-demand-v2", "acme-lima-demand-v2"],
            ("oslo", "new-york", "lima"),
        ),
        (["oslo-model", "caen-model"], ("oslo", "caen")),
        # a city of digits alone keeps the word before it
        (["bakery-store-12-20261128", "bakery-store-15-20261128"], ("store-12", "store-15")),
    ],
)
def test_the_city_is_what_differs_between_the_names(names: list[str], cities: tuple[str, ...]) -> None:
    guess = guess_cities(names)
    assert guess.cities == cities, guess.why_not
    assert all(CITY_RE.fullmatch(city) for city in cities)


@pytest.mark.parametrize(
    ("names", "why"),
    [
        (["demand-oslo-2026-11-28"], "one job"),
        (["alpha", "beta"], "share no word and end in no timestamp"),
        (
            ["demand-oslo-2026-11-28", "demand-oslo-2026-11-29"],
            "demand-oslo-2026-11-28 and demand-oslo-2026-11-29 would both be city 'oslo' (one city imported twice?)",
        ),
        (["p-a", "p--b"], "'-b' would be no valid city name"),
    ],
)
def test_no_guess_where_none_makes_sense(names: list[str], why: str) -> None:
    guess = guess_cities(names)
    assert guess.cities is None
    assert why in guess.why_not


def test_a_timestamp_is_only_a_timestamp_at_the_end() -> None:
    assert without_timestamp("demand-2026-11-28-oslo") == "demand-2026-11-28-oslo"
    assert without_timestamp("demand-oslo-v2") == "demand-oslo-v2"
    assert without_timestamp("demand-oslo-12") == "demand-oslo-12"  # a counter, not a time
    assert without_timestamp("demand-oslo-20261128") == "demand-oslo"


def test_the_plain_rule_is_the_whole_name_lowercased() -> None:
    assert city_of_name("Demand-Oslo-2026") == "demand-oslo-2026"
    assert city_of_name("demand oslo!") == "demand-oslo"
    assert city_of_name("") == "city"
