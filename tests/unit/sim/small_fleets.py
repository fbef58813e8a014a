"""Generated small fleets like a new user's first own one: 30 stores on two instance types, two on spot, one on
another role, training 5–30 minutes each (deterministic per seed)."""

from __future__ import annotations

import random

from sagemaker_fleet.fleetspec.model import CitySpec, FleetSpec, InstanceQuota, SpotSettings

ROLE = "arn:aws:iam::111122223333:role/FleetTraining"
OTHER_ROLE = "arn:aws:iam::111122223333:role/TeamB"
IMAGE = "111122223333.dkr.ecr.us-east-1.amazonaws.com/demand:1.4"


def store_fleet(seed: int, stores: int = 30) -> FleetSpec:
    draw = random.Random(seed)
    cities = []
    for i in range(stores):
        name = f"store{i:02d}"
        values: dict[str, object] = {
            "name": name,
            "train_s3_uri": f"s3://acme-ml/data/{name}/",
            "role_arn": OTHER_ROLE if i == 11 else ROLE,
            "image_uri": IMAGE,
            "instance_type": "ml.m5.2xlarge" if i % 4 == 3 else "ml.m5.xlarge",
            "expected_seconds": draw.randrange(300, 1800, 30),
        }
        if i in (5, 17):
            values["spot"] = SpotSettings(max_wait_seconds=10800)
        cities.append(CitySpec(**values))  # type: ignore[arg-type]
    return FleetSpec(
        fleet="stores",
        region="us-east-1",
        role_arn=ROLE,
        image_uri=IMAGE,
        output_s3_uri="s3://acme-ml/fleets/stores",
        cities=tuple(cities),
        quotas={
            "ml.m5.xlarge": InstanceQuota(instances=8, warm_pools=4, spot_instances=2),
            "ml.m5.2xlarge": InstanceQuota(instances=4, warm_pools=2),
        },
    )
