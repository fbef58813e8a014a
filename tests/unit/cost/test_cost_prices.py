"""The one price lookup: spec > Price List API answers > shipped table; unknown types name the fix."""

from __future__ import annotations

import json
from importlib import resources

import pytest

from sagemaker_fleet.cost import UnknownPriceError
from sagemaker_fleet.fleetspec.price_table import load_price_table
from sagemaker_fleet.jobs.prices import PriceBook

THIRD_PARTY_PRICES = {
    "ml.m5.xlarge": 0.23,
    "ml.c5.xlarge": 0.204,
    "ml.m5.2xlarge": 0.461,
    "ml.g5.xlarge": 1.408,
    "ml.p3.2xlarge": 3.825,
}


def test_shipped_table_is_dated_sourced_and_has_the_third_party_prices() -> None:
    raw = json.loads(resources.files("sagemaker_fleet").joinpath("data/prices.json").read_text())
    assert raw["as_of"]
    assert raw["source"]
    assert raw["currency"] == "USD"
    table = load_price_table()
    for itype, price in THIRD_PARTY_PRICES.items():
        entry = table.entry("us-east-1", itype)
        assert entry is not None
        assert entry.usd_per_hour == price
        assert entry.source == "third-party-tables"
    for region in table.regions.values():
        for entry in region.values():
            assert entry.source in table.sources, f"undocumented source {entry.source}"


def test_lookup_order_spec_then_api_then_table() -> None:
    table = load_price_table()
    book = PriceBook(
        "us-east-1",
        table,
        spec_prices={"ml.m5.xlarge": 0.3},
        api_prices={"ml.m5.xlarge": 0.25, "ml.c5.xlarge": 0.21},
    )
    assert (book.price("ml.m5.xlarge").usd_per_hour, book.price("ml.m5.xlarge").source) == (0.3, "spec")
    assert (book.price("ml.c5.xlarge").usd_per_hour, book.price("ml.c5.xlarge").source) == (
        0.21,
        "price-list-api",
    )
    table_price = book.price("ml.g5.xlarge")
    assert (table_price.usd_per_hour, table_price.source) == (1.408, "table")
    assert "2026-11-29" in table_price.detail


def test_unknown_instance_type_names_every_missing_type_and_the_fix() -> None:
    book = PriceBook("us-east-1", load_price_table())
    with pytest.raises(UnknownPriceError) as caught:
        book.require(["ml.m5.xlarge", "ml.trn1.32xlarge", "ml.x9.huge"])
    message = str(caught.value)
    assert "ml.trn1.32xlarge" in message
    assert "ml.x9.huge" in message
    assert "prices:" in message
    assert "https://aws.amazon.com/sagemaker/pricing/" in message
    # `simulate` meets this error too: no advice that needs a finished run and AWS (the report adds its own)
    assert "--price-list" not in message
    assert caught.value.instance_types == ("ml.trn1.32xlarge", "ml.x9.huge")


def test_region_matters() -> None:
    book = PriceBook("eu-west-1", load_price_table())
    with pytest.raises(UnknownPriceError, match="eu-west-1"):
        book.price("ml.m5.xlarge")
