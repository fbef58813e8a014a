"""What of a DescribeTrainingJob response travels in a trigger event (``jobs.describe.EVENT_FIELDS``): an allow-list.

Airflow stores an event in its database and writes it to the triggerer's and the task's logs. The event carried the
whole description less ``Environment`` and ``HyperParameters`` (a deny-list), so a job's ``ContainerEntrypoint`` and
``ContainerArguments`` — where a token passed on the command line sits — went along, and so would any member AWS
adds. Only the members named now travel.
"""

from __future__ import annotations

import datetime as dt
import json

from sagemaker_fleet.jobs.describe import EVENT_FIELDS, event_description, from_json_safe, summarize
from sagemaker_fleet.jobs.record import parse_training_job

SECRET = "tok-9f3a1c-DO-NOT-LOG"
T0 = dt.datetime(2026, 11, 29, 10, 0, tzinfo=dt.UTC)


def description() -> dict:
    """A terminal job's description with every kind of member: the job's facts and how its container runs."""
    return {
        "TrainingJobName": "small-lima-20261129",
        "TrainingJobArn": "arn:aws:sagemaker:us-east-1:111122223333:training-job/small-lima-20261129",
        "TrainingJobStatus": "Failed",
        "SecondaryStatus": "Failed",
        "FailureReason": "AlgorithmError: out of memory",
        "SecondaryStatusTransitions": [
            {"Status": "Starting", "StartTime": T0, "EndTime": T0, "StatusMessage": "x"}
        ],
        "CreationTime": T0,
        "TrainingStartTime": T0,
        "TrainingEndTime": T0 + dt.timedelta(minutes=20),
        "LastModifiedTime": T0 + dt.timedelta(minutes=21),
        "TrainingTimeInSeconds": 1100,
        "BillableTimeInSeconds": 1100,
        "ResourceConfig": {
            "InstanceType": "ml.m5.xlarge",
            "InstanceCount": 1,
            "VolumeSizeInGB": 30,
            "KeepAlivePeriodInSeconds": 300,
        },
        "WarmPoolStatus": {"Status": "Available", "ResourceRetainedBillableTimeInSeconds": 12},
        "EnableManagedSpotTraining": False,
        "StoppingCondition": {"MaxRuntimeInSeconds": 7200},
        "ModelArtifacts": {"S3ModelArtifacts": "s3://acme-ml/fleets/small/models/lima/20261129/model.tar.gz"},
        "FinalMetricDataList": [{"MetricName": "validation:rmse", "Value": 0.5, "Timestamp": T0}],
        "RoleArn": "arn:aws:iam::111122223333:role/FleetTraining",
        "VpcConfig": {"Subnets": ["subnet-0a1b2c3d"], "SecurityGroupIds": ["sg-0a1b2c3d"]},
        "EnableNetworkIsolation": False,
        "EnableInterContainerTrafficEncryption": False,
        "InputDataConfig": [
            {
                "ChannelName": "train",
                "DataSource": {
                    "S3DataSource": {"S3DataType": "S3Prefix", "S3Uri": "s3://acme-ml/data/lima/"}
                },
            }
        ],
        "AlgorithmSpecification": {
            "TrainingImage": "111122223333.dkr.ecr.us-east-1.amazonaws.com/demand:1.4",
            "TrainingInputMode": "FastFile",
            "ContainerEntrypoint": ["python", "-m", "demand.train", f"--token={SECRET}"],
            "ContainerArguments": ["--api-key", SECRET],
            "MetricDefinitions": [{"Name": "validation:rmse", "Regex": SECRET}],
        },
        "Environment": {"API_TOKEN": SECRET},
        "HyperParameters": {"password": SECRET},
        "DebugHookConfig": {"HookParameters": {"secret": SECRET}},
        "ProfilerConfig": {"ProfilingParameters": {"secret": SECRET}},
        "ExperimentConfig": {"RunName": SECRET},
        "MlflowConfig": {"MlflowResourceArn": SECRET},
        "SomeMemberAwsAddsNextYear": {"Secret": SECRET},
        "ResponseMetadata": {"RequestId": SECRET},
    }


def test_only_the_allowed_members_travel_and_nothing_of_how_the_container_runs() -> None:
    carried = event_description(description())
    text = json.dumps(carried)  # JSON as Airflow stores it
    assert SECRET not in text
    assert set(carried) <= set(EVENT_FIELDS)
    assert carried["AlgorithmSpecification"] == {
        "TrainingImage": "111122223333.dkr.ecr.us-east-1.amazonaws.com/demand:1.4",
        "TrainingInputMode": "FastFile",
    }
    for gone in (
        "Environment",
        "HyperParameters",
        "DebugHookConfig",
        "SomeMemberAwsAddsNextYear",
        "ResponseMetadata",
    ):
        assert gone not in carried


def test_what_the_readers_of_an_event_read_is_carried() -> None:
    """A resumed task reads the event's description as a description again: the record, its summary, its times."""
    full = description()
    carried = from_json_safe(event_description(full))
    assert carried["CreationTime"] == T0
    assert (carried["TrainingJobStatus"], carried["FailureReason"]) == (
        "Failed",
        "AlgorithmError: out of memory",
    )
    assert parse_training_job(carried) == parse_training_job(full)
    assert summarize(carried) == summarize(full)
