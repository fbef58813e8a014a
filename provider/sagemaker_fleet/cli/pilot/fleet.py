"""The pilot's fleet: a fleet spec written for the settings and read by the spec's own loader, planned by the planner
and booked for the dispatch — the objects a fleet DAG's run is made of, not a copy of them.

The spec: three stores on one instance type (quota: 1 instance, 1 warm pool, so one lane: the first store cold, the
next ones on its pool), SageMaker's built-in XGBoost image of the region (``fleetspec/builtin_images.py``), File
input with the ``train`` channel read as CSV (a ``job:`` template), the planner's automatic keep-alive over an
orchestration latency of a minute (the pilot's own poller hands a pool over within a sweep).
"""

from __future__ import annotations

from dataclasses import dataclass
from decimal import Decimal
from typing import TYPE_CHECKING

import yaml

from sagemaker_fleet.cli.pilot.settings import FLEET, STORES
from sagemaker_fleet.dispatch import DispatchBook
from sagemaker_fleet.errors import SageMakerFleetError
from sagemaker_fleet.fleetspec import parse_fleet_spec
from sagemaker_fleet.fleetspec.builtin_images import builtin_xgboost
from sagemaker_fleet.fleetspec.instance_types import is_training_instance_type, unknown_instance_type
from sagemaker_fleet.fleetspec.names import job_name
from sagemaker_fleet.fleetspec.price_table import PRICING_PAGE
from sagemaker_fleet.jobs.errors import UnknownPriceError
from sagemaker_fleet.jobs.prices import Price, PriceBook
from sagemaker_fleet.plan import FleetPlan, plan_fleet

if TYPE_CHECKING:
    from sagemaker_fleet.cli.pilot.settings import PilotSettings
    from sagemaker_fleet.fleetspec.model import FleetSpec

#: The training work a store's job is expected to take (s): what the planner and the simulator's prediction use.
EXPECTED_SECONDS = 60
#: Between a job's end and its successor's create: the pilot's poller creates it in the sweep that saw the end.
ORCHESTRATION_LATENCY_SECONDS = 60
#: XGBoost's hyperparameters (strings, as SageMaker sends them): a small regression.
HYPERPARAMETERS = {"objective": "reg:squarederror", "num_round": "20", "max_depth": "3"}


class PilotRefused(SageMakerFleetError, ValueError):
    """The pilot cannot start as asked (exit 2): the message names the flag or the account's setting, and the fix."""


@dataclass(frozen=True)
class PilotFleet:
    """The pilot's spec (and its YAML), plan, dispatch book, instance price and job names in the plan's order."""

    settings: PilotSettings
    spec_text: str
    spec: FleetSpec
    plan: FleetPlan
    book: DispatchBook
    price: Price

    @property
    def stores(self) -> tuple[str, ...]:
        """The stores in the order the plan starts them."""
        return tuple(sorted(self.book.turns, key=lambda store: self.book.turns[store].order))

    def job_name(self, store: str) -> str:
        return job_name(self.spec.fleet, store, self.settings.run_key)

    @property
    def job_names(self) -> tuple[str, ...]:
        return tuple(self.job_name(store) for store in self.stores)

    @property
    def image_uri(self) -> str:
        return self.spec.cities[0].image_uri


def spec_text(settings: PilotSettings, image_uri: str) -> str:
    """The pilot's fleet spec as YAML (written to the output folder as ``pilot.yaml``)."""
    itype = settings.instance_type
    data: dict[str, object] = {
        "fleet": FLEET,
        "region": settings.region,
        "role_arn": settings.role_arn,
        "image_uri": image_uri,
        "output_s3_uri": settings.output_s3_uri,
        "input_mode": "File",
        "orchestration_latency_seconds": ORCHESTRATION_LATENCY_SECONDS,
        "sharing": False,
        "quotas": {itype: {"instances": 1, "warm_pools": 1}},
        "defaults": {
            "instance_type": itype,
            "max_runtime_seconds": settings.max_runtime_seconds,
            "expected_seconds": EXPECTED_SECONDS,
            "hyperparameters": dict(HYPERPARAMETERS),
        },
        "job": {"InputDataConfig": [{"ChannelName": "train", "ContentType": "text/csv"}]},
        "cities": [{"name": store, "train_s3_uri": settings.train_s3_uri(store)} for store in STORES],
    }
    if settings.price_per_hour is not None:
        data["prices"] = {itype: float(settings.price_per_hour)}
    header = (
        "# The fleet `sagemaker-fleet pilot` runs: three stores, SageMaker's built-in XGBoost, one warm-pool lane.\n"
        "# `sagemaker-fleet plan` / `simulate` / `request` read it as any fleet spec.\n"
    )
    return header + yaml.safe_dump(data, sort_keys=False, width=120)


def pilot_fleet(settings: PilotSettings) -> PilotFleet:
    """The pilot's fleet for ``settings``; :class:`PilotRefused` when the region has no built-in image, the
    instance type is no training type, or no price is known."""
    if not is_training_instance_type(settings.instance_type):
        raise PilotRefused(f"--instance-type: {unknown_instance_type(settings.instance_type)}")
    images = builtin_xgboost()
    image = images.image_uri(settings.region)
    if image is None:
        raise PilotRefused(
            f"--region {settings.region}: SageMaker's built-in XGBoost has no image there (the table, read from "
            f"{images.source.repository}, lists {len(images.regions)} regions: {', '.join(images.regions)})"
        )
    from sagemaker_fleet.hooks.request_model import BOTOCORE_MODEL

    text = spec_text(settings, image)
    spec = parse_fleet_spec(text, "pilot.yaml", BOTOCORE_MODEL)
    try:
        price = PriceBook.for_spec(spec).price(settings.instance_type)
    except UnknownPriceError:
        raise PilotRefused(
            f"no price for {settings.instance_type} in {settings.region} in the shipped table: give "
            f"--price-per-hour USD, the on-demand training price from {PRICING_PAGE}"
        ) from None
    plan = plan_fleet(spec, settings.run_key)
    return PilotFleet(settings, text, spec, plan, DispatchBook.from_plan(plan, spec), price)


def usd_per_hour(price: Price) -> Decimal:
    """The price as an exact decimal (the table's and the flag's figures are decimal texts)."""
    return Decimal(str(price.usd_per_hour))
