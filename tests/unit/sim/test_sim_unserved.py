"""A call the simulator cannot serve is answered in the caller's protocol: botocore's own parser for that protocol
reads the error code and a message naming the operation (never a bare ``500`` with an HTML page)."""

from __future__ import annotations

from io import BytesIO
from typing import Any

import pytest
from botocore.parsers import create_parser

from sagemaker_fleet.sim.errors import SimApiError
from sagemaker_fleet.sim.server.unserved import (
    CallIdentity,
    cbor_text_map,
    error_response,
    identify,
    keep_form_body,
)

SCOPE = (
    "AWS4-HMAC-SHA256 Credential=testing/20261129/us-east-1/{}/aws4_request, SignedHeaders=host, Signature=0"
)


def environ(service: str, method: str = "POST", path: str = "/", **extra: Any) -> dict[str, Any]:
    return {
        "REQUEST_METHOD": method,
        "PATH_INFO": path,
        "QUERY_STRING": "",
        "HTTP_AUTHORIZATION": SCOPE.format(service),
        "wsgi.input": BytesIO(b""),
        **extra,
    }


def form(service: str, body: bytes) -> dict[str, Any]:
    return environ(
        service,
        CONTENT_TYPE="application/x-www-form-urlencoded; charset=utf-8",
        CONTENT_LENGTH=str(len(body)),
        **{"wsgi.input": BytesIO(body)},
    )


CASES = [
    # (request environ, botocore protocol, expected identity)
    (
        environ(
            "servicequotas",
            HTTP_X_AMZ_TARGET="ServiceQuotasV20190624.ListServiceQuotas",
            CONTENT_TYPE="application/x-amz-json-1.1",
        ),
        "json",
        CallIdentity("json", "servicequotas", "ListServiceQuotas", "application/x-amz-json-1.1"),
    ),
    (
        environ("monitoring", path="/service/GraniteServiceVersion20100801/operation/ListManagedInsightRules",
                HTTP_SMITHY_PROTOCOL="rpc-v2-cbor", CONTENT_TYPE="application/cbor"),
        "smithy-rpc-v2-cbor",
        CallIdentity("cbor", "monitoring", "ListManagedInsightRules", "application/cbor"),
    ),
    (
        form("iam", b"Action=ListOrganizationsFeatures&Version=2010-05-08"),
        "query",
        CallIdentity("query", "iam", "ListOrganizationsFeatures", "application/x-www-form-urlencoded; charset=utf-8"),
    ),
    (
        form("ec2", b"Action=DescribeCapacityBlockOfferings&Version=2016-11-15"),
        "ec2",
        CallIdentity("query", "ec2", "DescribeCapacityBlockOfferings", "application/x-www-form-urlencoded; charset=utf-8"),
    ),
    (
        environ("s3", method="GET", path="/bucket", QUERY_STRING="metadataTable"),
        "rest-xml",
        CallIdentity("rest-xml", "s3", "GET /bucket"),
    ),
    (
        environ("appflow", path="/list-flows", CONTENT_TYPE="application/json"),
        "rest-json",
        CallIdentity("rest-json", "appflow", "POST /list-flows", "application/json"),
    ),
]  # fmt: skip


@pytest.mark.parametrize(("request_environ", "protocol", "identity"), CASES)
def test_the_error_parses_in_the_callers_protocol(
    request_environ: dict[str, Any], protocol: str, identity: CallIdentity
) -> None:
    found = identify(request_environ, keep_form_body(request_environ))
    assert found == identity
    error = SimApiError(found.error_code, found.message("moto failed on it"))
    status, headers, body = error_response(found, error)
    parsed = create_parser(protocol).parse(
        {"status_code": status, "headers": {k.lower(): v for k, v in headers}, "body": body}, None
    )
    assert status == 400
    assert parsed["Error"]["Code"] == found.error_code
    assert found.operation in parsed["Error"]["Message"]
    assert "does not serve" in parsed["Error"]["Message"]


def test_the_query_protocols_answer_invalid_action_the_others_unknown_operation() -> None:
    assert CallIdentity("query", "iam", "X").error_code == "InvalidAction"
    assert {CallIdentity(p, "s", "X").error_code for p in ("json", "cbor", "rest-json", "rest-xml")} == {
        "UnknownOperationException"
    }


def test_a_form_body_read_for_its_action_is_there_for_moto_too() -> None:
    request = form("sts", b"Action=GetCallerIdentity&Version=2011-06-15")
    assert identify(request, keep_form_body(request)).operation == "GetCallerIdentity"
    assert request["wsgi.input"].read() == b"Action=GetCallerIdentity&Version=2011-06-15"


def test_cbor_lengths_past_one_byte() -> None:
    long = "x" * 300
    encoded = cbor_text_map({"message": long})
    assert encoded[:1] == b"\xa1"  # a map of one pair
    assert encoded[9:12] == b"\x79\x01\x2c"  # after "message": text of 300 bytes, its length in two bytes
    parsed = create_parser("smithy-rpc-v2-cbor").parse(
        {"status_code": 400, "headers": {}, "body": cbor_text_map({"__type": "Boom", "message": long})}, None
    )
    assert parsed["Error"] == {"Code": "Boom", "Message": long}


def test_an_unsigned_call_is_named_without_a_service() -> None:
    request = {"REQUEST_METHOD": "GET", "PATH_INFO": "/anything", "QUERY_STRING": ""}
    identity = identify(request)
    assert identity == CallIdentity("rest-json", "", "GET /anything")
    assert "does not serve GET /anything" in identity.message()
