"""The pilot's cost ceiling: an upper bound of what its jobs can be billed, with the arithmetic shown (pure).

For each job: its ``MaxRuntimeInSeconds`` (SageMaker stops a job there), the :data:`STOP_GRACE_SECONDS` it gives a
stopped job before the kill, and the keep-alive it may be created with (its warm pool idles at most that long: the
retained time ``ResourceRetainedBillableTimeInSeconds`` counts; the pool ends sooner when the next store takes it,
or when the pilot ends it). Times the instance count and the on-demand price per hour (the shipped table, or
``--price-per-hour``), over 3,600. Computed in decimals and rounded *up* to the micro-dollar, so the printed figure
is never below the bound. Not in it: S3 requests and storage for a few kilobytes, CloudWatch Logs of three short
jobs and the training volume (billed per GB-month; docs/guides/pilot.md).
"""

from __future__ import annotations

from dataclasses import dataclass
from decimal import ROUND_CEILING, Decimal
from typing import TYPE_CHECKING, Any

from sagemaker_fleet.cli.pilot.fleet import usd_per_hour
from sagemaker_fleet.fleetspec.model import STOP_GRACE_SECONDS

if TYPE_CHECKING:
    from sagemaker_fleet.cli.pilot.fleet import PilotFleet

MICRO = Decimal("0.000001")


@dataclass(frozen=True)
class CeilingTerm:
    """One job's seconds in the ceiling."""

    store: str
    job_name: str
    max_runtime_seconds: int
    stop_grace_seconds: int
    keep_alive_seconds: int
    instance_count: int

    @property
    def seconds(self) -> int:
        return (
            self.max_runtime_seconds + self.stop_grace_seconds + self.keep_alive_seconds
        ) * self.instance_count


@dataclass(frozen=True)
class CostCeiling:
    terms: tuple[CeilingTerm, ...]
    instance_type: str
    usd_per_hour: Decimal
    price_detail: str

    @property
    def seconds(self) -> int:
        return sum(term.seconds for term in self.terms)

    @property
    def usd(self) -> Decimal:
        """``seconds × usd_per_hour ÷ 3600``, rounded up to the micro-dollar."""
        return (Decimal(self.seconds) * self.usd_per_hour / 3600).quantize(MICRO, rounding=ROUND_CEILING)

    def lines(self) -> list[str]:
        """The arithmetic, one line per job, then the total."""
        out = []
        for term in self.terms:
            count = f" × {term.instance_count} instances" if term.instance_count != 1 else ""
            out.append(
                f"  {term.store}  {term.job_name}: ({term.max_runtime_seconds} s MaxRuntimeInSeconds + "
                f"{term.stop_grace_seconds} s after a stop + {term.keep_alive_seconds} s keep-alive){count} = "
                f"{term.seconds:,} s"
            )
        out.append(
            f"  {self.seconds:,} instance-seconds × ${self.usd_per_hour} per hour of {self.instance_type} "
            f"÷ 3,600 = ${self.usd} ({self.price_detail})"
        )
        return out

    def to_json(self) -> dict[str, Any]:
        return {
            "usd": str(self.usd),
            "instance_seconds": self.seconds,
            "instance_type": self.instance_type,
            "usd_per_hour": str(self.usd_per_hour),
            "price_source": self.price_detail,
            "formula": "sum over jobs of (MaxRuntimeInSeconds + stop grace + keep-alive) × instance count "
            "× USD per hour ÷ 3600, rounded up to the micro-dollar",
            "jobs": [
                {
                    "store": term.store,
                    "job_name": term.job_name,
                    "max_runtime_seconds": term.max_runtime_seconds,
                    "stop_grace_seconds": term.stop_grace_seconds,
                    "keep_alive_seconds": term.keep_alive_seconds,
                    "instance_count": term.instance_count,
                    "seconds": term.seconds,
                }
                for term in self.terms
            ],
        }


def cost_ceiling(fleet: PilotFleet) -> CostCeiling:
    """The ceiling of ``fleet``'s run: each store's job as the dispatch book creates it (its turn's keep-alive is
    the most it is created with: the dispatch may only lower it to 0)."""
    terms = []
    for store in fleet.stores:
        city, turn = fleet.spec.city(store), fleet.book.turns[store]
        terms.append(
            CeilingTerm(
                store=store,
                job_name=fleet.job_name(store),
                max_runtime_seconds=city.max_runtime_seconds,
                stop_grace_seconds=STOP_GRACE_SECONDS,
                keep_alive_seconds=turn.keep_alive_seconds,
                instance_count=city.instance_count,
            )
        )
    detail = (
        "--price-per-hour" if fleet.settings.price_per_hour is not None else fleet.price.detail.split(": ")[0]
    )
    return CostCeiling(tuple(terms), fleet.settings.instance_type, usd_per_hour(fleet.price), detail)
