"""The simulator's Service Quotas for service code sagemaker: its quotas under AWS's names, stable codes, paging."""

from __future__ import annotations

from dataclasses import replace
from types import MappingProxyType

import pytest

from sagemaker_fleet.fleetspec.instance_types import training_instance_types
from sagemaker_fleet.fleetspec.model import InstanceQuota
from sagemaker_fleet.jobs.service_quotas import PAGE_MAX, account_quotas
from sagemaker_fleet.sim.config import UNLIMITED_QUOTA, SimConfig
from sagemaker_fleet.sim.errors import SimApiError
from sagemaker_fleet.sim.service_quotas import (
    get_service_quota,
    list_service_quotas,
    quota_code,
    sagemaker_quotas,
)

CONFIG = SimConfig(
    quotas=MappingProxyType(
        {
            "ml.m5.xlarge": InstanceQuota(instances=20, warm_pools=8, spot_instances=5),
            "ml.c5.xlarge": InstanceQuota(instances=10, warm_pools=0),
        }
    )
)


def by_name(config: SimConfig = CONFIG) -> dict[str, dict[str, object]]:
    return {row["QuotaName"]: row for row in sagemaker_quotas(config)}


def test_the_configured_quotas_under_aws_names() -> None:
    rows = by_name()
    assert rows["ml.m5.xlarge for training job usage"]["Value"] == 20.0
    assert rows["ml.m5.xlarge for training warm pool usage"]["Value"] == 8.0
    assert rows["ml.m5.xlarge for spot training job usage"]["Value"] == 5.0
    # spot shares the instance quota when none is set for spot: the engine admits spot jobs up to it
    assert rows["ml.c5.xlarge for spot training job usage"]["Value"] == 10.0
    assert rows["ml.c5.xlarge for training warm pool usage"]["Value"] == 0.0
    row = rows["ml.m5.xlarge for training job usage"]
    assert (row["ServiceCode"], row["Unit"], row["Adjustable"], row["QuotaAppliedAtLevel"]) == (
        "sagemaker",
        "None",
        True,
        "ACCOUNT",
    )
    assert isinstance(row["Value"], float)
    assert row["QuotaArn"] == f"arn:aws:servicequotas:us-east-1:123456789012:sagemaker/{row['QuotaCode']}"


def test_every_training_type_is_listed_with_the_limit_the_engine_applies() -> None:
    rows = by_name()
    assert len(rows) == 3 * len(training_instance_types() | {"ml.m5.xlarge", "ml.c5.xlarge"})
    assert rows["ml.p4d.24xlarge for training job usage"]["Value"] == float(UNLIMITED_QUOTA.instances)
    capped = by_name(replace(CONFIG, default_quota=InstanceQuota(instances=2, warm_pools=1)))
    assert capped["ml.p4d.24xlarge for training job usage"]["Value"] == 2.0
    assert capped["ml.p4d.24xlarge for training warm pool usage"]["Value"] == 1.0
    assert capped["ml.m5.xlarge for training job usage"]["Value"] == 20.0  # a configured type keeps its own


def test_quota_codes_are_stable_distinct_and_shaped_like_aws() -> None:
    rows = sagemaker_quotas(CONFIG)
    codes = [row["QuotaCode"] for row in rows]
    assert len(set(codes)) == len(codes)
    assert codes == [row["QuotaCode"] for row in sagemaker_quotas(SimConfig(seed=99))]
    assert quota_code("ml.m5.xlarge for training job usage") == quota_code(
        "ml.m5.xlarge for training job usage"
    )
    assert all(code.startswith("L-") and len(code) == 10 for code in codes)


def test_pages_cover_the_listing_once() -> None:
    seen: list[str] = []
    request: dict[str, object] = {"ServiceCode": "sagemaker", "MaxResults": 7}
    pages = 0
    while True:
        page = list_service_quotas(CONFIG, request)
        assert len(page["Quotas"]) <= 7
        seen += [row["QuotaName"] for row in page["Quotas"]]
        pages += 1
        if "NextToken" not in page:
            break
        request = {**request, "NextToken": page["NextToken"]}
    assert seen == [row["QuotaName"] for row in sagemaker_quotas(CONFIG)]
    assert pages == -(-len(seen) // 7)
    first = list_service_quotas(CONFIG, {"ServiceCode": "sagemaker"})
    assert len(first["Quotas"]) == PAGE_MAX


def test_the_provider_reads_the_configured_quotas_back() -> None:
    assert account_quotas(sagemaker_quotas(CONFIG), ["ml.m5.xlarge", "ml.c5.xlarge"]) == {
        "ml.m5.xlarge": InstanceQuota(instances=20, warm_pools=8, spot_instances=5),
        "ml.c5.xlarge": InstanceQuota(instances=10, warm_pools=0, spot_instances=10),
    }


def test_filters_and_one_quota_by_code() -> None:
    code = by_name()["ml.m5.xlarge for training warm pool usage"]["QuotaCode"]
    page = list_service_quotas(CONFIG, {"ServiceCode": "sagemaker", "QuotaCode": code})
    assert [row["QuotaName"] for row in page["Quotas"]] == ["ml.m5.xlarge for training warm pool usage"]
    assert list_service_quotas(CONFIG, {"ServiceCode": "sagemaker", "QuotaAppliedAtLevel": "RESOURCE"}) == {
        "Quotas": []
    }
    assert get_service_quota(CONFIG, {"ServiceCode": "sagemaker", "QuotaCode": code})["Quota"]["Value"] == 8.0


@pytest.mark.parametrize(
    ("call", "params", "code"),
    [
        (list_service_quotas, {"ServiceCode": "ec2"}, "NoSuchResourceException"),
        (
            list_service_quotas,
            {"ServiceCode": "sagemaker", "NextToken": "bm9wZQ=="},
            "InvalidPaginationTokenException",
        ),
        (
            list_service_quotas,
            {"ServiceCode": "sagemaker", "NextToken": "%%%"},
            "InvalidPaginationTokenException",
        ),
        (
            get_service_quota,
            {"ServiceCode": "sagemaker", "QuotaCode": "L-00000000"},
            "NoSuchResourceException",
        ),
    ],
)
def test_errors_are_aws_shaped(call: object, params: dict[str, object], code: str) -> None:
    with pytest.raises(SimApiError) as raised:
        call(CONFIG, params)  # type: ignore[operator]
    assert raised.value.code == code
    assert raised.value.http_status == 400
