"""The condition keys a CreateTrainingJob request sets, field by field, as the Service Authorization Reference
describes them (sagemaker_fleet/iam/context.py)."""

from __future__ import annotations

from sagemaker_fleet.iam.context import create_training_job_context

KEY = "arn:aws:kms:us-east-1:111122223333:key/1"


def test_every_key_the_request_fills() -> None:
    request = {
        "TrainingJobName": "citydemand-oslo-20261129",
        "ResourceConfig": {
            "InstanceType": "ml.m5.xlarge",
            "InstanceCount": 1,
            "VolumeSizeInGB": 30,
            "VolumeKmsKeyId": KEY,
            "KeepAlivePeriodInSeconds": 300,
        },
        "StoppingCondition": {"MaxRuntimeInSeconds": 7200, "MaxWaitTimeInSeconds": 14400},
        "VpcConfig": {"Subnets": ["subnet-1", "subnet-2"], "SecurityGroupIds": ["sg-1"]},
        "OutputDataConfig": {"S3OutputPath": "s3://b/m/", "KmsKeyId": KEY + "o"},
        "EnableNetworkIsolation": True,
        "EnableInterContainerTrafficEncryption": False,
        "RemoteDebugConfig": {"EnableRemoteDebug": False},
        "InputDataConfig": [
            {"ChannelName": "train", "DataSource": {"S3DataSource": {"S3Uri": "s3://b/d/"}}},
            {"ChannelName": "fs", "DataSource": {"FileSystemDataSource": {"FileSystemId": "fs-1"}}},
        ],
        "Tags": [{"Key": "sagemaker-fleet:city", "Value": "oslo"}, {"Key": "team", "Value": "demand"}],
    }
    assert create_training_job_context(request) == {
        "sagemaker:InstanceTypes": ["ml.m5.xlarge"],
        "sagemaker:MaxRuntimeInSeconds": "7200",
        "sagemaker:KeepAlivePeriod": "300",
        "sagemaker:VpcSubnets": ["subnet-1", "subnet-2"],
        "sagemaker:VpcSecurityGroupIds": ["sg-1"],
        "sagemaker:VolumeKmsKeyArn": KEY,
        "sagemaker:OutputKmsKeyArn": KEY + "o",
        "sagemaker:NetworkIsolation": "true",
        "sagemaker:InterContainerTrafficEncryption": "false",
        "sagemaker:EnableRemoteDebug": "false",
        "sagemaker:FileSystemId": "fs-1",
        "aws:TagKeys": ["sagemaker-fleet:city", "team"],
        "aws:RequestTag/sagemaker-fleet:city": "oslo",
        "aws:RequestTag/team": "demand",
    }


def test_a_key_the_request_gives_no_value_is_absent() -> None:
    request = {
        "ResourceConfig": {"InstanceType": "ml.m5.xlarge", "InstanceCount": 1, "VolumeSizeInGB": 30},
        "StoppingCondition": {"MaxRuntimeInSeconds": 600},
    }
    assert create_training_job_context(request) == {
        "sagemaker:InstanceTypes": ["ml.m5.xlarge"],
        "sagemaker:MaxRuntimeInSeconds": "600",
    }


def test_instance_groups_add_their_types() -> None:
    request = {
        "ResourceConfig": {
            "InstanceGroups": [
                {"InstanceGroupName": "a", "InstanceType": "ml.m5.xlarge", "InstanceCount": 1},
                {"InstanceGroupName": "b", "InstanceType": "ml.p4d.24xlarge", "InstanceCount": 1},
            ]
        }
    }
    assert create_training_job_context(request)["sagemaker:InstanceTypes"] == [
        "ml.m5.xlarge",
        "ml.p4d.24xlarge",
    ]
