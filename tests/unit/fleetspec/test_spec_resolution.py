"""Valid fleet specs: defaults under cities, spot merged key by key, quotas, warnings and rendered values."""

from __future__ import annotations

import pytest

from sagemaker_fleet.fleetspec import FleetSpec, InstanceQuota, SpotSettings, VpcSettings, parse_fleet_spec
from sagemaker_fleet.fleetspec.model import ASSUMED_QUOTA

HEAD = """\
fleet: citydemand
region: us-east-1
role_arn: arn:aws:iam::111122223333:role/FleetTraining
image_uri: 111122223333.dkr.ecr.us-east-1.amazonaws.com/demand:1.4
output_s3_uri: s3://acme-ml/fleets/citydemand/
"""
QUOTAS = """\
quotas:
  ml.m5.xlarge: {instances: 20, warm_pools: 8, spot_instances: 6}
  ml.m5.2xlarge: {instances: 4, warm_pools: 2}
"""


def spec(defaults: str, cities: str, quotas: str = QUOTAS, head: str = HEAD) -> FleetSpec:
    return parse_fleet_spec(f"{head}{quotas}defaults:\n{defaults}cities:\n{cities}")


def city(name: str, extra: str = "") -> str:
    return f"  - {{name: {name}, train_s3_uri: 's3://acme-ml/data/{name}/'{', ' + extra if extra else ''}}}\n"


DEFAULTS = """\
  instance_type: ml.m5.xlarge
  instance_count: 2
  volume_size_gb: 50
  volume_kms_key_id: alias/training
  vpc: {subnets: [subnet-0b, subnet-0a], security_group_ids: [sg-01]}
  enable_network_isolation: true
  enable_inter_container_traffic_encryption: true
  max_runtime_seconds: 3600
  expected_seconds: 900
  keep_alive: 600
  hyperparameters: {epochs: 20}
  environment: {STAGE: prod}
"""


def test_city_inherits_every_default() -> None:
    seoul = spec(DEFAULTS, city("seoul")).city("seoul")
    assert seoul.instance_type == "ml.m5.xlarge"
    assert seoul.role_arn == "arn:aws:iam::111122223333:role/FleetTraining"  # top-level role
    assert seoul.image_uri == "111122223333.dkr.ecr.us-east-1.amazonaws.com/demand:1.4"
    assert (seoul.instance_count, seoul.volume_size_gb, seoul.volume_kms_key_id) == (2, 50, "alias/training")
    assert seoul.vpc == VpcSettings(("subnet-0b", "subnet-0a"), ("sg-01",))
    assert seoul.enable_network_isolation
    assert seoul.enable_inter_container_traffic_encryption
    assert (seoul.max_runtime_seconds, seoul.expected_seconds, seoul.keep_alive) == (3600, 900, 600)
    assert seoul.hyperparameters == (("epochs", "20"),)
    assert seoul.environment == (("STAGE", "prod"),)
    assert seoul.spot is None


def test_city_value_wins_over_default() -> None:
    tehran = spec(
        DEFAULTS,
        city(
            "tehran",
            "instance_type: ml.m5.2xlarge, role_arn: 'arn:aws:iam::111122223333:role/TeamB', "
            "image_uri: '111122223333.dkr.ecr.us-east-1.amazonaws.com/demand:2.0', instance_count: 1, "
            "volume_size_gb: 30, volume_kms_key_id: null, vpc: null, enable_network_isolation: false, "
            "max_runtime_seconds: 5400, expected_seconds: 1800, keep_alive: 0, "
            "hyperparameters: {epochs: 5}, environment: {STAGE: test}",
        ),
    ).city("tehran")
    assert tehran.instance_type == "ml.m5.2xlarge"
    assert tehran.role_arn == "arn:aws:iam::111122223333:role/TeamB"
    assert tehran.image_uri.endswith("demand:2.0")
    assert (tehran.instance_count, tehran.volume_size_gb, tehran.volume_kms_key_id, tehran.vpc) == (
        1,
        30,
        None,
        None,
    )
    assert tehran.enable_network_isolation is False
    assert tehran.enable_inter_container_traffic_encryption is True  # not overridden
    assert (tehran.max_runtime_seconds, tehran.expected_seconds, tehran.keep_alive) == (5400, 1800, 0)
    # a mapping on the city replaces the default mapping (it is not merged)
    assert tehran.hyperparameters == (("epochs", "5"),)
    assert tehran.environment == (("STAGE", "test"),)


def test_built_in_defaults_when_nothing_is_said() -> None:
    fleet = spec("  instance_type: ml.m5.xlarge\n", city("oslo"))
    oslo = fleet.city("oslo")
    assert (oslo.instance_count, oslo.volume_size_gb, oslo.max_runtime_seconds, oslo.expected_seconds) == (
        1,
        30,
        7200,
        1200,
    )
    assert oslo.keep_alive is None  # auto: the planner decides
    assert (oslo.vpc, oslo.volume_kms_key_id, oslo.spot) == (None, None, None)
    assert (fleet.input_mode, fleet.orchestration_latency_seconds, fleet.deadline_seconds) == (
        "FastFile",
        120,
        None,
    )
    assert fleet.output_s3_uri == "s3://acme-ml/fleets/citydemand"  # trailing slash dropped


@pytest.mark.parametrize(("written", "resolved"), [("auto", None), ("0", 0), ("600", 600), ("21600", 21600)])
def test_keep_alive_values(written: str, resolved: int | None) -> None:
    fleet = spec(f"  instance_type: ml.m5.xlarge\n  keep_alive: {written}\n", city("oslo"))
    assert fleet.city("oslo").keep_alive == resolved


SPOT_DEFAULTS = "  instance_type: ml.m5.xlarge\n  spot: {max_wait_seconds: 14400, max_attempts: 2}\n"


def test_spot_merged_key_by_key_with_defaults() -> None:
    fleet = spec(
        SPOT_DEFAULTS,
        city("lima")
        + city("dakar", "spot: {fallback: fail}")
        + city("perth", "spot: {max_wait_seconds: 20000}")
        + city("quito", "spot: {}"),
    )
    assert fleet.city("lima").spot == SpotSettings(14400, 2, "on_demand")
    assert fleet.city("dakar").spot == SpotSettings(14400, 2, "fail")
    assert fleet.city("perth").spot == SpotSettings(20000, 2, "on_demand")
    assert fleet.city("quito").spot == SpotSettings(14400, 2, "on_demand")


def test_spot_null_on_city_turns_spot_off() -> None:
    fleet = spec(
        SPOT_DEFAULTS + "  keep_alive: auto\n", city("lima") + city("oslo", "spot: null, keep_alive: 900")
    )
    assert fleet.city("lima").spot is not None
    assert fleet.city("oslo").spot is None
    assert fleet.city("oslo").keep_alive == 900  # allowed: oslo is on demand


def test_spot_only_on_a_city_with_contract_defaults() -> None:
    fleet = spec("  instance_type: ml.m5.xlarge\n", city("hanoi", "spot: {max_wait_seconds: 7200}"))
    assert fleet.city("hanoi").spot == SpotSettings(
        max_wait_seconds=7200, max_attempts=3, fallback="on_demand"
    )


@pytest.mark.parametrize("keep_alive", ["0", "auto"])
def test_spot_city_accepts_keep_alive_zero_or_auto(keep_alive: str) -> None:
    fleet = spec(
        "  instance_type: ml.m5.xlarge\n  keep_alive: 600\n",
        city("hanoi", f"spot: {{max_wait_seconds: 7200}}, keep_alive: {keep_alive}"),
    )
    assert fleet.city("hanoi").spot is not None


def test_spot_instances_absent_means_spot_shares_instances() -> None:
    fleet = spec(
        "  instance_type: ml.m5.xlarge\n", city("oslo") + city("cairo", "instance_type: ml.m5.2xlarge")
    )
    assert fleet.quotas == {
        "ml.m5.xlarge": InstanceQuota(instances=20, warm_pools=8, spot_instances=6),
        "ml.m5.2xlarge": InstanceQuota(instances=4, warm_pools=2, spot_instances=None),
    }
    assert fleet.quota("ml.m5.xlarge").spot_shares_instances is False
    assert fleet.quota("ml.m5.2xlarge").spot_shares_instances is True
    assert fleet.quotas_given is True
    assert fleet.instance_types == ("ml.m5.2xlarge", "ml.m5.xlarge")


def test_warm_pools_default_to_zero_in_a_quota_entry() -> None:
    fleet = spec(
        "  instance_type: ml.m5.xlarge\n", city("oslo"), quotas="quotas:\n  ml.m5.xlarge: {instances: 3}\n"
    )
    assert fleet.quota("ml.m5.xlarge") == InstanceQuota(instances=3, warm_pools=0)


def test_no_quotas_block_is_assumed_with_a_warning() -> None:
    fleet = spec(
        "  instance_type: ml.m5.xlarge\n",
        city("oslo") + city("cairo", "instance_type: ml.c5.xlarge"),
        quotas="",
    )
    assert fleet.quotas_given is False
    assert fleet.quotas == {"ml.m5.xlarge": ASSUMED_QUOTA, "ml.c5.xlarge": ASSUMED_QUOTA}
    assert ASSUMED_QUOTA.warm_pools == 0  # the AWS default warm-pool quota
    quota_warnings = [w for w in fleet.warnings if w.startswith("quotas:")]
    assert len(quota_warnings) == 2
    assert any("ml.c5.xlarge" in w and "Service Quotas" in w for w in quota_warnings)


def test_keep_alive_above_guide_maximum_is_only_a_warning() -> None:
    fleet = spec("  instance_type: ml.m5.xlarge\n  keep_alive: 7200\n", city("oslo") + city("lima"))
    assert fleet.city("oslo").keep_alive == 7200
    assert fleet.warnings == (
        "defaults.keep_alive: 7200 s is above the 3600 s the developer guide documents; "
        "the API accepts it, your account may not",
    )  # once, not once per city


def test_keep_alive_at_guide_maximum_has_no_warning() -> None:
    assert spec("  instance_type: ml.m5.xlarge\n  keep_alive: 3600\n", city("oslo")).warnings == ()


def test_non_ecr_image_is_a_warning() -> None:
    fleet = spec(
        "  instance_type: ml.m5.xlarge\n",
        city("oslo", "image_uri: 'ghcr.io/acme/demand:1.4'"),
    )
    assert fleet.city("oslo").image_uri == "ghcr.io/acme/demand:1.4"
    assert len(fleet.warnings) == 1
    assert fleet.warnings[0].startswith(
        "cities[0] (oslo).image_uri: 'ghcr.io/acme/demand:1.4' is not an Amazon ECR image"
    )


def test_hyperparameters_are_rendered_as_strings_in_name_order() -> None:
    fleet = spec(
        "  instance_type: ml.m5.xlarge\n"
        "  hyperparameters: {epochs: 20, learning_rate: 0.05, use_holidays: true, shuffle: false, model: prophet, "
        "seasonality: '7'}\n",
        city("oslo"),
    )
    assert fleet.city("oslo").hyperparameters == (
        ("epochs", "20"),
        ("learning_rate", "0.05"),
        ("model", "prophet"),
        ("seasonality", "7"),
        ("shuffle", "false"),
        ("use_holidays", "true"),
    )


def test_long_fleet_and_city_names_are_not_an_error() -> None:
    long_city = "san-" + "x" * 150
    fleet = spec(
        "  instance_type: ml.m5.xlarge\n",
        city(long_city),
        head=HEAD.replace("citydemand\n", "citydemandforecast\n"),
    )
    assert fleet.fleet == "citydemandforecast"
    assert fleet.city(long_city).name == long_city


def test_max_wait_equal_to_max_runtime_is_enough() -> None:
    fleet = spec(
        "  instance_type: ml.m5.xlarge\n",
        city("oslo", "max_runtime_seconds: 9000, spot: {max_wait_seconds: 9000}"),
    )
    assert fleet.city("oslo").spot == SpotSettings(max_wait_seconds=9000)


def test_yaml_anchors_and_merge_keys_work() -> None:
    cities = (
        "  - &base {name: oslo, train_s3_uri: 's3://acme-ml/data/oslo/', expected_seconds: 600}\n"
        "  - <<: *base\n    name: bergen\n    train_s3_uri: s3://acme-ml/data/bergen/\n"
    )
    fleet = spec("  instance_type: ml.m5.xlarge\n", cities)
    assert fleet.city("bergen").expected_seconds == 600


def test_cities_keep_spec_order_and_unknown_city_is_a_key_error() -> None:
    fleet = spec("  instance_type: ml.m5.xlarge\n", city("lima") + city("accra") + city("oslo"))
    assert [c.name for c in fleet.cities] == ["lima", "accra", "oslo"]
    with pytest.raises(KeyError, match="no city 'paris'"):
        fleet.city("paris")
