"""The endpoint's WSGI application: one port for the SageMaker training APIs, the admin paths and moto.

Routing: ``/_sim/…`` → admin; ``X-Amz-Target: SageMaker.<Op>`` for an operation the engine models → the engine
(botocore JSON protocol 1.1); an unknown SageMaker operation → UnknownOperationException; anything else (S3,
CloudWatch Logs, STS, SageMaker operations we do not model) → moto's dispatcher.
"""

from __future__ import annotations

import json
import logging
import uuid
from collections.abc import Callable, Iterable
from typing import TYPE_CHECKING, Any
from xml.sax.saxutils import escape

from sagemaker_fleet.sim.engine import OPERATIONS
from sagemaker_fleet.sim.errors import SimApiError, internal_failure, unknown_operation, validation_error
from sagemaker_fleet.sim.server.admin import AdminError, handle_admin

if TYPE_CHECKING:
    from sagemaker_fleet.sim.server.control import SimulatorControl

LOG = logging.getLogger(__name__)
JSON_11 = "application/x-amz-json-1.1"
TARGET_PREFIX = "SageMaker."
#: Larger bodies are refused (a CreateTrainingJob request is a few kB).
MAX_BODY = 1 << 20

StartResponse = Callable[..., Any]
WsgiApp = Callable[[dict[str, Any], StartResponse], Iterable[bytes]]


class SimulatorApp:
    def __init__(self, control: SimulatorControl, fallback: WsgiApp | None) -> None:
        self.control = control
        self._fallback = fallback

    def __call__(self, environ: dict[str, Any], start_response: StartResponse) -> Iterable[bytes]:
        path = str(environ.get("PATH_INFO") or "/")
        if path == "/_sim" or path.startswith("/_sim/"):
            return self._admin(environ, start_response, path)
        target = str(environ.get("HTTP_X_AMZ_TARGET") or "")
        if target.startswith(TARGET_PREFIX):
            operation = target.removeprefix(TARGET_PREFIX)
            if operation in OPERATIONS:
                return self._sagemaker(environ, start_response, operation)
            if operation not in self.control.shapes.operations:
                return _aws_error(start_response, unknown_operation(target))
        if self._fallback is None:
            error = unknown_operation(target or path)
            if target:
                return _aws_error(start_response, error)
            return _xml_error(start_response, error)  # query and REST-XML clients (S3, STS) parse XML
        return self._fallback(environ, start_response)

    def _sagemaker(
        self, environ: dict[str, Any], start_response: StartResponse, operation: str
    ) -> Iterable[bytes]:
        control = self.control
        try:
            params = _json_body(environ)
            result = control.engine.call(operation, params, lambda p: control.shapes.check(operation, p))
        except SimApiError as exc:
            return _aws_error(start_response, exc)
        except Exception:
            LOG.exception("the simulator failed on %s", operation)
            return _aws_error(start_response, internal_failure())
        return _respond(start_response, 200, result, JSON_11)

    def _admin(self, environ: dict[str, Any], start_response: StartResponse, path: str) -> Iterable[bytes]:
        method = str(environ.get("REQUEST_METHOD", "GET")).upper()
        try:
            body = _json_body(environ) if method == "POST" else {}
            result = handle_admin(self.control, method, path, body)
        except AdminError as exc:
            return _respond(start_response, exc.status, {"error": str(exc)}, "application/json")
        except SimApiError as exc:
            return _respond(start_response, 400, {"error": exc.message}, "application/json")
        except Exception as exc:
            LOG.exception("admin request %s %s failed", method, path)
            return _respond(start_response, 500, {"error": f"simulator error: {exc}"}, "application/json")
        return _respond(start_response, 200, result, "application/json")


def _no_constant(name: str) -> Any:
    """JSON has no NaN or Infinity (Python's parser accepts them): a NaN speed would break the clock."""
    raise ValueError(f"{name} is not a JSON number")


def _json_body(environ: dict[str, Any]) -> dict[str, Any]:
    try:
        length = int(environ.get("CONTENT_LENGTH") or 0)
    except ValueError as exc:
        raise validation_error("Invalid Content-Length header.") from exc
    if length > MAX_BODY:
        raise validation_error(f"The request body is larger than {MAX_BODY} bytes.")
    raw = environ["wsgi.input"].read(length) if length > 0 else b""
    if not raw.strip():
        return {}
    try:
        data = json.loads(raw, parse_constant=_no_constant)
    except (UnicodeDecodeError, json.JSONDecodeError, ValueError) as exc:
        raise validation_error(f"The request body is not valid JSON: {exc}") from exc
    if not isinstance(data, dict):
        raise validation_error("The request body must be a JSON object.")
    return data


def _aws_error(start_response: StartResponse, error: SimApiError) -> Iterable[bytes]:
    return _respond(start_response, error.http_status, error.to_json(), JSON_11, error.code)


def _xml_error(start_response: StartResponse, error: SimApiError) -> Iterable[bytes]:
    body = (
        "<ErrorResponse><Error><Type>Sender</Type>"
        f"<Code>{escape(error.code)}</Code><Message>{escape(error.message)}</Message>"
        "</Error></ErrorResponse>"
    ).encode()
    start_response(
        f"{error.http_status} {_REASONS.get(error.http_status, 'Error')}",
        [("Content-Type", "text/xml"), ("Content-Length", str(len(body)))],
    )
    return [body]


def _respond(
    start_response: StartResponse, status: int, payload: Any, content_type: str, error_code: str | None = None
) -> Iterable[bytes]:
    body = json.dumps(payload, default=str).encode()
    headers = [
        ("Content-Type", content_type),
        ("Content-Length", str(len(body))),
        ("x-amzn-RequestId", str(uuid.uuid4())),
    ]
    if error_code is not None:
        headers.append(("x-amzn-ErrorType", error_code))
    start_response(f"{status} {_REASONS.get(status, 'Error')}", headers)
    return [body]


_REASONS = {200: "OK", 400: "Bad Request", 404: "Not Found", 500: "Internal Server Error"}
