"""The account's training quotas read from ListServiceQuotas rows (pure): names matched without regard to case,
one InstanceQuota per instance type asked for, a type the account does not list left out."""

from __future__ import annotations

from typing import Any

import pytest

from sagemaker_fleet.fleetspec.model import InstanceQuota
from sagemaker_fleet.jobs.service_quotas import account_quotas, parse_quota_name, quota_name


def row(name: str, value: Any, level: str = "ACCOUNT") -> dict[str, Any]:
    return {"ServiceCode": "sagemaker", "QuotaName": name, "Value": value, "QuotaAppliedAtLevel": level}


ROWS = [
    row("ml.m5.xlarge for training job usage", 20.0),
    row("ml.m5.xlarge for training warm pool usage", 8.0),
    row("ml.m5.xlarge for spot training job usage", 4.0),
    row("ML.C5.XLARGE FOR TRAINING JOB USAGE", 10.0),  # another spelling of the same name
    row("ml.c5.xlarge for endpoint usage", 50.0),  # not a training quota
    row("ml.g5.xlarge for training job usage", 2.0),  # not asked for
    row("Number of training jobs", 1000.0),
]


def test_the_names_aws_gives_the_three_training_quotas() -> None:
    assert quota_name("ml.m5.xlarge", "instances") == "ml.m5.xlarge for training job usage"
    assert quota_name("ml.m5.xlarge", "warm_pools") == "ml.m5.xlarge for training warm pool usage"
    assert quota_name("ml.m5.xlarge", "spot_instances") == "ml.m5.xlarge for spot training job usage"


@pytest.mark.parametrize(
    ("name", "parsed"),
    [
        ("ml.m5.xlarge for training job usage", ("ml.m5.xlarge", "instances")),
        ("  ML.M5.XLarge  For Training Warm Pool Usage ", ("ml.m5.xlarge", "warm_pools")),
        ("ml.p4d.24xlarge for spot training job usage", ("ml.p4d.24xlarge", "spot_instances")),
        ("ml.m5.xlarge for endpoint usage", None),
        ("ml.m5.xlarge for processing job usage", None),
        ("Maximum number of ml.m5.xlarge for training job usage", None),
        ("", None),
    ],
)
def test_parse_quota_name(name: str, parsed: tuple[str, str] | None) -> None:
    assert parse_quota_name(name) == parsed


def test_one_quota_per_type_asked_for() -> None:
    assert account_quotas(ROWS, ["ml.m5.xlarge", "ml.c5.xlarge"]) == {
        "ml.m5.xlarge": InstanceQuota(instances=20, warm_pools=8, spot_instances=4),
        # no warm-pool quota listed: none is kept (AWS's default is 0); no spot quota: spot shares instances
        "ml.c5.xlarge": InstanceQuota(instances=10, warm_pools=0, spot_instances=None),
    }


def test_a_type_the_account_does_not_list_is_left_out() -> None:
    assert account_quotas(ROWS, ["ml.p5.48xlarge"]) == {}
    # a warm-pool quota without the instance quota says nothing about the instances: left out too
    assert account_quotas([row("ml.t3.medium for training warm pool usage", 1.0)], ["ml.t3.medium"]) == {}


def test_keys_keep_the_callers_spelling_and_resource_level_values_are_skipped() -> None:
    rows = [
        row("ml.m5.xlarge for training job usage", 99.0, level="RESOURCE"),
        row("ml.m5.xlarge for training job usage", 7.0),
        row("ml.m5.xlarge for training job usage", 5.0),  # a second account-level value: the first counts
    ]
    assert account_quotas(rows, ["ML.M5.XLARGE"]) == {
        "ML.M5.XLARGE": InstanceQuota(instances=7, warm_pools=0)
    }


@pytest.mark.parametrize(("value", "count"), [(3.0, 3), (2.9, 2), (0, 0), (-1.0, 0), (1e6, 1_000_000)])
def test_values_become_whole_instances(value: float, count: int) -> None:
    found = account_quotas([row("ml.m5.xlarge for training job usage", value)], ["ml.m5.xlarge"])
    assert found["ml.m5.xlarge"].instances == count


@pytest.mark.parametrize("value", [None, "20", float("nan"), float("inf"), True])
def test_a_value_that_is_no_number_is_ignored(value: Any) -> None:
    assert account_quotas([row("ml.m5.xlarge for training job usage", value)], ["ml.m5.xlarge"]) == {}
