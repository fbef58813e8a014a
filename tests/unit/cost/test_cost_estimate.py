"""The dry run's expected cost of a plan, against figures worked out by hand."""

from __future__ import annotations

from pathlib import Path

from sagemaker_fleet.cost.estimate import estimate_plan_cost
from sagemaker_fleet.fleetspec import load_fleet_spec
from sagemaker_fleet.fleetspec.price_table import load_price_table
from sagemaker_fleet.jobs.prices import PriceBook

DEMO = Path(__file__).resolve().parents[3] / "dags" / "fleets" / "demo.yaml"


def _job(
    city: str, lane: int, position: int, start: int, end: int, keep_alive: int = 0, spot: bool = False
) -> dict:
    return {
        "city": city,
        "lane": lane,
        "position": position,
        "planned_start_seconds": start,
        "planned_end_seconds": end,
        "keep_alive_seconds": keep_alive,
        "spot": spot,
    }


def test_spans_kept_pools_and_spot_at_its_on_demand_price() -> None:
    spec = load_fleet_spec(DEMO)
    on_demand = [c.name for c in spec.cities if c.spot is None and c.instance_type == "ml.m5.xlarge"]
    spot = next(c.name for c in spec.cities if c.spot is not None)
    # $3.60 an hour: a cent per 10 s, for both of the fleet's types
    book = PriceBook(
        region=spec.region, table=load_price_table(), spec_prices={"ml.m5.xlarge": 3.6, "ml.c5.xlarge": 3.6}
    )
    plan = {
        "jobs": [
            # lane 0 (listed out of order): 1000 s, kept 300 s for a successor that starts 200 s later, then 500 s
            _job(on_demand[1], 0, 1, 1200, 1700),
            _job(on_demand[0], 0, 0, 0, 1000, keep_alive=300),
            # lane 1: 400 s, kept 100 s for a successor that starts 250 s later (only the 100 s are paid), then 600 s
            _job(on_demand[2], 1, 0, 0, 400, keep_alive=100),
            _job(on_demand[3], 1, 1, 650, 1250, keep_alive=900),  # the last of its lane: nothing retained
            # lane 2: a spot job, priced on demand (an upper bound)
            _job(spot, 2, 0, 0, 2000, spot=True),
        ]
    }
    estimate = estimate_plan_cost(plan, spec, book)
    assert estimate == {
        "jobs": 5,
        "on_demand_usd": 2.5,  # (1000 + 500 + 400 + 600) s
        "spot_upper_bound_usd": 2.0,
        "retained_usd": 0.3,  # 200 + 100 s
        "expected_usd": 4.8,
        "unpriced": [],
    }


def test_an_empty_plan_costs_nothing() -> None:
    spec = load_fleet_spec(DEMO)
    book = PriceBook(region=spec.region, table=load_price_table())
    assert estimate_plan_cost({"jobs": []}, spec, book)["expected_usd"] == 0


def test_a_type_without_a_price_counts_for_nothing_and_is_named() -> None:
    """A fleet in a region the price table does not cover: the estimate still comes (the seconds of the others),
    and says which types it could not price, instead of failing the plan task's note or the Fleet view."""
    from sagemaker_fleet.fleetspec import parse_fleet_spec
    from sagemaker_fleet.fleetspec.price_table import load_price_table
    from sagemaker_fleet.jobs.prices import PriceBook
    from sagemaker_fleet.plan import plan_fleet

    spec = parse_fleet_spec(
        """
fleet: paris
region: eu-west-3
role_arn: arn:aws:iam::111122223333:role/FleetTraining
image_uri: 111122223333.dkr.ecr.eu-west-3.amazonaws.com/demand:1.4
output_s3_uri: s3://acme-ml/fleets/paris
quotas: {ml.m5.xlarge: {instances: 2, warm_pools: 2}}
defaults: {instance_type: ml.m5.xlarge}
cities:
  - {name: a, train_s3_uri: "s3://acme-ml/data/a/"}
"""
    )
    estimate = estimate_plan_cost(
        plan_fleet(spec, "20261204").to_json(), spec, PriceBook("eu-west-3", load_price_table())
    )
    assert estimate["expected_usd"] == 0
    assert estimate["unpriced"] == ["ml.m5.xlarge"]
