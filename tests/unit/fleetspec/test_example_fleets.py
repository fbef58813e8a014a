"""Every fleet under dags/fleets/ is a valid spec, and the demo fleets have the shape the docs promise."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import pytest

from sagemaker_fleet.fleetspec import FleetSpec, InstanceQuota, SpotSettings, load_fleet_spec
from sagemaker_fleet.fleetspec.names import job_name

FLEETS_DIR = Path(__file__).resolve().parents[3] / "dags" / "fleets"
FLEET_FILES = sorted(FLEETS_DIR.glob("*.yaml"))
TEAM_B = "arn:aws:iam::111122223333:role/TeamB"
FLEET_TRAINING = "arn:aws:iam::111122223333:role/FleetTraining"


def test_the_examples_exist() -> None:
    assert {path.name for path in FLEET_FILES} >= {"small.yaml", "demo.yaml", "weekly.yaml"}


@pytest.mark.parametrize("path", FLEET_FILES, ids=lambda p: p.name)
def test_every_fleet_file_validates_without_warnings(path: Path) -> None:
    """Without warnings: none of them needs Airflow tuned (the weekly fleet has 500 cities)."""
    fleet = load_fleet_spec(path)
    assert fleet.cities
    assert fleet.warnings == (), fleet.warnings


@pytest.mark.parametrize("path", FLEET_FILES, ids=lambda p: p.name)
def test_every_job_name_is_plain_and_unique(path: Path) -> None:
    fleet = load_fleet_spec(path)
    names = {
        job_name(fleet.fleet, city.name, "20261129", attempt) for city in fleet.cities for attempt in (1, 2)
    }
    assert len(names) == 2 * len(fleet.cities)
    # the examples are short enough never to need the hashed form
    assert all(name.startswith(f"{fleet.fleet}-") and len(name) <= 63 for name in names)


def test_fleet_names_do_not_share_a_job_name_prefix() -> None:
    """ListTrainingJobs filters by NameContains: one example fleet's prefix must not match another's jobs."""
    fleets = [load_fleet_spec(path).fleet for path in FLEET_FILES]
    assert len(set(fleets)) == len(fleets)
    for fleet in fleets:
        for other in fleets:
            assert other == fleet or f"{fleet}-" not in f"{other}-"


@pytest.fixture(scope="module")
def demo() -> FleetSpec:
    return load_fleet_spec(FLEETS_DIR / "demo.yaml")


def test_demo_is_the_200_city_fleet(demo: FleetSpec) -> None:
    assert demo.fleet == "citydemand"
    assert demo.output_s3_uri == "s3://sagemaker-fleet-demo/fleets/citydemand"
    assert demo.image_uri == "111122223333.dkr.ecr.us-east-1.amazonaws.com/demand:1.4"
    assert (
        demo.orchestration_latency_seconds == 120
    )  # AWS-like: the triggerer hands over within one 2 s sweep
    assert len(demo.cities) == 200
    assert len({city.name for city in demo.cities}) == 200
    for city in demo.cities:
        assert city.train_s3_uri == f"s3://sagemaker-fleet-demo/data/{city.name}/"
        assert city.image_uri == demo.image_uri


def test_demo_has_two_roles_and_two_instance_types(demo: FleetSpec) -> None:
    roles = Counter(city.role_arn for city in demo.cities)
    assert roles == {FLEET_TRAINING: 150, TEAM_B: 50}
    types = Counter(city.instance_type for city in demo.cities)
    assert set(types) == {"ml.m5.xlarge", "ml.c5.xlarge"}
    assert types["ml.m5.xlarge"] > types["ml.c5.xlarge"] > 0
    assert demo.quotas == {
        "ml.m5.xlarge": InstanceQuota(instances=24, warm_pools=22, spot_instances=8),
        "ml.c5.xlarge": InstanceQuota(instances=10, warm_pools=8),
    }


def test_demo_has_about_twenty_spot_cities(demo: FleetSpec) -> None:
    spot = [city for city in demo.cities if city.spot is not None]
    assert 15 <= len(spot) <= 25
    assert {city.spot for city in spot} == {SpotSettings(max_wait_seconds=14400)}
    assert all(city.keep_alive is None for city in spot)


def test_demo_durations_vary_within_range(demo: FleetSpec) -> None:
    durations = [city.expected_seconds for city in demo.cities]
    assert min(durations) >= 300
    assert max(durations) <= 1800
    assert len(set(durations)) > 20


def test_demo_city_names_are_realistic(demo: FleetSpec) -> None:
    names = {city.name for city in demo.cities}
    assert {"tokyo", "sao-paulo", "mexico-city", "lagos", "seoul", "tehran"} <= names


def test_weekly_and_small_sizes() -> None:
    weekly = load_fleet_spec(FLEETS_DIR / "weekly.yaml")
    assert len(weekly.cities) == 500
    assert len({city.role_arn for city in weekly.cities}) == 2
    assert len({city.instance_type for city in weekly.cities}) == 2
    assert sum(city.spot is not None for city in weekly.cities) == 50
    assert len(load_fleet_spec(FLEETS_DIR / "small.yaml").cities) == 12
