"""read_account_quotas pages ListServiceQuotas for service code sagemaker to its end, and names the permission
when the credentials may not list quotas."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import pytest
from botocore.exceptions import ClientError

from sagemaker_fleet.fleetspec.model import InstanceQuota
from sagemaker_fleet.jobs.paging import ListingError
from sagemaker_fleet.preflight.quotas import PAGE_SIZE, QuotaReadError, read_account_quotas


def row(name: str, value: float) -> dict[str, Any]:
    return {"QuotaName": name, "Value": value, "QuotaAppliedAtLevel": "ACCOUNT"}


class PagedQuotas:
    """A Service Quotas client that answers from scripted pages and records each request."""

    def __init__(self, pages: list[dict[str, Any]]) -> None:
        self.pages = pages
        self.requests: list[dict[str, Any]] = []

    def list_service_quotas(self, **kwargs: Any) -> Mapping[str, Any]:
        self.requests.append(kwargs)
        return self.pages[len(self.requests) - 1]


class Refusing:
    def __init__(self, code: str) -> None:
        self.code = code

    def list_service_quotas(self, **kwargs: Any) -> Mapping[str, Any]:
        raise ClientError({"Error": {"Code": self.code, "Message": "no"}}, "ListServiceQuotas")


def test_every_page_is_read_and_matched() -> None:
    client = PagedQuotas(
        [
            {"Quotas": [row("ml.m5.xlarge for training job usage", 20.0)], "NextToken": "t1"},
            {"Quotas": [], "NextToken": "t2"},  # an empty page in the middle does not end the listing
            {"Quotas": [row("ML.M5.XLARGE for training warm pool usage", 8.0)]},
        ]
    )
    assert read_account_quotas(client, ["ml.m5.xlarge", "ml.p5.48xlarge"]) == {
        "ml.m5.xlarge": InstanceQuota(instances=20, warm_pools=8)
    }
    assert client.requests == [
        {"ServiceCode": "sagemaker", "MaxResults": PAGE_SIZE},
        {"ServiceCode": "sagemaker", "MaxResults": PAGE_SIZE, "NextToken": "t1"},
        {"ServiceCode": "sagemaker", "MaxResults": PAGE_SIZE, "NextToken": "t2"},
    ]


def test_access_denied_names_the_permission() -> None:
    with pytest.raises(QuotaReadError) as raised:
        read_account_quotas(Refusing("AccessDeniedException"), ["ml.m5.xlarge"])
    assert raised.value.code == "AccessDeniedException"
    assert "servicequotas:ListServiceQuotas" in str(raised.value)


def test_another_refusal_keeps_its_code() -> None:
    with pytest.raises(QuotaReadError) as raised:
        read_account_quotas(Refusing("NoSuchResourceException"), ["ml.m5.xlarge"])
    assert raised.value.code == "NoSuchResourceException"
    assert "servicequotas:ListServiceQuotas" not in str(raised.value)


def test_a_listing_that_never_ends_is_an_error_not_a_hang() -> None:
    client = PagedQuotas([{"Quotas": [], "NextToken": "same"}] * 3)
    with pytest.raises(ListingError):
        read_account_quotas(client, ["ml.m5.xlarge"])
