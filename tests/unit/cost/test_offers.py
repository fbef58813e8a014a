"""The AWS Price List's SageMaker offer files read into a price table: only training instance-hours, on demand, of
the region's own usage-type prefix; nothing guessed, a doubtful price left out and said.

The files under tests/data/price_list are written from AWS's documented bulk-file format (a region index; per
region ``products`` by SKU and ``terms.OnDemand`` by SKU): no real offer file could be fetched where they were
made, and their prices are made up (each ends in 7).
"""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import pytest

from sagemaker_fleet.cost.offers import (
    OfferFileError,
    offer_region,
    offers_table,
    read_region_index,
    read_region_offer,
)
from sagemaker_fleet.cost.pricelist import TRAINING_USAGE_TYPE_RE, USAGE_TYPE_PREFIX, training_usage_type
from sagemaker_fleet.fleetspec.price_table import load_price_table, table_document

DATA = Path(__file__).resolve().parents[2] / "data" / "price_list"


def offer_file(name: str) -> dict[str, Any]:
    loaded: dict[str, Any] = json.loads((DATA / name).read_text(encoding="utf-8"))
    return loaded


def sku_of(doc: dict[str, Any], usage_type: str) -> str:
    (sku,) = [s for s, p in doc["products"].items() if p["attributes"]["usagetype"] == usage_type]
    return sku


def test_the_region_index_gives_each_regions_offer_file_and_the_date() -> None:
    index = read_region_index(offer_file("region_index.json"), "region_index.json")
    assert index.publication_date == "2026-11-20"
    assert (
        index.regions["eu-west-3"] == "/offers/v1.0/aws/AmazonSageMaker/20261120184323/eu-west-3/index.json"
    )
    assert sorted(index.regions) == ["ap-east-2", "eu-west-3", "us-east-1"]


def test_only_training_instance_hours_are_taken() -> None:
    doc = offer_file("eu-west-3.json")
    offer = read_region_offer(doc, "eu-west-3", "eu-west-3.json")
    # hosting and notebook hours of ml.m5.xlarge, training storage (GB-Mo) and a free type are not training prices
    assert {itype: price.usd_per_hour for itype, price in offer.prices.items()} == {
        "ml.c5.2xlarge": 0.4917,
        "ml.c5.xlarge": 0.2457,
        "ml.g5.xlarge": 1.6617,
        "ml.m5.2xlarge": 0.5437,
        "ml.m5.xlarge": 0.2717,
    }
    price = offer.prices["ml.m5.xlarge"]
    assert price.usage_type == "EUW3-Train:ml.m5.xlarge"
    assert price.sku == sku_of(doc, "EUW3-Train:ml.m5.xlarge")
    assert (offer.version, offer.publication_date, offer.left_out) == ("20261120184323", "2026-11-20", ())


def test_a_type_priced_twice_differently_is_left_out_and_said() -> None:
    doc = offer_file("eu-west-3.json")
    sku = sku_of(doc, "EUW3-Train:ml.c5.xlarge")
    doc["products"]["TWIN"] = dict(copy.deepcopy(doc["products"][sku]), sku="TWIN")
    doc["terms"]["OnDemand"]["TWIN"] = json.loads(
        json.dumps(doc["terms"]["OnDemand"][sku]).replace("0.2457", "0.3")
    )
    offer = read_region_offer(doc, "eu-west-3", "f.json")
    assert "ml.c5.xlarge" not in offer.prices
    assert offer.left_out == (f"EUW3-Train:ml.c5.xlarge: several on-demand prices ({sku} 0.2457, TWIN 0.3)",)
    # the same price twice is one price
    doc["terms"]["OnDemand"]["TWIN"] = copy.deepcopy(doc["terms"]["OnDemand"][sku])
    assert read_region_offer(doc, "eu-west-3", "f.json").prices["ml.c5.xlarge"].usd_per_hour == 0.2457


def test_a_usage_type_of_another_prefix_is_left_out_and_said() -> None:
    doc = offer_file("eu-west-3.json")
    sku = sku_of(doc, "EUW3-Train:ml.g5.xlarge")
    doc["products"][sku]["attributes"]["usagetype"] = "EU-Train:ml.g5.xlarge"
    offer = read_region_offer(doc, "eu-west-3", "f.json")
    assert "ml.g5.xlarge" not in offer.prices
    assert offer.left_out == ("EU-Train:ml.g5.xlarge: the usage-type prefix of eu-west-3 is EUW3",)


def test_a_product_of_another_region_is_not_this_regions_price() -> None:
    doc = offer_file("eu-west-3.json")
    doc["products"][sku_of(doc, "EUW3-Train:ml.g5.xlarge")]["attributes"]["regionCode"] = "eu-west-1"
    assert "ml.g5.xlarge" not in read_region_offer(doc, "eu-west-3", "f.json").prices


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (
            lambda d: d.update(offerCode="AmazonEC2"),
            "f.json: offerCode 'AmazonEC2'; expected 'AmazonSageMaker'",
        ),
        (lambda d: d.pop("terms"), "f.json: products and terms.OnDemand are needed"),
        (lambda d: d.pop("publicationDate"), "f.json: publicationDate is missing"),
        (
            lambda d: d.update(publicationDate="last week"),
            "f.json: publicationDate 'last week' is not a timestamp",
        ),
    ],
)
def test_a_file_that_is_not_a_sagemaker_offer_file_is_refused_naming_the_field(
    change: Any, message: str
) -> None:
    doc = offer_file("eu-west-3.json")
    change(doc)
    with pytest.raises(OfferFileError, match="^" + message.replace("(", r"\(").replace(")", r"\)")):
        read_region_offer(doc, "eu-west-3", "f.json")


def test_a_local_offer_file_names_its_region() -> None:
    assert offer_region(offer_file("eu-west-3.json"), "f.json") == "eu-west-3"
    with pytest.raises(OfferFileError, match="names one regionCode; this one names none"):
        offer_region({"products": {}}, "f.json")


def test_the_table_reads_back_dated_with_one_source_per_region() -> None:
    offers = [
        read_region_offer(offer_file(f"{region}.json"), region, f"https://h/{region}/index.json")
        for region in ("eu-west-3", "us-east-1")
    ]
    table = offers_table(offers, "2026-11-20", {"from": "https://h/region_index.json"})
    back = load_price_table(table_document(table, "USD per hour"))
    assert back.as_of == "2026-11-20"
    entry = back.entry("eu-west-3", "ml.m5.xlarge")
    assert entry is not None
    assert (entry.usd_per_hour, entry.usage_type, entry.source) == (
        0.2717,
        "EUW3-Train:ml.m5.xlarge",
        "offer:eu-west-3",
    )
    assert back.sources["offer:eu-west-3"] == (
        "AWS Price List offer file https://h/eu-west-3/index.json (AmazonSageMaker eu-west-3, version 20261120184323, "
        "published 2026-11-20), OnDemand terms"
    )
    assert back.known_types("us-east-1") == ("ml.c5.xlarge", "ml.m5.xlarge")
    assert back.retrieved == {"from": "https://h/region_index.json"}


@pytest.mark.parametrize("region", sorted(USAGE_TYPE_PREFIX))
def test_every_regions_usage_type_reads_back(region: str) -> None:
    match = TRAINING_USAGE_TYPE_RE.match(training_usage_type(region, "ml.g6e.12xlarge"))
    assert match is not None
    assert (match["prefix"], match["instance_type"]) == (USAGE_TYPE_PREFIX[region], "ml.g6e.12xlarge")


def test_each_prefix_is_one_regions() -> None:
    assert len(set(USAGE_TYPE_PREFIX.values())) == len(USAGE_TYPE_PREFIX)
