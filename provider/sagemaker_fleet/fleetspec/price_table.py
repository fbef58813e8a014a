"""The dated price table: on-demand USD per instance-hour of SageMaker Training, per region, each entry with its
source. One format, two copies: the table shipped in ``sagemaker_fleet/data/prices.json``, and the one
``sagemaker-fleet prices refresh`` writes from the AWS Price List (:func:`refreshed_table_path`), which wins when it
exists.

It is read here, in the spec's layer, so that ``validate`` can warn about an instance type the fleet cannot be
priced for (:mod:`~sagemaker_fleet.fleetspec.build`); the lookup that prices a run (spec ``prices:`` > Price List
API > this table) is :class:`sagemaker_fleet.jobs.prices.PriceBook`.
"""

from __future__ import annotations

import json
import math
import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import UTC, date, datetime
from importlib import resources
from pathlib import Path
from typing import TYPE_CHECKING, Any

from sagemaker_fleet.errors import SageMakerFleetError
from sagemaker_fleet.fleetspec.render import some_names

if TYPE_CHECKING:
    from sagemaker_fleet.fleetspec.model import CitySpec

#: Where a user finds the on-demand price to write into the spec's ``prices:`` (the warning here and the cost
#: report's :class:`~sagemaker_fleet.jobs.errors.UnknownPriceError` both point there).
PRICING_PAGE = "https://aws.amazon.com/sagemaker/pricing/"
#: The command that writes a table of every region's training prices from the AWS Price List.
REFRESH_COMMAND = "sagemaker-fleet prices refresh"
SCHEMA = 1
#: What ``origin`` says of the table shipped in the package.
SHIPPED = "shipped with the package"
#: A document larger than this is no price table (AWS's whole SageMaker training list is a few hundred kB).
MAX_TABLE_BYTES = 16 * 1024 * 1024


class PriceTableError(SageMakerFleetError, ValueError):
    """A price table that cannot be read: the message names the file, the field and the fix."""


@dataclass(frozen=True)
class TableEntry:
    usd_per_hour: float
    source: str
    usage_type: str | None = None


@dataclass(frozen=True)
class PriceTable:
    """A dated table: ``as_of`` is the date of its prices (for a refreshed table, the AWS Price List's publication
    date), ``origin`` where it was read from, ``retrieved`` how it was made (URL or files, when)."""

    as_of: str
    source_note: str
    regions: Mapping[str, Mapping[str, TableEntry]]
    sources: Mapping[str, str] = field(default_factory=dict)
    origin: str = SHIPPED
    retrieved: Mapping[str, str] = field(default_factory=dict)

    def entry(self, region: str, instance_type: str) -> TableEntry | None:
        return self.regions.get(region, {}).get(instance_type)

    def known_types(self, region: str) -> tuple[str, ...]:
        return tuple(sorted(self.regions.get(region, {})))

    def age_days(self, today: date | None = None) -> int:
        """Whole days from ``as_of`` to ``today`` (UTC), never negative."""
        today = today or datetime.now(UTC).date()
        return max(0, (today - date.fromisoformat(self.as_of)).days)

    def describe(self, today: date | None = None) -> str:
        """``the price table shipped with the package (as of 2026-11-29, 12 days old)``: which table, how old."""
        days = self.age_days(today)
        old = "today" if days == 0 else f"{days} day{'s' if days != 1 else ''} old"
        where = SHIPPED if self.origin == SHIPPED else f"at {self.origin}"
        return f"the price table {where} (as of {self.as_of}, {old})"


def refreshed_table_path() -> Path:
    """``$SAGEMAKER_FLEET_PRICE_TABLE, else $XDG_DATA_HOME/sagemaker-fleet/prices.json`` (``~/.local/share`` when
    XDG_DATA_HOME is unset): where ``prices refresh`` writes and every command looks first."""
    explicit = os.environ.get("SAGEMAKER_FLEET_PRICE_TABLE")
    if explicit:
        return Path(explicit)
    base = os.environ.get("XDG_DATA_HOME") or str(Path.home() / ".local" / "share")
    return Path(base) / "sagemaker-fleet" / "prices.json"


def load_price_table(data: Mapping[str, Any] | None = None) -> PriceTable:
    """The table ``prices refresh`` wrote when there is one (:func:`refreshed_table_path`), else the shipped one;
    or ``data`` in the same shape (tests, and the refresh checking what it is about to write)."""
    if data is not None:
        return parse_price_table(data, "the given table")
    refreshed = refreshed_table_path()
    if refreshed.is_file():
        return read_price_table(refreshed)
    text = resources.files("sagemaker_fleet").joinpath("data/prices.json").read_text(encoding="utf-8")
    return parse_price_table(json.loads(text), SHIPPED)


def read_price_table(path: Path) -> PriceTable:
    fix = f"run `{REFRESH_COMMAND}` again, or delete the file to use the table shipped with the package"
    try:
        if path.stat().st_size > MAX_TABLE_BYTES:
            raise PriceTableError(f"{path}: larger than {MAX_TABLE_BYTES:,} bytes, not a price table; {fix}")
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, ValueError) as exc:
        if isinstance(exc, PriceTableError):
            raise
        raise PriceTableError(f"{path}: cannot be read as a price table ({exc}); {fix}") from exc
    try:
        return parse_price_table(data, str(path))
    except PriceTableError as exc:
        raise PriceTableError(f"{exc}; {fix}") from exc


def parse_price_table(data: Any, origin: str) -> PriceTable:
    """Check the document's shape, naming the first wrong field (``regions.eu-west-3.ml.m5.xlarge.usd_per_hour``)."""
    if not isinstance(data, Mapping):
        raise PriceTableError(f"{origin}: a price table is a JSON object")
    if data.get("schema", SCHEMA) != SCHEMA:
        raise PriceTableError(f"{origin}: schema {data.get('schema')!r}; this version reads schema {SCHEMA}")
    as_of = data.get("as_of")
    try:
        date.fromisoformat(str(as_of))
    except ValueError:
        raise PriceTableError(f"{origin}: as_of {as_of!r} is not a date (YYYY-MM-DD)") from None
    raw_regions = data.get("regions")
    if not isinstance(raw_regions, Mapping):
        raise PriceTableError(f"{origin}: regions must map each region to its instance types")
    regions = {
        str(region): _region_entries(origin, str(region), types) for region, types in raw_regions.items()
    }
    return PriceTable(
        as_of=str(as_of),
        source_note=str(data.get("source", "")),
        regions=regions,
        sources={str(k): str(v) for k, v in (data.get("sources") or {}).items()},
        origin=origin,
        retrieved={str(k): str(v) for k, v in (data.get("retrieved") or {}).items()},
    )


def _region_entries(origin: str, region: str, types: Any) -> dict[str, TableEntry]:
    if not isinstance(types, Mapping):
        raise PriceTableError(f"{origin}: regions.{region} must map instance types to prices")
    entries = {}
    for itype, raw in types.items():
        where = f"{origin}: regions.{region}.{itype}"
        usd = raw.get("usd_per_hour") if isinstance(raw, Mapping) else None
        if isinstance(usd, bool) or not isinstance(usd, int | float) or not math.isfinite(usd) or usd <= 0:
            raise PriceTableError(f"{where}.usd_per_hour must be a positive number of USD, not {usd!r}")
        usage_type = raw.get("usage_type")
        entries[str(itype)] = TableEntry(
            float(usd), str(raw.get("source", "")), None if usage_type is None else str(usage_type)
        )
    return entries


def table_document(table: PriceTable, unit: str) -> dict[str, Any]:
    """The JSON document of ``table``, in the shipped table's format (what ``prices refresh`` writes)."""
    return {
        "schema": SCHEMA,
        "as_of": table.as_of,
        "currency": "USD",
        "unit": unit,
        "source": table.source_note,
        "retrieved": dict(table.retrieved),
        "sources": dict(sorted(table.sources.items())),
        "regions": {
            region: {
                itype: {
                    "usd_per_hour": entry.usd_per_hour,
                    "source": entry.source,
                    **({"usage_type": entry.usage_type} if entry.usage_type else {}),
                }
                for itype, entry in sorted(types.items())
            }
            for region, types in sorted(table.regions.items())
        },
    }


def unpriced_warnings(
    region: str,
    spec_prices: Mapping[str, object],
    cities: Sequence[CitySpec],
    table: PriceTable | None = None,
    today: date | None = None,
) -> list[str]:
    """One warning per instance type of ``cities`` priced neither by the spec's ``prices:`` nor by the price table
    in ``region``: without a price ``simulate`` refuses the fleet and the cost estimate and report cannot price
    its jobs, so ``validate`` says so (with the fix, and how old the table is) before any of them runs."""
    try:
        table = table or load_price_table()
    except PriceTableError as exc:
        return [f"prices: {exc}"]
    users: dict[str, list[str]] = {}
    for city in cities:
        if city.instance_type not in spec_prices and table.entry(region, city.instance_type) is None:
            users.setdefault(city.instance_type, []).append(city.name)
    return [
        f"prices: no price for {itype} in {region} (used by {some_names(names)}) in {table.describe(today)}: "
        "`simulate` refuses the fleet, and the run's cost estimate and the cost report cannot price its jobs; "
        f"run `{REFRESH_COMMAND}` to fetch every region's training prices from the AWS Price List, or add its "
        f"on-demand training price to the spec as `prices: {{{itype}: <USD per instance-hour>}}` ({PRICING_PAGE})"
        for itype, names in users.items()
    ]
