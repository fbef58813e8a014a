"""The one price lookup of the cost report: spec override > AWS Price List API (cached) > the price table (the one
``prices refresh`` wrote, else the one shipped in the package).

Prices are on-demand USD per instance-hour of SageMaker Training. Spot jobs are priced at the on-demand rate too:
SageMaker reports their discount through ``BillableTimeInSeconds`` (docs/sagemaker-behaviour.md, billing fields). Retained warm-pool time is
billed at the on-demand rate (an assumption; AWS does not say otherwise: docs/sagemaker-behaviour.md, billing fields).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Literal

from sagemaker_fleet.fleetspec.price_table import SHIPPED, PriceTable, load_price_table
from sagemaker_fleet.jobs.errors import UnknownPriceError

if TYPE_CHECKING:
    from sagemaker_fleet.fleetspec.model import FleetSpec


#: Where a price came from; ``unknown``: no source knows the type, and every money figure of its jobs is left out
#: of the report's totals (the seconds stand), with the fix named (:meth:`PriceBook.cover`).
PriceSource = Literal["spec", "price-list-api", "table", "unknown"]


@dataclass(frozen=True)
class Price:
    """What one instance-hour costs and where that number came from (shown on every cost line)."""

    instance_type: str
    usd_per_hour: float
    source: PriceSource
    detail: str = ""

    @property
    def known(self) -> bool:
        """Whether a source knows this price (``unknown``: its jobs' money is left out of every total)."""
        return self.source != "unknown"


@dataclass(frozen=True)
class PriceBook:
    """Prices for one region, looked up in order: the spec's ``prices:``, the Price List API answers, the table.

    ``api_prices`` is filled by :func:`sagemaker_fleet.cost.pricelist.lookup_price_list` when the user asked for
    it; the book itself never does I/O.
    """

    region: str
    table: PriceTable
    spec_prices: Mapping[str, float] = field(default_factory=dict)
    api_prices: Mapping[str, float] = field(default_factory=dict)
    api_detail: str = "AWS Price List API"

    @classmethod
    def for_spec(cls, spec: FleetSpec) -> PriceBook:
        """The book a fleet is priced with: its region, its ``prices:`` overrides, the shipped table."""
        return cls(spec.region, load_price_table(), spec.prices)

    def price(self, instance_type: str) -> Price:
        if instance_type in self.spec_prices:
            return Price(
                instance_type, float(self.spec_prices[instance_type]), "spec", "fleet spec `prices:`"
            )
        if instance_type in self.api_prices:
            return Price(
                instance_type, float(self.api_prices[instance_type]), "price-list-api", self.api_detail
            )
        entry = self.table.entry(self.region, instance_type)
        if entry is None:
            raise UnknownPriceError([instance_type], self.region, self.table.known_types(self.region))
        note = self.table.sources.get(entry.source, entry.source)
        which = "shipped" if self.table.origin == SHIPPED else "refreshed"
        detail = f"{which} table as of {self.table.as_of} ({entry.source})"
        return Price(instance_type, entry.usd_per_hour, "table", f"{detail}: {note}" if note else detail)

    def cover(self, instance_types: Iterable[str]) -> dict[str, Price]:
        """A price for every type: the known ones as :meth:`price` finds them, the others a price of source
        ``unknown`` (USD 0, never added to a total: :attr:`Price.known`) whose detail names the fix. A report of a
        run in a region the table does not cover still says what ran, started warm and billed, in seconds."""
        found: dict[str, Price] = {}
        for itype in sorted(set(instance_types)):
            try:
                found[itype] = self.price(itype)
            except UnknownPriceError as exc:
                found[itype] = Price(itype, 0.0, "unknown", str(exc))
        return found

    def require(self, instance_types: Iterable[str]) -> dict[str, Price]:
        """Prices of every type at once; one :class:`UnknownPriceError` names all the missing ones."""
        found: dict[str, Price] = {}
        missing: list[str] = []
        for itype in sorted(set(instance_types)):
            try:
                found[itype] = self.price(itype)
            except UnknownPriceError:
                missing.append(itype)
        if missing:
            raise UnknownPriceError(missing, self.region, self.table.known_types(self.region))
        return found
