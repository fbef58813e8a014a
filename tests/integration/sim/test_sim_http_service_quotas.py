"""Service Quotas over HTTP with boto3: the simulator's quotas for service code sagemaker, and a clean AWS error
naming the operation for every call the simulator cannot serve (moto's HTML 500 never reaches the client)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import pytest
from botocore.config import Config
from botocore.exceptions import ClientError

if TYPE_CHECKING:
    from sagemaker_fleet.sim.client import SimClient

pytestmark = pytest.mark.integration
#: Retries on: a 500 would be retried, the clean 400 is not.
RETRYING = Config(retries={"mode": "standard", "max_attempts": 3})


def quotas(sim: SimClient) -> dict[str, dict[str, Any]]:
    client = sim.boto3_client("service-quotas")
    pages = client.get_paginator("list_service_quotas").paginate(
        ServiceCode="sagemaker", PaginationConfig={"PageSize": 50}
    )
    return {row["QuotaName"]: row for page in pages for row in page["Quotas"]}


def test_list_service_quotas_pages_through_the_simulators_quotas(sim: SimClient) -> None:
    sim.set_quota("ml.m5.xlarge", instances=12, warm_pools=0, spot_instances=3)
    listed = quotas(sim)
    assert listed["ml.m5.xlarge for training job usage"]["Value"] == 12.0
    assert listed["ml.m5.xlarge for training warm pool usage"]["Value"] == 0.0
    assert listed["ml.m5.xlarge for spot training job usage"]["Value"] == 3.0
    assert len(listed) > 50  # more than one page
    assert len({row["QuotaCode"] for row in listed.values()}) == len(listed)

    sim.set_quota("ml.m5.xlarge", instances=30, warm_pools=6)
    again = quotas(sim)
    assert again["ml.m5.xlarge for training warm pool usage"]["Value"] == 6.0  # admin changes show at once
    assert (
        again["ml.m5.xlarge for spot training job usage"]["Value"] == 30.0
    )  # spot shares the instance quota
    code = again["ml.m5.xlarge for training warm pool usage"]["QuotaCode"]
    assert code == listed["ml.m5.xlarge for training warm pool usage"]["QuotaCode"]

    one = sim.boto3_client("service-quotas").get_service_quota(ServiceCode="sagemaker", QuotaCode=code)
    assert one["Quota"]["QuotaName"] == "ml.m5.xlarge for training warm pool usage"
    assert one["Quota"]["Value"] == 6.0


def test_other_service_codes_and_unknown_codes_are_no_such_resource(sim: SimClient) -> None:
    client = sim.boto3_client("service-quotas")
    with pytest.raises(client.exceptions.NoSuchResourceException):
        client.list_service_quotas(ServiceCode="ec2")
    with pytest.raises(client.exceptions.NoSuchResourceException):
        client.get_service_quota(ServiceCode="sagemaker", QuotaCode="L-00000000")
    with pytest.raises(client.exceptions.InvalidPaginationTokenException):
        client.list_service_quotas(ServiceCode="sagemaker", NextToken="bm9wZQ==")


def test_get_service_quota_of_another_service_still_reaches_moto(sim: SimClient) -> None:
    from moto.servicequotas.resources.default_quotas.vpc import VPC_DEFAULT_QUOTAS

    code = VPC_DEFAULT_QUOTAS[0]["QuotaCode"]
    got = sim.boto3_client("service-quotas").get_service_quota(ServiceCode="vpc", QuotaCode=code)
    assert got["Quota"]["QuotaCode"] == code


def test_a_raw_request_is_checked_against_the_model(sim: SimClient) -> None:
    client = sim.boto3_client("service-quotas", config=Config(parameter_validation=False))
    with pytest.raises(ClientError) as raised:
        client.list_service_quotas(ServiceCode="sagemaker", MaxResults=1000)
    assert raised.value.response["Error"]["Code"] == "ValidationException"
    assert "maxResults" in raised.value.response["Error"]["Message"]


@pytest.mark.parametrize(
    ("service", "operation", "kwargs", "code"),
    [
        # moto knows no such service (it raises) — JSON 1.1, REST-JSON, RPC v2 CBOR, query
        ("pricing", "get_products", {"ServiceCode": "AmazonSageMaker"}, "UnknownOperationException"),
        ("appflow", "list_flows", {}, "UnknownOperationException"),
        ("pi", "list_available_resource_metrics",
         {"ServiceType": "RDS", "Identifier": "db-1", "MetricTypes": ["os"]}, "UnknownOperationException"),
        ("cloudsearch", "describe_domains", {}, "InvalidAction"),
        # moto knows the service, not the operation
        ("service-quotas", "list_requested_service_quota_change_history", {}, "UnknownOperationException"),
    ],
)  # fmt: skip
def test_what_the_simulator_cannot_serve_is_a_clean_error_naming_the_operation(
    sim: SimClient, service: str, operation: str, kwargs: dict[str, Any], code: str
) -> None:
    client = sim.boto3_client(service, config=RETRYING)
    with pytest.raises(ClientError) as raised:
        getattr(client, operation)(**kwargs)
    error = raised.value.response["Error"]
    operation_name = client.meta.method_to_api_mapping[operation]
    assert error["Code"] == code
    assert "does not serve" in error["Message"]
    assert operation_name in str(raised.value)  # botocore's message and, for RPC calls, ours
    assert "<html" not in str(raised.value).lower()
    assert raised.value.response["ResponseMetadata"]["HTTPStatusCode"] == 400
    assert raised.value.response["ResponseMetadata"].get("RetryAttempts", 0) == 0
