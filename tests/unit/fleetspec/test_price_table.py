"""Which price table every command reads (the refreshed one, else the shipped one), and a table that cannot be read
named with its field and the fix rather than half-used."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from sagemaker_fleet.fleetspec.price_table import (
    SHIPPED,
    PriceTableError,
    load_price_table,
    parse_price_table,
    unpriced_warnings,
)


def table(**regions: Any) -> dict[str, Any]:
    return {"schema": 1, "as_of": "2026-11-20", "source": "test", "regions": regions}


@pytest.fixture
def refreshed(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    path = tmp_path / "prices.json"
    monkeypatch.setenv("SAGEMAKER_FLEET_PRICE_TABLE", str(path))
    return path


def test_without_a_refreshed_table_the_shipped_one_is_read(refreshed: Path) -> None:
    shipped = load_price_table()
    assert shipped.origin == SHIPPED
    assert shipped.as_of == "2026-11-29"
    assert shipped.describe().startswith("the price table shipped with the package (as of 2026-11-29, ")


def test_a_refreshed_table_wins_whole(refreshed: Path) -> None:
    refreshed.write_text(json.dumps(table(**{"eu-west-3": {"ml.m5.xlarge": {"usd_per_hour": 0.5}}})))
    read = load_price_table()
    assert (read.origin, read.as_of) == (str(refreshed), "2026-11-20")
    entry = read.entry("eu-west-3", "ml.m5.xlarge")
    assert entry is not None
    assert entry.usd_per_hour == 0.5
    assert read.entry("us-east-1", "ml.m5.xlarge") is None  # not merged with the shipped table
    assert read.describe().startswith(f"the price table at {refreshed} (as of 2026-11-20, ")


@pytest.mark.parametrize(
    ("document", "message"),
    [
        ([], "a price table is a JSON object"),
        (dict(table(), schema=2), "schema 2; this version reads schema 1"),
        (dict(table(), as_of="yesterday"), "as_of 'yesterday' is not a date (YYYY-MM-DD)"),
        ({"schema": 1, "as_of": "2026-11-20"}, "regions must map each region to its instance types"),
        (table(**{"eu-west-3": []}), "regions.eu-west-3 must map instance types to prices"),
        (
            table(**{"eu-west-3": {"ml.m5.xlarge": {"usd_per_hour": -1}}}),
            "regions.eu-west-3.ml.m5.xlarge.usd_per_hour must be a positive number of USD, not -1",
        ),
        (
            table(**{"eu-west-3": {"ml.m5.xlarge": {"usd_per_hour": "0.2"}}}),
            "regions.eu-west-3.ml.m5.xlarge.usd_per_hour must be a positive number of USD, not '0.2'",
        ),
    ],
)
def test_a_wrong_field_is_named(document: Any, message: str) -> None:
    with pytest.raises(PriceTableError) as caught:
        parse_price_table(document, "t.json")
    assert str(caught.value) == f"t.json: {message}"


def test_a_refreshed_table_that_cannot_be_read_says_the_fix_and_validate_warns(refreshed: Path) -> None:
    refreshed.write_text("{not json")
    with pytest.raises(PriceTableError) as caught:
        load_price_table()
    message = str(caught.value)
    assert message.startswith(f"{refreshed}: cannot be read as a price table (")
    assert message.endswith(
        "; run `sagemaker-fleet prices refresh` again, or delete the file to use the table shipped with the package"
    )
    assert unpriced_warnings("us-east-1", {}, []) == [f"prices: {message}"]
