"""The AWS Price List's bulk offer files for ``AmazonSageMaker`` read into a price table (``prices refresh``).

AWS publishes, without credentials, a region index (``…/AmazonSageMaker/current/region_index.json``: each region's
``currentVersionUrl``) and one offer file per region: ``products`` keyed by SKU, each with its ``attributes``
(``usagetype``, ``regionCode``), and ``terms.OnDemand`` keyed by SKU, each term's ``priceDimensions`` with a
``unit`` (``Hrs``) and a ``pricePerUnit.USD`` string. A training instance-hour is the product whose usage type is
``<PREFIX>-Train:<instance type>`` (:data:`~sagemaker_fleet.cost.pricelist.USAGE_TYPE_PREFIX`). Pure: the files are
handed in as parsed JSON (:mod:`~sagemaker_fleet.cost.offers_fetch` fetches them), nothing is guessed, and a
(region, type) the files do not price stays missing.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from sagemaker_fleet.cost.errors import PriceListError
from sagemaker_fleet.cost.pricelist import (
    SERVICE_CODE,
    TRAINING_USAGE_TYPE_RE,
    USAGE_TYPE_PREFIX,
    on_demand_usd_per_hour,
)
from sagemaker_fleet.fleetspec.formats import INSTANCE_TYPE_RE
from sagemaker_fleet.fleetspec.price_table import PriceTable, TableEntry

#: AWS's region index of the SageMaker offer (the Price List bulk API; no credentials).
OFFER_INDEX_URL = (
    f"https://pricing.us-east-1.amazonaws.com/offers/v1.0/aws/{SERVICE_CODE}/current/region_index.json"
)
#: What a refreshed table's ``unit`` says.
UNIT = "on-demand price per instance-hour of SageMaker Training (usage type <PREFIX>-Train:<instance type>)"


class OfferFileError(PriceListError, ValueError):
    """A file that is not an AWS Price List offer file of the kind expected: the message names the file and the
    field."""


@dataclass(frozen=True)
class RegionIndex:
    """The region index: when AWS published it and the URL of each region's current offer file."""

    publication_date: str
    regions: Mapping[str, str]


@dataclass(frozen=True)
class TrainingPrice:
    instance_type: str
    usd_per_hour: float
    usage_type: str
    sku: str


@dataclass(frozen=True)
class RegionOffer:
    """One region's training prices, with the offer file's version and publication date, and what was left out
    (a usage type priced twice, a prefix that is not the table's) so that the command can say so."""

    region: str
    source: str
    version: str
    publication_date: str
    prices: Mapping[str, TrainingPrice]
    left_out: tuple[str, ...] = field(default_factory=tuple)


def _text(doc: Mapping[str, Any], key: str, where: str) -> str:
    value = doc.get(key)
    if not isinstance(value, str) or not value:
        raise OfferFileError(f"{where}: {key} is missing; is this an AWS Price List offer file?")
    return value


def _date(text: str, where: str) -> str:
    try:
        return datetime.fromisoformat(text.replace("Z", "+00:00")).date().isoformat()
    except ValueError:
        raise OfferFileError(f"{where}: publicationDate {text!r} is not a timestamp") from None


def read_region_index(doc: Any, where: str) -> RegionIndex:
    """The regions of a ``region_index.json`` and the URL (as written, often a path) of each one's offer file."""
    if not isinstance(doc, Mapping) or not isinstance(doc.get("regions"), Mapping):
        raise OfferFileError(f"{where}: no regions: not the region index of an AWS Price List offer")
    published = _date(_text(doc, "publicationDate", where), where)
    regions = {}
    for code, entry in doc["regions"].items():
        if not isinstance(entry, Mapping):
            raise OfferFileError(f"{where}: regions.{code} is not an object")
        regions[str(code)] = _text(entry, "currentVersionUrl", f"{where}: regions.{code}")
    return RegionIndex(published, regions)


def offer_region(doc: Any, where: str) -> str:
    """The region of a per-region offer file: the one ``regionCode`` its products carry."""
    products = doc.get("products") if isinstance(doc, Mapping) else None
    if not isinstance(products, Mapping):
        raise OfferFileError(f"{where}: no products: not an AWS Price List offer file")
    codes = {
        product["attributes"].get("regionCode")
        for product in products.values()
        if isinstance(product, Mapping) and isinstance(product.get("attributes"), Mapping)
    } - {None}
    if len(codes) != 1:
        found = ", ".join(sorted(map(str, codes))) or "none"
        raise OfferFileError(f"{where}: a per-region offer file names one regionCode; this one names {found}")
    return str(codes.pop())


def read_region_offer(doc: Any, region: str, where: str) -> RegionOffer:
    """The on-demand training prices of ``region``'s offer file (``doc``, parsed JSON)."""
    if not isinstance(doc, Mapping):
        raise OfferFileError(f"{where}: not a JSON object")
    if doc.get("offerCode") != SERVICE_CODE:
        raise OfferFileError(f"{where}: offerCode {doc.get('offerCode')!r}; expected {SERVICE_CODE!r}")
    products, terms = doc.get("products"), (doc.get("terms") or {}).get("OnDemand")
    if not isinstance(products, Mapping) or not isinstance(terms, Mapping):
        raise OfferFileError(f"{where}: products and terms.OnDemand are needed")
    found, left_out = _training_prices(products, terms, region, where)
    prices = {}
    for itype, candidates in sorted(found.items()):
        if len({c.usd_per_hour for c in candidates}) > 1:
            each = ", ".join(f"{c.sku} {c.usd_per_hour:g}" for c in candidates)
            left_out.add(f"{candidates[0].usage_type}: several on-demand prices ({each})")
            continue
        prices[itype] = candidates[0]
    published = _date(_text(doc, "publicationDate", where), where)
    return RegionOffer(
        region, where, _text(doc, "version", where), published, prices, tuple(sorted(left_out))
    )


def _training_prices(
    products: Mapping[str, Any], terms: Mapping[str, Any], region: str, where: str
) -> tuple[dict[str, list[TrainingPrice]], set[str]]:
    """Every hourly on-demand price of a ``<PREFIX>-Train:<type>`` product of ``region``, by type; and the training
    usage types of another prefix, left out."""
    prefix = USAGE_TYPE_PREFIX.get(region)
    found: dict[str, list[TrainingPrice]] = {}
    left_out: set[str] = set()
    for sku, product in products.items():
        attributes = product.get("attributes") if isinstance(product, Mapping) else None
        if not isinstance(attributes, Mapping) or attributes.get("regionCode", region) != region:
            continue
        match = TRAINING_USAGE_TYPE_RE.match(str(attributes.get("usagetype", "")))
        if match is None or not INSTANCE_TYPE_RE.match(match["instance_type"]):
            continue
        if match["prefix"] != prefix:
            left_out.add(
                f"{match.group(0)}: the usage-type prefix of {region} is {prefix or 'not known here'}"
            )
            continue
        usd = _hourly(terms.get(sku), f"{where}: terms.OnDemand.{sku}")
        if usd is not None:
            price = TrainingPrice(match["instance_type"], usd, match.group(0), str(sku))
            found.setdefault(price.instance_type, []).append(price)
    return found, left_out


def _hourly(term: Any, where: str) -> float | None:
    if not isinstance(term, Mapping):
        return None
    try:
        return on_demand_usd_per_hour({"terms": {"OnDemand": term}})
    except PriceListError as exc:  # several hourly dimensions in one term: not a price we can take
        raise OfferFileError(f"{where}: {exc}") from None
    except (TypeError, ValueError, AttributeError):
        raise OfferFileError(f"{where}: priceDimensions are not AWS's shape") from None


def offers_table(offers: Sequence[RegionOffer], as_of: str, retrieved: Mapping[str, str]) -> PriceTable:
    """The price table of ``offers``: one source per region (its offer file, version and publication date), each
    entry its usage type; regions without a training price are left out."""
    regions = {
        offer.region: {
            itype: TableEntry(price.usd_per_hour, f"offer:{offer.region}", price.usage_type)
            for itype, price in offer.prices.items()
        }
        for offer in offers
        if offer.prices
    }
    sources = {
        f"offer:{offer.region}": f"AWS Price List offer file {offer.source} ({SERVICE_CODE} {offer.region}, "
        f"version {offer.version}, published {offer.publication_date}), OnDemand terms"
        for offer in offers
        if offer.prices
    }
    note = (
        f"AWS Price List bulk offer files of {SERVICE_CODE}, training usage types, on-demand; written by "
        "`sagemaker-fleet prices refresh`. A spec's `prices:` wins over it."
    )
    return PriceTable(as_of, note, regions, sources, origin="refreshed", retrieved=dict(retrieved))
