"""Reading DescribeTrainingJob responses: missing fields, boto3 datetimes, unsupported shapes."""

from __future__ import annotations

from datetime import datetime

import pytest

from sagemaker_fleet.jobs.errors import UnsupportedTrainingJobError
from sagemaker_fleet.jobs.record import parse_training_job
from unit.cost.cost_describes import describe_job


def test_fields_are_read_with_their_types() -> None:
    record = parse_training_job(
        describe_job("a", spot=True, training=500, billable=100, count=2, keep_alive=0)
    )
    assert (record.name, record.status, record.spot, record.instance_count) == ("a", "Completed", True, 2)
    assert (record.training_seconds, record.billable_seconds) == (500, 100)
    assert record.pool_key is not None
    assert record.pool_key.instance_type == "ml.m5.xlarge"
    assert isinstance(record.creation_time, datetime)
    assert record.creation_time.tzinfo is not None


def test_moto_like_minimal_response_has_zero_billing() -> None:
    raw = {
        "TrainingJobName": "m",
        "TrainingJobStatus": "Completed",
        "SecondaryStatus": "Completed",
        "ResourceConfig": {"InstanceType": "ml.m5.xlarge", "InstanceCount": 1, "VolumeSizeInGB": 30},
        "CreationTime": "2026-11-29T08:00:00",
    }
    record = parse_training_job(raw)
    assert (record.billable_seconds, record.training_seconds, record.retained_billable_seconds) == (0, 0, 0)
    assert record.warm_pool is None
    assert record.pool_key is None
    assert record.creation_time is not None
    assert record.creation_time.tzinfo is not None


def test_warm_pool_status_is_read() -> None:
    record = parse_training_job(describe_job("a", retained=321, pool_status="Reused", reused_by="b"))
    assert record.warm_pool is not None
    assert (record.warm_pool.status, record.retained_billable_seconds, record.reused_by_job) == (
        "Reused",
        321,
        "b",
    )


def test_heterogeneous_cluster_is_refused_with_the_job_name() -> None:
    raw = describe_job("hetero")
    raw["ResourceConfig"] = {"InstanceGroups": [{"InstanceType": "ml.m5.xlarge", "InstanceCount": 1}]}
    with pytest.raises(UnsupportedTrainingJobError, match="hetero"):
        parse_training_job(raw)
