"""The endpoint's answer to an AWS call it cannot serve: an error in the caller's own protocol that names the call.

moto answers a service it does not know, or an operation it does not implement, with HTTP 500 and an HTML page.
botocore cannot parse that as an error of any protocol: it retries the call (a 500 is retryable) and then raises
``An error occurred (500) … <!doctype html>…``. So the endpoint answers instead, with HTTP 400 (nothing to retry)
and the error body botocore parses for the service's protocol, told from the request:

==============  ==========================================  ===================================================
protocol        how the request shows it                    the error
==============  ==========================================  ===================================================
JSON 1.0/1.1    ``X-Amz-Target: Prefix.Operation``          ``{"__type", "message"}``, ``x-amzn-ErrorType``
RPC v2 CBOR     ``smithy-protocol: rpc-v2-cbor``            the same map in CBOR
query, EC2      ``Action=Operation`` (form body or URL)     ``<ErrorResponse><Error><Code>…``
REST-XML        S3, Route 53, CloudFront (SigV4 scope)      ``<Error><Code>…`` (the S3 form; botocore reads it
                                                            for every REST-XML service)
REST-JSON       any other request                           JSON body and ``x-amzn-ErrorType``
==============  ==========================================  ===================================================

The service is the one the request was signed for (the SigV4 credential scope). The message names the operation
(the REST protocols name none in the request: their method and path stand for it); botocore's own message names
it too (``… when calling the ListFlows operation: …``).
"""

from __future__ import annotations

import json
import re
import uuid
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from io import BytesIO
from typing import Any, Literal
from urllib.parse import parse_qs
from xml.sax.saxutils import escape

from sagemaker_fleet.sim.errors import SimApiError

StartResponse = Callable[..., Any]
Protocol = Literal["json", "cbor", "query", "rest-json", "rest-xml"]

#: Signing names of the REST-XML services (botocore's models: s3, s3control, route53, cloudfront).
REST_XML_SERVICES = frozenset({"s3", "route53", "cloudfront"})
#: A form body larger than this is not read for its Action (a query call is a few kB).
MAX_FORM_BODY = 1 << 20
_SCOPE = re.compile(r"Credential=[^/,\s]+/\d{8}/[^/]+/([^/]+)/aws4_request")
_CBOR_PATH = re.compile(r"/service/[^/]+/operation/([^/]+)$")
_REASONS = {400: "Bad Request"}


@dataclass(frozen=True)
class CallIdentity:
    """What a request asks for, as far as the request itself says: its protocol, service and operation."""

    protocol: Protocol
    service: str  # the SigV4 signing name; "" for an unsigned request
    operation: str  # ``ListFlows``, or ``GET /path`` for a REST call
    content_type: str = ""

    @property
    def error_code(self) -> str:
        """What AWS answers for an operation it does not know: ``InvalidAction`` in the query protocols."""
        return "InvalidAction" if self.protocol == "query" else "UnknownOperationException"

    def message(self, detail: str = "") -> str:
        service = f"{self.service} " if self.service else ""
        tail = f" ({detail})" if detail else ""
        return (
            f"The sagemaker-fleet simulator does not serve {service}{self.operation}{tail}. It serves the SageMaker "
            "training-job and model registry APIs and Service Quotas for service code sagemaker itself, and other "
            "AWS APIs as far as moto implements them."
        )


def service_of(environ: Mapping[str, Any]) -> str:
    """The service a request was signed for: the SigV4 scope of its Authorization header or presigned URL."""
    scope = str(environ.get("HTTP_AUTHORIZATION") or "")
    if not scope:
        query = parse_qs(str(environ.get("QUERY_STRING") or ""))
        scope = "Credential=" + query.get("X-Amz-Credential", [""])[0]
    match = _SCOPE.search(scope)
    return match.group(1) if match else ""


def keep_form_body(environ: dict[str, Any]) -> bytes:
    """Read a form-encoded body (a query-protocol call) and put it back for whoever reads the request next; other
    bodies are left unread (b"")."""
    if not str(environ.get("CONTENT_TYPE") or "").startswith("application/x-www-form-urlencoded"):
        return b""
    try:
        length = int(environ.get("CONTENT_LENGTH") or 0)
    except ValueError:
        return b""
    if not 0 < length <= MAX_FORM_BODY:
        return b""
    raw: bytes = environ["wsgi.input"].read(length)
    environ["wsgi.input"] = BytesIO(raw)
    return raw


def identify(environ: Mapping[str, Any], form_body: bytes = b"") -> CallIdentity:
    """The protocol, service and operation of a request (``form_body``: its form body, see :func:`keep_form_body`)."""
    service = service_of(environ)
    content_type = str(environ.get("CONTENT_TYPE") or "")
    target = str(environ.get("HTTP_X_AMZ_TARGET") or "")
    path = str(environ.get("PATH_INFO") or "/")
    if target:
        return CallIdentity("json", service, target.rpartition(".")[2] or target, content_type)
    if str(environ.get("HTTP_SMITHY_PROTOCOL") or "") == "rpc-v2-cbor":
        match = _CBOR_PATH.search(path)
        return CallIdentity("cbor", service, match.group(1) if match else path, content_type)
    fields = parse_qs(str(environ.get("QUERY_STRING") or ""))
    fields.update(parse_qs(form_body.decode("utf-8", "replace")))
    if fields.get("Action"):
        return CallIdentity("query", service, fields["Action"][0], content_type)
    method = str(environ.get("REQUEST_METHOD") or "GET").upper()
    protocol: Protocol = "rest-xml" if service in REST_XML_SERVICES else "rest-json"
    return CallIdentity(protocol, service, f"{method} {path}", content_type)


def _cbor_head(major: int, length: int) -> bytes:
    if length < 24:
        return bytes([major << 5 | length])
    if length < 1 << 8:
        return bytes([major << 5 | 24, length])
    if length < 1 << 16:
        return bytes([major << 5 | 25]) + length.to_bytes(2, "big")
    return bytes([major << 5 | 26]) + length.to_bytes(4, "big")


def cbor_text_map(items: Mapping[str, str]) -> bytes:
    """A CBOR map of text strings (RFC 8949: major types 5 and 3), all an RPC v2 CBOR error body needs."""
    out = bytearray(_cbor_head(5, len(items)))
    for key, value in items.items():
        for text in (key, value):
            data = text.encode()
            out += _cbor_head(3, len(data)) + data
    return bytes(out)


def error_response(identity: CallIdentity, error: SimApiError) -> tuple[int, list[tuple[str, str]], bytes]:
    """Status, headers and body of ``error`` in the protocol of the call ``identity`` describes."""
    request_id = str(uuid.uuid4())
    fields = {"__type": error.code, "message": error.message}
    headers = [("x-amzn-RequestId", request_id)]
    if identity.protocol in ("query", "rest-xml"):
        inner = f"<Code>{escape(error.code)}</Code><Message>{escape(error.message)}</Message>"
        body = (
            f"<ErrorResponse><Error><Type>Sender</Type>{inner}</Error><RequestId>{request_id}</RequestId></ErrorResponse>"
            if identity.protocol == "query"
            else f"<Error>{inner}<RequestId>{request_id}</RequestId></Error>"
        ).encode()
        headers += [("Content-Type", "text/xml"), ("x-amz-request-id", request_id)]
    elif identity.protocol == "cbor":
        body = cbor_text_map(fields)
        headers += [("Content-Type", "application/cbor"), ("smithy-protocol", "rpc-v2-cbor")]
    else:
        body = json.dumps(fields).encode()
        json_type = (
            identity.content_type if identity.content_type.startswith("application/x-amz-json") else ""
        )
        content_type = json_type or ("application/json" if identity.protocol == "rest-json" else "")
        headers += [
            ("Content-Type", content_type or "application/x-amz-json-1.1"),
            ("x-amzn-ErrorType", error.code),
        ]
    headers.append(("Content-Length", str(len(body))))
    return error.http_status, headers, body


def respond(start_response: StartResponse, identity: CallIdentity, error: SimApiError) -> Iterable[bytes]:
    status, headers, body = error_response(identity, error)
    start_response(f"{status} {_REASONS.get(status, 'Error')}", headers)
    return [body]


def unserved(start_response: StartResponse, identity: CallIdentity, detail: str = "") -> Iterable[bytes]:
    """Answer that the simulator does not serve the call ``identity`` describes (HTTP 400)."""
    return respond(start_response, identity, SimApiError(identity.error_code, identity.message(detail)))
