"""Optional price look-up through the AWS Price List Query API, with a local JSON cache.

Off by default (the report must work offline and against the simulator); ``sagemaker-fleet report --price-list``
turns it on. The client is passed in: this module never creates a boto3 client, the CLI does. The API is queried
by usage type, ``<REGION PREFIX>-Train:<instance type>``, which is how SageMaker training instance-hours are billed.
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any, Protocol

from sagemaker_fleet.cost.errors import PriceListError
from sagemaker_fleet.jobs.paging import PagedListing

SERVICE_CODE = "AmazonSageMaker"
#: The Price List Query API is served from these regions only; the CLI uses the first.
PRICE_LIST_API_REGIONS = ("us-east-1", "eu-central-1", "ap-south-1")
DEFAULT_MAX_AGE = timedelta(days=30)
CACHE_SCHEMA = 1

#: AWS billing usage-type prefixes per region (as in Cost and Usage Reports: ``USE1-Train:ml.m5.xlarge``), every
#: region AWS prices SageMaker in. The one table: the Price List look-up builds its usage types from it and
#: ``prices refresh`` picks a region's training products out of its offer file with it (and says so when a file
#: disagrees), so a region missing here is one neither can price.
USAGE_TYPE_PREFIX: dict[str, str] = {
    "us-east-1": "USE1",
    "us-east-2": "USE2",
    "us-west-1": "USW1",
    "us-west-2": "USW2",
    "us-gov-west-1": "UGW1",
    "us-gov-east-1": "UGE1",
    "ca-central-1": "CAN1",
    "ca-west-1": "CAN2",
    "mx-central-1": "MXC1",
    "sa-east-1": "SAE1",
    "eu-west-1": "EU",
    "eu-west-2": "EUW2",
    "eu-west-3": "EUW3",
    "eu-central-1": "EUC1",
    "eu-central-2": "EUC2",
    "eu-north-1": "EUN1",
    "eu-south-1": "EUS1",
    "eu-south-2": "EUS2",
    "ap-east-1": "APE1",
    "ap-northeast-1": "APN1",
    "ap-northeast-2": "APN2",
    "ap-northeast-3": "APN3",
    "ap-southeast-1": "APS1",
    "ap-southeast-2": "APS2",
    "ap-south-1": "APS3",
    "ap-southeast-3": "APS4",
    "ap-south-2": "APS5",
    "ap-southeast-4": "APS6",
    "ap-southeast-5": "APS7",
    "ap-southeast-7": "APS9",
    "me-south-1": "MES1",
    "me-central-1": "MEC1",
    "il-central-1": "ILC1",
    "af-south-1": "AFS1",
}


class PricingClient(Protocol):
    """The one call this module makes (a boto3 ``pricing`` client satisfies it)."""

    def get_products(self, **kwargs: Any) -> Mapping[str, Any]: ...


@dataclass(frozen=True)
class CachedPrice:
    usd_per_hour: float
    usage_type: str
    fetched_at: datetime


def default_cache_path() -> Path:
    """``$XDG_CACHE_HOME/sagemaker-fleet/price-list.json`` (``~/.cache`` when unset)."""
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "sagemaker-fleet" / "price-list.json"


#: A training usage type read back: its region prefix and instance type (the inverse of :func:`training_usage_type`).
TRAINING_USAGE_TYPE_RE = re.compile(
    r"^(?P<prefix>[A-Z0-9]+)-Train:(?P<instance_type>ml\.[a-z0-9][a-z0-9.\-]*)$"
)


def training_usage_type(region: str, instance_type: str) -> str:
    prefix = USAGE_TYPE_PREFIX.get(region)
    if prefix is None:
        raise PriceListError(
            f"the Price List look-up does not know the usage-type prefix of region {region}; "
            f"set the price in the fleet spec instead: `prices: {{{instance_type}: <USD per instance-hour>}}`"
        )
    return f"{prefix}-Train:{instance_type}"


def on_demand_usd_per_hour(price_item: str | Mapping[str, Any]) -> float | None:
    """The hourly on-demand USD price in one GetProducts ``PriceList`` entry (a JSON string), if it has one."""
    item: Mapping[str, Any] = json.loads(price_item) if isinstance(price_item, str) else price_item
    prices: set[float] = set()
    for offer in (item.get("terms") or {}).get("OnDemand", {}).values():
        for dimension in (offer.get("priceDimensions") or {}).values():
            usd = (dimension.get("pricePerUnit") or {}).get("USD")
            if usd is not None and str(dimension.get("unit", "")).lower().startswith("hr") and float(usd) > 0:
                prices.add(float(usd))
    if len(prices) > 1:
        raise PriceListError(f"ambiguous on-demand prices in one product: {sorted(prices)}")
    return prices.pop() if prices else None


def fetch_training_price(client: PricingClient, region: str, instance_type: str) -> CachedPrice:
    """Ask the Price List API for the on-demand training price of ``instance_type`` in ``region``."""
    usage_type = training_usage_type(region, instance_type)
    filters = [
        {"Type": "TERM_MATCH", "Field": "ServiceCode", "Value": SERVICE_CODE},
        {"Type": "TERM_MATCH", "Field": "usagetype", "Value": usage_type},
    ]
    found: set[float] = set()
    request = {"ServiceCode": SERVICE_CODE, "Filters": filters, "MaxResults": 100}
    listing = PagedListing(f"GetProducts({usage_type})", request, "PriceList")
    while listing.request is not None:
        for entry in listing.take(client.get_products(**listing.request)):
            usd = on_demand_usd_per_hour(entry)
            if usd is not None:
                found.add(usd)
    if not found:
        raise PriceListError(
            f"the AWS Price List API has no on-demand price for usage type {usage_type}; "
            f"set it in the fleet spec: `prices: {{{instance_type}: <USD per instance-hour>}}`"
        )
    if len(found) > 1:
        raise PriceListError(f"the AWS Price List API gave several prices for {usage_type}: {sorted(found)}")
    return CachedPrice(found.pop(), usage_type, datetime.now(UTC))


class PriceListCache:
    """A JSON file of Price List answers keyed ``region/instance_type``; entries older than ``max_age`` refetch."""

    def __init__(self, path: Path, max_age: timedelta = DEFAULT_MAX_AGE) -> None:
        self.path = path
        self.max_age = max_age

    def load(self) -> dict[str, CachedPrice]:
        try:
            data = json.loads(self.path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return {}
        if not isinstance(data, dict) or data.get("schema") != CACHE_SCHEMA:
            return {}
        entries: dict[str, CachedPrice] = {}
        for key, raw in (data.get("entries") or {}).items():
            try:
                fetched = datetime.fromisoformat(raw["fetched_at"])
                if fetched.tzinfo is None:
                    fetched = fetched.replace(tzinfo=UTC)
                entries[key] = CachedPrice(float(raw["usd_per_hour"]), str(raw["usage_type"]), fetched)
            except (KeyError, TypeError, ValueError):
                continue  # a damaged entry is fetched again
        return entries

    def save(self, entries: Mapping[str, CachedPrice]) -> None:
        self.path.parent.mkdir(parents=True, exist_ok=True)
        payload = {
            "schema": CACHE_SCHEMA,
            "source": f"AWS Price List Query API, ServiceCode {SERVICE_CODE}, on-demand, USD per instance-hour",
            "entries": {
                key: {
                    "usd_per_hour": entry.usd_per_hour,
                    "usage_type": entry.usage_type,
                    "fetched_at": entry.fetched_at.isoformat(),
                }
                for key, entry in sorted(entries.items())
            },
        }
        tmp = self.path.with_suffix(".tmp")
        tmp.write_text(json.dumps(payload, indent=2) + "\n", encoding="utf-8")
        tmp.replace(self.path)

    def fresh(self, entry: CachedPrice, now: datetime) -> bool:
        return now - entry.fetched_at <= self.max_age


def lookup_price_list(
    client: PricingClient,
    region: str,
    instance_types: Iterable[str],
    cache: PriceListCache,
    now: datetime | None = None,
) -> dict[str, CachedPrice]:
    """Prices of ``instance_types`` in ``region``: from the cache when fresh, else from the API (then cached)."""
    now = now or datetime.now(UTC)
    entries = cache.load()
    result: dict[str, CachedPrice] = {}
    changed = False
    for itype in sorted(set(instance_types)):
        key = f"{region}/{itype}"
        cached = entries.get(key)
        if cached is None or not cache.fresh(cached, now):
            cached = fetch_training_price(client, region, itype)
            entries[key] = cached
            changed = True
        result[itype] = cached
    if changed:
        cache.save(entries)
    return result
