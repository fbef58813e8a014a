"""The errors the simulated SageMaker API raises, shaped as AWS returns them (``__type``, ``message``, status).

Codes and messages follow the botocore model and what AWS is publicly reported to answer; where AWS's own text is
unknown the message says what is wrong and how to fix it in AWS's tone, and the module documents the guess.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any


class SimApiError(Exception):
    """An API error with the AWS error code, a message and the HTTP status the endpoint answers with."""

    def __init__(self, code: str, message: str, http_status: int = 400) -> None:
        super().__init__(f"{code}: {message}")
        self.code = code
        self.message = message
        self.http_status = http_status

    def to_json(self) -> dict[str, str]:
        """The JSON-protocol error body botocore parses."""
        return {"__type": self.code, "message": self.message}


def validation_error(message: str) -> SimApiError:
    return SimApiError("ValidationException", message)


def constraint_violations(violations: Sequence[str]) -> SimApiError:
    """AWS's format for shape violations: ``N validation error(s) detected: a; b``."""
    count = len(violations)
    noun = "error" if count == 1 else "errors"
    return validation_error(f"{count} validation {noun} detected: " + "; ".join(violations))


def violation(value: Any, path: str, constraint: str) -> str:
    """One violation in AWS's words: ``Value 'x' at 'resourceConfig.instanceType' failed to satisfy …``."""
    shown = "null" if value is None else f"'{value}'"
    return f"Value {shown} at '{path}' failed to satisfy constraint: {constraint}"


def resource_not_found(message: str) -> SimApiError:
    return SimApiError("ResourceNotFound", message)


#: AWS answers DescribeTrainingJob for an unknown name with ValidationException, not the modelled ResourceNotFound
#: (boto/boto3#2808, aws/aws-sdk#165); the Airflow operator relies on it. We reproduce that.
def job_not_found_for_describe() -> SimApiError:
    return validation_error("Requested resource not found.")


def resource_in_use(message: str) -> SimApiError:
    return SimApiError("ResourceInUse", message)


def resource_limit_exceeded(message: str) -> SimApiError:
    return SimApiError("ResourceLimitExceeded", message)


def throttled() -> SimApiError:
    return SimApiError("ThrottlingException", "Rate exceeded", 400)


def unknown_operation(target: str) -> SimApiError:
    return SimApiError("UnknownOperationException", f"Unknown operation {target}", 400)


def internal_failure(message: str = "An internal error occurred in the simulator.") -> SimApiError:
    return SimApiError("InternalFailure", message, 500)
