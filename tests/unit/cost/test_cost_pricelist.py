"""AWS Price List look-up through a fake ``pricing`` client, and its JSON cache."""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest

from sagemaker_fleet.cost.errors import PriceListError
from sagemaker_fleet.cost.pricelist import (
    PriceListCache,
    fetch_training_price,
    lookup_price_list,
    on_demand_usd_per_hour,
    training_usage_type,
)


def product(usage_type: str, usd: str) -> str:
    return json.dumps(
        {
            "product": {"attributes": {"usagetype": usage_type, "servicecode": "AmazonSageMaker"}},
            "terms": {
                "OnDemand": {
                    "SKU.JRTCKXETXF": {
                        "priceDimensions": {
                            "SKU.JRTCKXETXF.6YS6EN2CT7": {
                                "unit": "Hrs",
                                "pricePerUnit": {"USD": usd},
                                "description": f"${usd} per hour",
                            }
                        }
                    }
                }
            },
        }
    )


class FakePricing:
    def __init__(self, prices: dict[str, str], split_pages: bool = False) -> None:
        self.prices = prices
        self.calls: list[dict[str, Any]] = []
        self.split_pages = split_pages

    def get_products(self, **kwargs: Any) -> dict[str, Any]:
        self.calls.append(kwargs)
        usage = next(f["Value"] for f in kwargs["Filters"] if f["Field"] == "usagetype")
        assert kwargs["ServiceCode"] == "AmazonSageMaker"
        items = [product(usage, self.prices[usage])] if usage in self.prices else []
        if self.split_pages and "NextToken" not in kwargs:
            return {"PriceList": [], "NextToken": "page2"}
        return {"PriceList": items}


def test_usage_type_per_region() -> None:
    assert training_usage_type("us-east-1", "ml.m5.xlarge") == "USE1-Train:ml.m5.xlarge"
    assert training_usage_type("eu-west-1", "ml.m5.xlarge") == "EU-Train:ml.m5.xlarge"
    with pytest.raises(PriceListError, match="prices:"):
        training_usage_type("xx-nowhere-9", "ml.m5.xlarge")


def test_on_demand_price_is_read_from_a_price_list_entry() -> None:
    assert on_demand_usd_per_hour(product("USE1-Train:ml.m5.xlarge", "0.2300000000")) == 0.23
    assert on_demand_usd_per_hour(product("USE1-Train:ml.m5.xlarge", "0.0000000000")) is None


def test_fetch_follows_pages() -> None:
    client = FakePricing({"USE1-Train:ml.m5.xlarge": "0.23"}, split_pages=True)
    found = fetch_training_price(client, "us-east-1", "ml.m5.xlarge")
    assert (found.usd_per_hour, found.usage_type) == (0.23, "USE1-Train:ml.m5.xlarge")
    assert len(client.calls) == 2


def test_no_product_is_a_clear_error() -> None:
    with pytest.raises(PriceListError, match="USE1-Train:ml.zz.large"):
        fetch_training_price(FakePricing({}), "us-east-1", "ml.zz.large")


def test_lookup_caches_and_refetches_when_stale(tmp_path: Path) -> None:
    cache = PriceListCache(tmp_path / "prices.json", max_age=timedelta(days=30))
    client = FakePricing({"USE1-Train:ml.m5.xlarge": "0.23", "USE1-Train:ml.c5.xlarge": "0.204"})
    now = datetime.now(UTC)
    first = lookup_price_list(client, "us-east-1", ["ml.m5.xlarge", "ml.c5.xlarge"], cache, now=now)
    assert {k: v.usd_per_hour for k, v in first.items()} == {"ml.m5.xlarge": 0.23, "ml.c5.xlarge": 0.204}
    assert len(client.calls) == 2
    saved = json.loads((tmp_path / "prices.json").read_text())
    assert set(saved["entries"]) == {"us-east-1/ml.m5.xlarge", "us-east-1/ml.c5.xlarge"}

    lookup_price_list(client, "us-east-1", ["ml.m5.xlarge"], cache, now=now + timedelta(days=1))
    assert len(client.calls) == 2  # served from the cache

    lookup_price_list(client, "us-east-1", ["ml.m5.xlarge"], cache, now=now + timedelta(days=31))
    assert len(client.calls) == 3  # stale: asked again


def test_damaged_cache_is_ignored(tmp_path: Path) -> None:
    path = tmp_path / "prices.json"
    path.write_text("{not json")
    assert PriceListCache(path).load() == {}
