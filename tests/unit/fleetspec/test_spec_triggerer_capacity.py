"""A fleet larger than one triggerer's default capacity validates, with a warning that names the setting."""

from __future__ import annotations

import pytest

from sagemaker_fleet.fleetspec import parse_fleet_spec

HEAD = """
fleet: big
region: us-east-1
role_arn: arn:aws:iam::111122223333:role/FleetTraining
image_uri: 111122223333.dkr.ecr.us-east-1.amazonaws.com/demand:1.4
output_s3_uri: s3://acme-ml/fleets/big
quotas: {ml.m5.xlarge: {instances: 20, warm_pools: 8}}
defaults: {instance_type: ml.m5.xlarge}
cities:
"""


def spec_text(cities: int) -> str:
    return HEAD + "\n".join(
        f'  - {{name: c{i}, train_s3_uri: "s3://acme-ml/data/c{i}/"}}' for i in range(cities)
    )


@pytest.mark.parametrize(("cities", "warned"), [(1000, False), (1001, True), (2500, True)])
def test_more_cities_than_the_triggerer_capacity_warns(cities: int, warned: bool) -> None:
    spec = parse_fleet_spec(spec_text(cities))
    messages = [w for w in spec.warnings if "[triggerer] capacity" in w]
    assert bool(messages) == warned
    if warned:
        assert f"raise `[triggerer] capacity` above {cities}" in messages[0]
        assert f"run {-(-cities // 1000)} triggerers" in messages[0]
        assert len(messages) == 1


@pytest.mark.parametrize("cities", [200, 201, 500, 1000, 2500])
def test_no_fleet_is_told_to_tune_how_the_triggerer_takes_new_triggers(cities: int) -> None:
    """The city tasks defer from workers and carry no DAG: Airflow's triggerer needs no setting but its capacity."""
    spec = parse_fleet_spec(spec_text(cities))
    assert not [w for w in spec.warnings if "max_trigger_to_select_per_loop" in w]
    assert len(spec.warnings) == (1 if cities > 1000 else 0), spec.warnings
