"""The dated price table shipped in ``sagemaker_fleet/data/prices.json``: on-demand USD per instance-hour of
SageMaker Training, per region, each entry with its source.

It is read here, in the spec's layer, so that ``validate`` can warn about an instance type the fleet cannot be
priced for (:mod:`~sagemaker_fleet.fleetspec.build`); the lookup that prices a run (spec ``prices:`` > Price List
API > this table) is :class:`sagemaker_fleet.jobs.prices.PriceBook`, which re-exports these names.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from importlib import resources
from typing import TYPE_CHECKING, Any

from sagemaker_fleet.fleetspec.render import some_names

if TYPE_CHECKING:
    from sagemaker_fleet.fleetspec.model import CitySpec

#: Where a user finds the on-demand price to write into the spec's ``prices:`` (the warning here and the cost
#: report's :class:`~sagemaker_fleet.jobs.errors.UnknownPriceError` both point there).
PRICING_PAGE = "https://aws.amazon.com/sagemaker/pricing/"


@dataclass(frozen=True)
class TableEntry:
    usd_per_hour: float
    source: str
    usage_type: str | None = None


@dataclass(frozen=True)
class PriceTable:
    """The dated table shipped in ``sagemaker_fleet/data/prices.json``."""

    as_of: str
    source_note: str
    regions: Mapping[str, Mapping[str, TableEntry]]
    sources: Mapping[str, str] = field(default_factory=dict)

    def entry(self, region: str, instance_type: str) -> TableEntry | None:
        return self.regions.get(region, {}).get(instance_type)

    def known_types(self, region: str) -> tuple[str, ...]:
        return tuple(sorted(self.regions.get(region, {})))


def load_price_table(data: Mapping[str, Any] | None = None) -> PriceTable:
    """Read the shipped table (or ``data`` in the same shape, for tests)."""
    if data is None:
        text = resources.files("sagemaker_fleet").joinpath("data/prices.json").read_text(encoding="utf-8")
        data = json.loads(text)
    regions = {
        region: {
            itype: TableEntry(
                usd_per_hour=float(raw["usd_per_hour"]),
                source=str(raw.get("source", "")),
                usage_type=raw.get("usage_type"),
            )
            for itype, raw in types.items()
        }
        for region, types in data["regions"].items()
    }
    return PriceTable(
        as_of=str(data["as_of"]),
        source_note=str(data.get("source", "")),
        regions=regions,
        sources={str(k): str(v) for k, v in (data.get("sources") or {}).items()},
    )


def unpriced_warnings(
    region: str,
    spec_prices: Mapping[str, object],
    cities: Sequence[CitySpec],
    table: PriceTable | None = None,
) -> list[str]:
    """One warning per instance type of ``cities`` priced neither by the spec's ``prices:`` nor by the shipped
    table in ``region``: without a price ``simulate`` refuses the fleet and the cost estimate and report cannot
    price its jobs, so ``validate`` says so (with the fix) before any of them runs."""
    table = table or load_price_table()
    users: dict[str, list[str]] = {}
    for city in cities:
        if city.instance_type not in spec_prices and table.entry(region, city.instance_type) is None:
            users.setdefault(city.instance_type, []).append(city.name)
    return [
        f"prices: no price for {itype} in {region} (used by {some_names(names)}): `simulate` refuses the fleet, "
        "and the run's cost estimate and the cost report cannot price its jobs; add its on-demand training price "
        f"to the spec as `prices: {{{itype}: <USD per instance-hour>}}` ({PRICING_PAGE}), "
        f"or add it for {region} to the shipped table (sagemaker_fleet/data/prices.json)"
        for itype, names in users.items()
    ]
