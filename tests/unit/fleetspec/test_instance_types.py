"""The one list of SageMaker training instance types, its agreement with botocore, and what a spec is told.

``validate`` refuses a type SageMaker Training does not have (suggesting the nearest one) and warns about a type
it has but no price source knows: ``simulate`` and the cost report would refuse it much later.
"""

from __future__ import annotations

import json
import re
from datetime import date
from importlib import resources

import botocore
import pytest
from botocore.loaders import Loader

from sagemaker_fleet.fleetspec import FleetSpecError, parse_fleet_spec
from sagemaker_fleet.fleetspec.instance_types import nearest_training_instance_type, training_instance_types
from sagemaker_fleet.fleetspec.price_table import load_price_table, unpriced_warnings

SPEC = """\
fleet: stores
region: {region}
role_arn: arn:aws:iam::111122223333:role/FleetTraining
image_uri: 111122223333.dkr.ecr.us-east-1.amazonaws.com/demand:1.4
output_s3_uri: s3://acme-ml/fleets/stores
{prices}defaults:
  instance_type: ml.m5.xlarge
cities:
"""


def fleet(region: str = "us-east-1", prices: str = "", **types: str) -> str:
    """Seven stores store-001..store-007 on ml.m5.xlarge, each store in ``types`` (store-003=...) on its own."""
    lines = []
    for number in range(1, 8):
        name = f"store-{number:03d}"
        own = types.get(name.replace("-", "_"))
        extra = f", instance_type: {own}" if own else ""
        lines.append(f"  - {{name: {name}, train_s3_uri: 's3://acme-ml/d/{name}/'{extra}}}\n")
    return SPEC.format(region=region, prices=prices) + "".join(lines)


def _release(text: str) -> tuple[int, ...]:
    return tuple(int(part) for part in text.split("."))


def test_the_shipped_list_is_botocores_training_instance_type_enum() -> None:
    """The list is the enum of the botocore it was made from (``source``): the same for that botocore and a newer one
    (fails after an upgrade that changed the enum: run scripts/training_instance_types.py), a superset for an older
    one (MWAA's Airflow 3.0.6 pins botocore 1.39.11, which knows fewer types than SageMaker accepts now)."""
    model = Loader().load_service_model("sagemaker", "service-2")
    enum = frozenset(model["shapes"]["TrainingInstanceType"]["enum"])
    raw = json.loads(
        resources.files("sagemaker_fleet").joinpath("data/training_instance_types.json").read_text()
    )
    assert "TrainingInstanceType" in raw["source"]
    assert raw["instance_types"] == sorted(raw["instance_types"])
    made_from = _release(raw["source"].split(",")[0].removeprefix("botocore "))
    if _release(botocore.__version__) < made_from:
        assert enum <= training_instance_types()
    else:
        assert training_instance_types() == enum


def test_every_type_of_the_price_table_is_a_training_instance_type() -> None:
    raw = json.loads(resources.files("sagemaker_fleet").joinpath("data/prices.json").read_text())
    priced = {itype for types in raw["regions"].values() for itype in types}
    assert priced <= training_instance_types()


@pytest.mark.parametrize(
    ("typed", "meant"),
    [
        ("ml.m5.xlarg", "ml.m5.xlarge"),
        ("m5.xlarge", "ml.m5.xlarge"),  # the EC2 name: the nearest by letters alone would be ml.r5.xlarge
        ("ML.G5.2XLARGE", "ml.g5.2xlarge"),
        ("ml.p4d.24xl", "ml.p4d.24xlarge"),
        ("ml.x9.huge", None),
    ],
)
def test_nearest_type(typed: str, meant: str | None) -> None:
    assert nearest_training_instance_type(typed) == meant


def test_a_typo_is_an_error_naming_the_store_and_the_type_meant_not_a_missing_quota() -> None:
    with pytest.raises(FleetSpecError) as caught:
        parse_fleet_spec(fleet(store_005="ml.m5.xlarg"), source="fleet.yaml")
    assert [issue.path for issue in caught.value.issues] == ["cities[4].instance_type"]
    assert (
        "  - cities[4] (store-005).instance_type (line 13): 'ml.m5.xlarg' is not a SageMaker training instance "
        "type; did you mean ml.m5.xlarge?"
    ) in str(caught.value)
    assert "quota" not in str(caught.value)


def test_a_type_without_a_price_is_a_warning_naming_its_stores_the_table_its_age_and_the_fix() -> None:
    spec = parse_fleet_spec(fleet(store_002="ml.c5.2xlarge", store_006="ml.c5.2xlarge"))
    priced = [w for w in spec.warnings if w.startswith("prices:")]
    assert len(priced) == 1
    age = re.search(r" \(as of 2026-11-29, (today|\d+ days? old)\): ", priced[0])
    assert age is not None, priced[0]
    assert priced[0].replace(age.group(0), " (as of …): ") == (
        "prices: no price for ml.c5.2xlarge in us-east-1 (used by store-002, store-006) in the price table shipped "
        "with the package (as of …): `simulate` refuses the fleet, and the run's cost estimate and the cost report "
        "cannot price its jobs; run `sagemaker-fleet prices refresh` to fetch every region's training prices from "
        "the AWS Price List, or add its on-demand training price to the spec as "
        "`prices: {ml.c5.2xlarge: <USD per instance-hour>}` (https://aws.amazon.com/sagemaker/pricing/)"
    )


def test_the_warning_says_how_old_the_table_is() -> None:
    spec = parse_fleet_spec(fleet(region="eu-west-3", prices="prices: {ml.m5.xlarge: 0.3}\n"))
    cities = [city for city in spec.cities if city.name == "store-001"]
    table = load_price_table()
    on = {date(2026, 11, 29): "today", date(2026, 11, 30): "1 day old", date(2027, 1, 28): "60 days old"}
    for today, age in on.items():
        (warning,) = unpriced_warnings("eu-west-3", {}, cities, table, today=today)
        assert f"(as of 2026-11-29, {age})" in warning


def test_a_price_in_the_spec_silences_the_warning() -> None:
    spec = parse_fleet_spec(fleet(prices="prices: {ml.c5.2xlarge: 0.408}\n", store_002="ml.c5.2xlarge"))
    assert not [w for w in spec.warnings if w.startswith("prices:")]


def test_a_region_the_table_does_not_cover_warns_for_every_type_and_lists_a_big_group_briefly() -> None:
    spec = parse_fleet_spec(fleet(region="eu-west-1"))
    (warning,) = [w for w in spec.warnings if w.startswith("prices:")]
    assert warning.startswith(
        "prices: no price for ml.m5.xlarge in eu-west-1 (used by store-001, store-002, store-003, store-004, "
        "store-005 and 2 more) in the price table shipped with the package (as of 2026-11-29, "
    )
