"""The endpoint's WSGI application: one port for the SageMaker training and model registry APIs, Service Quotas, the
admin paths and moto.

Routing: ``/_sim/…`` → admin; ``X-Amz-Target: SageMaker.<Op>`` for an operation the engine models → the engine
(botocore JSON protocol 1.1); an unknown SageMaker operation → UnknownOperationException;
``ServiceQuotasV20190624.ListServiceQuotas`` and ``.GetServiceQuota`` for service code ``sagemaker`` → the
simulator's quotas (``sim/service_quotas.py``); anything else (S3, IAM, ECR, CloudWatch Logs, STS, SageMaker
operations we do not model) → moto's dispatcher. What moto cannot serve (it answers HTTP 500 with an HTML page, or
raises) becomes a 400 error in the caller's protocol naming the operation (``unserved.py``), as does every call
when moto is off.
"""

from __future__ import annotations

import json
import logging
import uuid
from collections.abc import Callable, Iterable
from io import BytesIO
from typing import TYPE_CHECKING, Any

from sagemaker_fleet.jobs.endpoint import SPEED_HEADER
from sagemaker_fleet.jobs.service_quotas import SERVICE_CODE
from sagemaker_fleet.sim import service_quotas
from sagemaker_fleet.sim.engine import OPERATIONS
from sagemaker_fleet.sim.errors import SimApiError, internal_failure, unknown_operation, validation_error
from sagemaker_fleet.sim.server.admin import AdminError, handle_admin
from sagemaker_fleet.sim.server.unserved import identify, keep_form_body, unserved

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
        return self._route(environ, self._announcing_speed(start_response))

    def _announcing_speed(self, start_response: StartResponse) -> StartResponse:
        """``start_response`` with the clock's speed added to every response, S3's and moto's too: a fleet run
        counts its poll interval and keep-alives in this endpoint's seconds (``jobs/endpoint.py``)."""
        speed = f"{self.control.speed:g}"

        def start(status: str, headers: list[tuple[str, str]], exc_info: Any = None) -> Any:
            return start_response(status, [*headers, (SPEED_HEADER, speed)], exc_info)

        return start

    def _route(self, environ: dict[str, Any], start_response: StartResponse) -> Iterable[bytes]:
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
        quota_operation = target.removeprefix(service_quotas.TARGET_PREFIX)
        if target.startswith(service_quotas.TARGET_PREFIX) and quota_operation in service_quotas.OPERATIONS:
            return self._service_quotas(environ, start_response, quota_operation)
        return self._fallback_or_unserved(environ, start_response)

    def _service_quotas(
        self, environ: dict[str, Any], start_response: StartResponse, operation: str
    ) -> Iterable[bytes]:
        """The sagemaker quotas; GetServiceQuota of another service goes on to moto, which knows a few."""
        try:
            raw = _raw_body(environ)
            params = _parse_json(raw)
            if operation == "GetServiceQuota" and params.get("ServiceCode") != SERVICE_CODE:
                environ["wsgi.input"], environ["CONTENT_LENGTH"] = BytesIO(raw), str(len(raw))
                return self._fallback_or_unserved(environ, start_response)
            self.control.quota_shapes.check(operation, params)
            config = self.control.engine.config
            if operation == "ListServiceQuotas":
                result = service_quotas.list_service_quotas(config, params)
            else:
                result = service_quotas.get_service_quota(config, params)
        except SimApiError as exc:
            return _aws_error(start_response, exc)
        except Exception:
            LOG.exception("the simulator failed on %s", operation)
            return _aws_error(start_response, internal_failure())
        return _respond(start_response, 200, result, JSON_11)

    def _fallback_or_unserved(
        self, environ: dict[str, Any], start_response: StartResponse
    ) -> Iterable[bytes]:
        """moto's answer, unless moto is off or cannot serve the call: then an AWS-style error naming it."""
        identity = identify(environ, keep_form_body(environ))
        if self._fallback is None:
            return unserved(start_response, identity)
        # moto keeps one set of backends per account: the simulator's (SimConfig.account_id), where the engine's
        # ARNs, checkpoints and logs are, unless the caller names another
        environ.setdefault("HTTP_X_MOTO_ACCOUNT_ID", self.control.engine.config.account_id)
        captured: list[Any] = []
        written: list[bytes] = []

        def capture(
            status: str, headers: list[tuple[str, str]], exc_info: Any = None
        ) -> Callable[[bytes], None]:
            captured[:] = [status, headers]
            return written.append

        try:
            body = self._fallback(environ, capture)
            if not captured:  # an application that starts its response lazily: run it to the end
                body = [b"".join(body)]
        except Exception as exc:  # moto raises for a service it does not know
            LOG.info("moto failed on %s %s: %r", identity.service, identity.operation, exc)
            return unserved(start_response, identity, f"moto failed on it: {type(exc).__name__}")
        if not captured:
            return unserved(start_response, identity, "moto gave no response")
        status, headers = captured
        if int(status.split()[0]) >= 500 and not _is_aws_error(headers):
            _close(body)
            return unserved(
                start_response, identity, f"moto answered HTTP {status.split()[0]} without an AWS error"
            )
        start_response(status, headers)
        return [*written, *body] if written else body

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


def _raw_body(environ: dict[str, Any]) -> bytes:
    try:
        length = int(environ.get("CONTENT_LENGTH") or 0)
    except ValueError as exc:
        raise validation_error("Invalid Content-Length header.") from exc
    if length > MAX_BODY:
        raise validation_error(f"The request body is larger than {MAX_BODY} bytes.")
    raw: bytes = environ["wsgi.input"].read(length) if length > 0 else b""
    return raw


def _parse_json(raw: bytes) -> dict[str, Any]:
    if not raw.strip():
        return {}
    try:
        data = json.loads(raw, parse_constant=_no_constant)
    except (UnicodeDecodeError, json.JSONDecodeError, ValueError) as exc:
        raise validation_error(f"The request body is not valid JSON: {exc}") from exc
    if not isinstance(data, dict):
        raise validation_error("The request body must be a JSON object.")
    return data


def _json_body(environ: dict[str, Any]) -> dict[str, Any]:
    return _parse_json(_raw_body(environ))


def _is_aws_error(headers: list[tuple[str, str]]) -> bool:
    """A body botocore can parse as an error: JSON, XML or CBOR (moto's own AWS errors), not an HTML page."""
    content_type = next((value for name, value in headers if name.lower() == "content-type"), "").lower()
    return any(kind in content_type for kind in ("json", "xml", "cbor")) and "html" not in content_type


def _close(body: Iterable[bytes]) -> None:
    close = getattr(body, "close", None)
    if callable(close):
        close()


def _aws_error(start_response: StartResponse, error: SimApiError) -> Iterable[bytes]:
    return _respond(start_response, error.http_status, error.to_json(), JSON_11, error.code)


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
