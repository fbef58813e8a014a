"""Create in the simulated account what a fleet spec names, so that ``sagemaker-fleet preflight`` finds it
(``sim serve --fleet FLEET.yaml --provision``; again after every reset, which empties moto).

Through the endpoint's own AWS APIs (moto behind it), as a user would: each execution role with a trust policy
for SageMaker (in the simulator's account: moto keeps one, whatever account the ARN names), each bucket, one
object (``train.csv``) under every city's ``train_s3_uri`` that has none, and each ECR repository and image
(in the registry the URI names; SageMaker's built-in images are AWS's own and left alone). An image pinned by
digest cannot be made with that digest, and an image outside ECR is nowhere to make: both are left out and
reported. Idempotent: what exists is kept.
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any

from botocore.exceptions import ClientError

from sagemaker_fleet.fleetspec.builtin_images import builtin_xgboost
from sagemaker_fleet.fleetspec.ecr import ecr_image
from sagemaker_fleet.fleetspec.names import split_s3_uri
from sagemaker_fleet.jobs.errors import error_code

if TYPE_CHECKING:
    from sagemaker_fleet.fleetspec.model import FleetSpec
    from sagemaker_fleet.sim.client import SimClient

TRUST_POLICY = json.dumps(
    {
        "Version": "2012-10-17",
        "Statement": [
            {
                "Effect": "Allow",
                "Principal": {"Service": "sagemaker.amazonaws.com"},
                "Action": "sts:AssumeRole",
            }
        ],
    }
)
#: A placeholder image manifest (the simulated training container never pulls it).
MANIFEST = json.dumps(
    {
        "schemaVersion": 2,
        "mediaType": "application/vnd.docker.distribution.manifest.v2+json",
        "config": {
            "mediaType": "application/vnd.docker.container.image.v1+json",
            "size": 0,
            "digest": "sha256:0",
        },
        "layers": [],
    }
)
_EXISTS = {
    "EntityAlreadyExists",
    "BucketAlreadyOwnedByYou",
    "BucketAlreadyExists",
    "RepositoryAlreadyExistsException",
}


def _create(call: Any, **kwargs: Any) -> None:
    try:
        call(**kwargs)
    except ClientError as exc:
        if error_code(exc) not in _EXISTS:
            raise


def _roles(iam: Any, spec: FleetSpec) -> None:
    for arn in sorted({city.role_arn for city in spec.cities}):
        path, _, name = arn.split(":role", 1)[1].rpartition("/")
        _create(iam.create_role, RoleName=name, Path=f"{path}/", AssumeRolePolicyDocument=TRUST_POLICY)


def _buckets(s3: Any, spec: FleetSpec) -> None:
    data = [city for city in spec.cities if city.train_s3_uri]  # a city without one reads its job: channels
    buckets = {split_s3_uri(spec.output_s3_uri)[0]} | {split_s3_uri(c.train_s3_uri)[0] for c in data}
    for bucket in sorted(buckets):
        location = (
            {}
            if spec.region == "us-east-1"
            else {"CreateBucketConfiguration": {"LocationConstraint": spec.region}}
        )
        _create(s3.create_bucket, Bucket=bucket, **location)
    for city in data:
        bucket, prefix = split_s3_uri(city.train_s3_uri)
        if not s3.list_objects_v2(Bucket=bucket, Prefix=prefix, MaxKeys=1).get("Contents"):
            key = f"{prefix}train.csv" if not prefix or prefix.endswith("/") else prefix
            s3.put_object(Bucket=bucket, Key=key, Body=f"day,demand\n1,{len(city.name)}\n".encode())


def _images(sim: SimClient, spec: FleetSpec) -> list[str]:
    skipped = []
    for uri in sorted({city.image_uri for city in spec.cities}):
        if builtin_xgboost().is_builtin(uri):
            continue  # SageMaker's own image, in AWS's registry: nothing to make
        image = ecr_image(uri)
        if image is None or image.digest is not None:
            why = "not an ECR image" if image is None else "pinned by digest, which cannot be made"
            skipped.append(f"image {uri}: {why}")
            continue
        ecr = sim.boto3_client("ecr", region_name=image.region)
        where = {"registryId": image.registry_id, "repositoryName": image.repository}
        _create(ecr.create_repository, **where)
        tag = image.image_id["imageTag"]
        tags = {found.get("imageTag") for found in ecr.list_images(**where).get("imageIds", [])}
        if tag not in tags:
            ecr.put_image(**where, imageManifest=MANIFEST, imageTag=tag)
    return skipped


def provision_fleet(sim: SimClient, spec: FleetSpec) -> list[str]:
    """Create what ``spec`` names in the simulator at ``sim``; returns what could not be made, with the reason."""
    _roles(sim.boto3_client("iam", region_name=spec.region), spec)
    _buckets(sim.boto3_client("s3", region_name=spec.region), spec)
    return _images(sim, spec)
