"""Fetching the AWS Price List's SageMaker offer files, over HTTP or from disk, into a price table (thin I/O over
:mod:`~sagemaker_fleet.cost.offers`).

Bounded: only http(s), a timeout per file, at most :data:`MAX_OFFER_BYTES` read from any one, and every region's
file fetched from the host the region index came from (an index cannot send the command elsewhere).
"""

from __future__ import annotations

import json
import urllib.error
import urllib.request
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any
from urllib.parse import urljoin, urlsplit

from sagemaker_fleet.cost.errors import PriceListError
from sagemaker_fleet.cost.offers import (
    OfferFileError,
    RegionOffer,
    offer_region,
    offers_table,
    read_region_index,
    read_region_offer,
)
from sagemaker_fleet.cost.pricelist import USAGE_TYPE_PREFIX

if TYPE_CHECKING:
    from sagemaker_fleet.fleetspec.price_table import PriceTable

#: No offer file is larger (a region's SageMaker file is a few MB; the whole offer, every region, a few hundred).
MAX_OFFER_BYTES = 256 * 1024 * 1024
DEFAULT_TIMEOUT_SECONDS = 60.0
_CHUNK = 1024 * 1024


class OfferFetchError(PriceListError, RuntimeError):
    """The Price List could not be reached or answered with a server error: a failure outside, not bad input."""


#: ``fetch(url) -> parsed JSON``; :func:`fetch_json` over HTTP, a stand-in in tests of the refresh's order.
Fetch = Callable[[str], Any]


@dataclass(frozen=True)
class Refresh:
    """What a refresh made: the table, each region's offer, and the regions left out with the reason."""

    table: PriceTable
    offers: tuple[RegionOffer, ...]
    skipped: tuple[tuple[str, str], ...]


def fetch_json(url: str, timeout: float = DEFAULT_TIMEOUT_SECONDS) -> Any:
    """GET ``url`` and parse its JSON, reading at most :data:`MAX_OFFER_BYTES`."""
    if urlsplit(url).scheme not in ("http", "https"):
        raise OfferFileError(f"{url}: only http(s) URLs are fetched")
    request = urllib.request.Request(url, headers={"Accept": "application/json"})
    try:
        with urllib.request.urlopen(request, timeout=timeout) as response:  # noqa: S310 - scheme checked above
            body = _read_bounded(response, url)
    except urllib.error.HTTPError as exc:
        if 400 <= exc.code < 500:
            raise OfferFileError(f"{url}: HTTP {exc.code} {exc.reason}; check --offers-url") from None
        raise OfferFetchError(f"{url}: HTTP {exc.code} {exc.reason}; try again later") from None
    except (urllib.error.URLError, TimeoutError, OSError) as exc:
        reason = getattr(exc, "reason", exc)
        raise OfferFetchError(f"{url}: cannot be fetched ({reason})") from None
    return _parse(body, url)


def _read_bounded(response: Any, where: str) -> bytes:
    chunks, size = [], 0
    while chunk := response.read(_CHUNK):
        size += len(chunk)
        if size > MAX_OFFER_BYTES:
            raise OfferFileError(
                f"{where}: larger than {MAX_OFFER_BYTES:,} bytes: not a SageMaker offer file"
            )
        chunks.append(chunk)
    return b"".join(chunks)


def _parse(body: bytes, where: str) -> Any:
    try:
        return json.loads(body)
    except (UnicodeDecodeError, ValueError):
        raise OfferFileError(f"{where}: not JSON: not an AWS Price List offer file") from None


def refresh_from_index(
    index_url: str, regions: Sequence[str] = (), fetch: Fetch = fetch_json, now: datetime | None = None
) -> Refresh:
    """Every region of the SageMaker region index at ``index_url`` (or only ``regions``): its offer file fetched
    from the index's host and read. The table is dated by the index's publication date."""
    index = read_region_index(fetch(index_url), index_url)
    unknown = sorted(set(regions) - set(index.regions))
    if unknown:
        raise OfferFileError(
            f"--region {', '.join(unknown)}: not in the price list's regions ({', '.join(sorted(index.regions))})"
        )
    origin = urlsplit(index_url)[:2]
    offers: list[RegionOffer] = []
    skipped: list[tuple[str, str]] = []
    for region in sorted(regions or index.regions):
        if region not in USAGE_TYPE_PREFIX:
            skipped.append((region, "its usage-type prefix is not known to this version"))
            continue
        url = urljoin(index_url, index.regions[region])
        if urlsplit(url)[:2] != origin:
            raise OfferFileError(f"{index_url}: regions.{region} points at another host ({url}); refused")
        offer = read_region_offer(fetch(url), region, url)
        if offer.prices:
            offers.append(offer)
        else:
            skipped.append((region, "no training prices in its offer file"))
    if not offers:
        raise OfferFileError(f"{index_url}: no region's offer file has a training price; check --offers-url")
    retrieved = {
        "from": index_url,
        "publication_date": index.publication_date,
        "fetched_at": (now or datetime.now(UTC)).isoformat(timespec="seconds"),
    }
    return Refresh(offers_table(offers, index.publication_date, retrieved), tuple(offers), tuple(skipped))


def refresh_from_files(paths: Sequence[Path], now: datetime | None = None) -> Refresh:
    """The training prices of local per-region offer files (each names its region in its products); dated by the
    newest file's publication date."""
    offers: list[RegionOffer] = []
    skipped: list[tuple[str, str]] = []
    for path in paths:
        try:
            if path.stat().st_size > MAX_OFFER_BYTES:
                raise OfferFileError(
                    f"{path}: larger than {MAX_OFFER_BYTES:,} bytes: not a SageMaker offer file"
                )
            doc = _parse(path.read_bytes(), str(path))
        except OSError as exc:
            raise OfferFileError(f"{path}: cannot be read ({exc.strerror or exc})") from None
        region = offer_region(doc, str(path))
        if region in {offer.region for offer in offers} | {name for name, _ in skipped}:
            raise OfferFileError(f"{path}: a second offer file of {region}; give one file per region")
        if region not in USAGE_TYPE_PREFIX:
            skipped.append((region, "its usage-type prefix is not known to this version"))
            continue
        offer = read_region_offer(doc, region, str(path))
        if offer.prices:
            offers.append(offer)
        else:
            skipped.append((region, "no training prices in its offer file"))
    priced = offers
    if not priced:
        raise OfferFileError("no training price in the files given: are they AmazonSageMaker offer files?")
    as_of = max(offer.publication_date for offer in priced)
    retrieved = {
        "from": ", ".join(str(path) for path in paths),
        "publication_date": as_of,
        "fetched_at": (now or datetime.now(UTC)).isoformat(timespec="seconds"),
    }
    return Refresh(offers_table(priced, as_of, retrieved), tuple(priced), tuple(skipped))
