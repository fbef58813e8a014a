"""The run's overrides (cities, spot, instance type) as the plan and every training task apply them."""

from __future__ import annotations

from pathlib import Path

import pytest

from sagemaker_fleet.fleetspec import load_fleet_spec
from sagemaker_fleet.fleetspec.errors import FleetSpecError
from sagemaker_fleet.fleetspec.overrides import FleetOverrides, apply_overrides
from sagemaker_fleet.fleetspec.runconf import parse_run_conf

DEMO = Path(__file__).resolve().parents[3] / "dags" / "fleets" / "demo.yaml"


@pytest.fixture(scope="module")
def spec():
    return load_fleet_spec(DEMO)


def test_the_form_defaults_change_nothing(spec) -> None:
    overrides = parse_run_conf(
        {"cities": [], "spot": True, "instance_type": None, "dry_run": False}
    ).overrides
    assert overrides.empty
    assert apply_overrides(spec, overrides) is spec


def test_a_subset_keeps_the_fleet_order_and_each_city_as_it_was(spec) -> None:
    picked = [spec.cities[7].name, spec.cities[2].name]
    run = apply_overrides(spec, parse_run_conf({"cities": picked}).overrides)
    assert [c.name for c in run.cities] == [spec.cities[2].name, spec.cities[7].name]
    assert run.cities[0] == spec.cities[2]
    assert (run.fleet, run.quotas) == (spec.fleet, spec.quotas)


def test_cities_typed_as_text_are_split_on_commas(spec) -> None:
    first, second = spec.cities[0].name, spec.cities[1].name
    assert parse_run_conf({"cities": f" {first}, {second} "}).overrides.cities == (first, second)


def test_spot_off_turns_every_spot_city_on_demand_and_nothing_else(spec) -> None:
    run = apply_overrides(spec, FleetOverrides(spot=False))
    spot_cities = {c.name for c in spec.cities if c.spot is not None}
    assert spot_cities  # the demo fleet has spot cities
    assert all(c.spot is None for c in run.cities)
    for before, after in zip(spec.cities, run.cities, strict=True):
        assert after.instance_type == before.instance_type
        assert after.max_runtime_seconds == before.max_runtime_seconds


def test_an_instance_type_applies_to_every_city(spec) -> None:
    run = apply_overrides(spec, FleetOverrides(instance_type="ml.c5.xlarge"))
    assert {c.instance_type for c in run.cities} == {"ml.c5.xlarge"}
    assert {c.instance_type for c in spec.cities} == {"ml.m5.xlarge", "ml.c5.xlarge"}  # the spec is untouched


def test_unknown_cities_and_a_type_without_quota_are_named_with_the_fix(spec) -> None:
    with pytest.raises(FleetSpecError) as caught:
        apply_overrides(
            spec, FleetOverrides(cities=("atlantis", spec.cities[0].name), instance_type="ml.p3.2xlarge")
        )
    text = str(caught.value)
    assert "params.cities" in text
    assert "unknown city 'atlantis'; pick cities of fleet citydemand" in text
    assert "params.instance_type" in text
    assert "no quota for ml.p3.2xlarge; use one of ['ml.c5.xlarge', 'ml.m5.xlarge']" in text


def test_a_typo_in_the_instance_type_param_suggests_the_nearest_type(spec) -> None:
    with pytest.raises(FleetSpecError) as caught:
        apply_overrides(spec, FleetOverrides(instance_type="ml.c5.xlarg"))
    text = str(caught.value)
    assert "params.instance_type" in text
    assert "'ml.c5.xlarg' is not a SageMaker training instance type; did you mean ml.c5.xlarge?" in text
    assert "no quota" not in text
