"""Fleet specs for the IAM tests: the demo fleet as shipped, and a locked-down fleet (a VPC, KMS keys by ARN,
network isolation, an explicit keep-alive) whose every CreateTrainingJob condition has a value to hold to."""

from __future__ import annotations

import functools
from pathlib import Path
from typing import TYPE_CHECKING, Any

from sagemaker_fleet.fleetspec import load_fleet_spec
from sagemaker_fleet.hooks.request_model import BOTOCORE_MODEL
from sagemaker_fleet.jobs.request import Submission, compile_training_request
from sagemaker_fleet.plan import plan_fleet

if TYPE_CHECKING:
    from sagemaker_fleet.fleetspec.model import FleetSpec

ROOT = Path(__file__).resolve().parents[3]
DEMO = ROOT / "dags" / "fleets" / "demo.yaml"
SMALL = ROOT / "dags" / "fleets" / "small.yaml"
ACCOUNT = "111122223333"
RUN_KEY = "20261129"
VOLUME_KEY = f"arn:aws:kms:us-east-1:{ACCOUNT}:key/0b6c5c1e-1111-4a4a-9d9d-000000000001"
OUTPUT_KEY = f"arn:aws:kms:us-east-1:{ACCOUNT}:key/0b6c5c1e-1111-4a4a-9d9d-000000000002"

LOCKED = f"""
fleet: locked
region: us-east-1
role_arn: arn:aws:iam::{ACCOUNT}:role/LockedTraining
image_uri: {ACCOUNT}.dkr.ecr.us-east-1.amazonaws.com/demand:1.4
output_s3_uri: s3://locked-ml/fleets/locked
quotas:
  ml.m5.xlarge: {{instances: 4, warm_pools: 2, spot_instances: 2}}
  ml.g5.xlarge: {{instances: 2, warm_pools: 1}}
defaults:
  instance_type: ml.m5.xlarge
  max_runtime_seconds: 3600
  volume_kms_key_id: {VOLUME_KEY}
  enable_network_isolation: true
  vpc: {{subnets: [subnet-0a1, subnet-0a2], security_group_ids: [sg-0b1]}}
  job:
    OutputDataConfig: {{KmsKeyId: {OUTPUT_KEY}}}
cities:
  - {{name: oslo, train_s3_uri: "s3://locked-data/train/oslo/"}}
  - {{name: bergen, train_s3_uri: "s3://locked-data/train/bergen/", max_runtime_seconds: 5400}}
  - {{name: tromso, train_s3_uri: "s3://locked-data/train/tromso/", spot: {{max_wait_seconds: 7200}}}}
  - name: narvik
    train_s3_uri: s3://locked-data/train/narvik/
    instance_type: ml.g5.xlarge
    keep_alive: 1800
    max_runtime_seconds: 1800
    vpc: {{subnets: [subnet-0a3], security_group_ids: [sg-0b2]}}
"""


@functools.cache
def demo() -> FleetSpec:
    return load_fleet_spec(str(DEMO), BOTOCORE_MODEL)


@functools.cache
def small() -> FleetSpec:
    return load_fleet_spec(str(SMALL), BOTOCORE_MODEL)


def locked(folder: Path) -> FleetSpec:
    path = folder / "locked.yaml"
    path.write_text(LOCKED)
    return load_fleet_spec(str(path), BOTOCORE_MODEL)


def run_requests(spec: FleetSpec, attempts: tuple[int, ...] = (1, 2)) -> list[dict[str, Any]]:
    """The CreateTrainingJob requests the run of ``spec`` sends, as ``sagemaker-fleet request`` prints them: each
    city's submissions (``attempts``: the first, a re-submission) with the plan's keep-alive, and a spot city's
    spot attempts and their on-demand fallbacks."""
    plan = plan_fleet(spec, RUN_KEY)
    requests: list[dict[str, Any]] = []
    for city in spec.cities:
        keep_alive = plan.job(city.name).keep_alive_seconds
        kinds = [True, False] if city.spot is not None else [None]
        for spot in kinds:
            for attempt in attempts:
                submission = Submission(
                    city.name,
                    RUN_KEY,
                    attempt,
                    spot=spot,
                    keep_alive_seconds=0 if spot else keep_alive,
                    airflow_try="scheduled__2026-11-29T00:00:00+00:00/1",
                )
                requests.append(dict(compile_training_request(spec, city, submission)))
    return requests
