"""``sim serve --provision`` and ``--account-id``: the simulated account holds what a fleet spec names (roles
SageMaker may assume, buckets, data under every city's prefix, ECR images), again after a reset, and it is one
account for the engine and for moto."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path

import pytest

from sagemaker_fleet.fleetspec import load_fleet_spec
from sagemaker_fleet.fleetspec.builtin_images import builtin_xgboost
from sagemaker_fleet.sim.client import SimClient
from sagemaker_fleet.sim.server import ServerSettings, SimulatorServer
from sim_fixtures import TEST_CONFIG, make_request

pytestmark = pytest.mark.integration
DIGEST = "sha256:" + "ab" * 32
#: SageMaker's built-in XGBoost image: AWS's, nothing to make (and not reported as left out).
BUILTIN = builtin_xgboost().image_uri("us-east-1")
SPEC = f"""
fleet: prov
region: us-east-1
role_arn: arn:aws:iam::111122223333:role/ml/FleetTraining
image_uri: 111122223333.dkr.ecr.us-east-1.amazonaws.com/team/demand:1.4
output_s3_uri: s3://prov-out/fleets/prov
defaults: {{instance_type: ml.m5.xlarge}}
cities:
  - {{name: tokyo, train_s3_uri: "s3://prov-data/tokyo/"}}
  - {{name: lima, train_s3_uri: "s3://prov-data/lima/", role_arn: "arn:aws:iam::111122223333:role/TeamB"}}
  - {{name: oslo, train_s3_uri: "s3://prov-data/oslo/", image_uri: "ghcr.io/acme/demand:1.4"}}
  - {{name: quito, train_s3_uri: "s3://prov-data/quito/",
      image_uri: "111122223333.dkr.ecr.eu-west-1.amazonaws.com/demand@{DIGEST}"}}
  - {{name: lagos, train_s3_uri: "s3://prov-data/lagos/", image_uri: "{BUILTIN}"}}
"""


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[SimulatorServer]:
    path: Path = tmp_path_factory.mktemp("provision") / "prov.yaml"
    path.write_text(SPEC)
    settings = ServerSettings(
        config=replace(TEST_CONFIG, account_id="111122223333"), provision=(load_fleet_spec(path),)
    )
    with SimulatorServer(settings) as running:
        yield running


def assert_provisioned(client: SimClient) -> None:
    iam, s3, ecr = client.boto3_client("iam"), client.boto3_client("s3"), client.boto3_client("ecr")
    role = iam.get_role(RoleName="FleetTraining")["Role"]
    assert role["Arn"] == "arn:aws:iam::111122223333:role/ml/FleetTraining"
    assert "sagemaker.amazonaws.com" in str(role["AssumeRolePolicyDocument"])
    assert iam.get_role(RoleName="TeamB")["Role"]["Arn"] == "arn:aws:iam::111122223333:role/TeamB"
    assert {b["Name"] for b in s3.list_buckets()["Buckets"]} == {"prov-out", "prov-data"}
    keys = [o["Key"] for o in s3.list_objects_v2(Bucket="prov-data")["Contents"]]
    assert sorted(keys) == [
        "lagos/train.csv",
        "lima/train.csv",
        "oslo/train.csv",
        "quito/train.csv",
        "tokyo/train.csv",
    ]
    images = ecr.describe_images(
        registryId="111122223333", repositoryName="team/demand", imageIds=[{"imageTag": "1.4"}]
    )["imageDetails"]
    assert images[0]["imageTags"] == ["1.4"]
    repositories = {r["repositoryName"] for r in ecr.describe_repositories()["repositories"]}
    assert "sagemaker-xgboost" not in repositories


def test_what_the_spec_names_is_there_and_what_cannot_be_made_is_said(server: SimulatorServer) -> None:
    assert_provisioned(SimClient(server.url))
    assert server.not_provisioned == [
        f"image 111122223333.dkr.ecr.eu-west-1.amazonaws.com/demand@{DIGEST}: pinned by digest, which cannot be made",
        "image ghcr.io/acme/demand:1.4: not an ECR image",
    ]


def test_a_reset_empties_moto_and_provisions_again(server: SimulatorServer) -> None:
    client = SimClient(server.url)
    client.boto3_client("iam").delete_role(RoleName="TeamB")
    client.boto3_client("s3").delete_object(Bucket="prov-data", Key="lima/train.csv")
    client.boto3_client("s3").create_bucket(Bucket="scratch")
    client.reset()
    assert_provisioned(client)  # the scratch bucket is gone, the fleet's are back


def test_one_account_for_the_engine_and_moto(server: SimulatorServer) -> None:
    client = SimClient(server.url)
    assert client.boto3_client("sts").get_caller_identity()["Account"] == "111122223333"
    sm = client.boto3_client("sagemaker")
    arn = sm.create_training_job(**make_request("prov-tokyo-1"))["TrainingJobArn"]
    assert arn == "arn:aws:sagemaker:us-east-1:111122223333:training-job/prov-tokyo-1"
