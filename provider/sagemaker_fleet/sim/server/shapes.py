"""Check a request against the botocore service model, answering like AWS's front door.

botocore validates on the client, but the endpoint also serves raw HTTP callers and clients built with
``parameter_validation=False``; whatever they send must come back as a ValidationException naming the member and the
constraint (``Value 'x' at 'resourceConfig.instanceType' failed to satisfy constraint: …``), never as a 500.
Type mismatches, which AWS reports as SerializationException, are reported as ValidationException too (one error
code for every malformed request; documented simplification).

An older botocore's model is older than the service: where AWS has since raised a limit the front door answers as
AWS does now (:data:`SERVICE_NOW`): keep-alive up to 21600 s and every training instance type of the shipped list,
also with botocore 1.39 (pinned beside Amazon MWAA's Airflow 3.0.6: keep-alive up to 3600 s, 136 types).
"""

from __future__ import annotations

import functools
import re
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from sagemaker_fleet.fleetspec.instance_types import training_instance_types
from sagemaker_fleet.fleetspec.model import KEEP_ALIVE_API_MAX
from sagemaker_fleet.sim.errors import constraint_violations, violation

if TYPE_CHECKING:
    from botocore.model import Shape

#: AWS stops listing after this many violations.
MAX_VIOLATIONS = 10
#: Shape name -> the bound the service has now, where an older botocore's model says less.
SERVICE_NOW: dict[str, int] = {"KeepAlivePeriodInSeconds": KEEP_ALIVE_API_MAX}


def _enum(shape: Shape) -> list[str]:
    """The shape's enum, and for the training instance types also the ones SageMaker added after that botocore."""
    enum: list[str] = list(shape.enum or ())  # type: ignore[attr-defined]
    if enum and shape.name == "TrainingInstanceType":
        enum += sorted(training_instance_types() - set(enum))
    return enum


@functools.cache
def _pattern(pattern: str) -> re.Pattern[str] | None:
    try:
        return re.compile(pattern)
    except re.error:
        return None  # a Java-only construct; botocore does not check it either


class ShapeChecker:
    def __init__(self, service: str = "sagemaker") -> None:
        import botocore.session

        self._model = botocore.session.get_session().get_service_model(service)
        self.operations = frozenset(self._model.operation_names)

    def check(self, operation: str, params: Mapping[str, Any]) -> None:
        shape = self._model.operation_model(operation).input_shape
        problems: list[str] = []
        if shape is not None:
            self._structure(shape, params, "", problems)
        if problems:
            raise constraint_violations(problems[:MAX_VIOLATIONS])

    def _walk(self, shape: Shape, value: Any, path: str, problems: list[str]) -> None:
        kind = shape.type_name
        if kind == "structure":
            self._structure(shape, value, path, problems)
        elif kind == "list":
            self._list(shape, value, path, problems)
        elif kind == "map":
            self._map(shape, value, path, problems)
        elif kind == "string":
            self._string(shape, value, path, problems)
        elif kind in ("integer", "long"):
            self._number(shape, value, path, problems, integral=True)
        elif kind in ("float", "double"):
            self._number(shape, value, path, problems, integral=False)
        elif kind == "boolean" and not isinstance(value, bool):
            problems.append(violation(value, path, "Member must be of type boolean"))
        elif kind == "timestamp" and (isinstance(value, bool) or not isinstance(value, int | float | str)):
            problems.append(violation(value, path, "Member must be a timestamp"))

    def _structure(self, shape: Shape, value: Any, path: str, problems: list[str]) -> None:
        if not isinstance(value, Mapping):
            problems.append(violation(value, path or "request", "Member must be a structure"))
            return
        members = shape.members  # type: ignore[attr-defined]
        for name in shape.required_members:
            if value.get(name) is None:
                problems.append(violation(None, _join(path, name), "Member must not be null"))
        for name, item in value.items():
            if name in members and item is not None:
                self._walk(members[name], item, _join(path, name), problems)

    def _list(self, shape: Shape, value: Any, path: str, problems: list[str]) -> None:
        if not isinstance(value, list):
            problems.append(violation(value, path, "Member must be a list"))
            return
        self._size(shape, len(value), value, path, problems)
        for index, item in enumerate(value):
            self._walk(shape.member, item, f"{path}.{index + 1}.member", problems)  # type: ignore[attr-defined]

    def _map(self, shape: Shape, value: Any, path: str, problems: list[str]) -> None:
        if not isinstance(value, Mapping):
            problems.append(violation(value, path, "Member must be a map"))
            return
        self._size(shape, len(value), value, path, problems)
        for key, item in value.items():
            self._walk(shape.key, key, f"{path}.key", problems)  # type: ignore[attr-defined]
            self._walk(shape.value, item, f"{path}.{key}", problems)  # type: ignore[attr-defined]

    def _string(self, shape: Shape, value: Any, path: str, problems: list[str]) -> None:
        if not isinstance(value, str):
            problems.append(violation(value, path, "Member must be of type string"))
            return
        enum = _enum(shape)
        if enum and value not in enum:
            problems.append(
                violation(value, path, f"Member must satisfy enum value set: [{', '.join(enum)}]")
            )
            return
        self._size(shape, len(value), value, path, problems)
        pattern = shape.metadata.get("pattern")
        compiled = _pattern(pattern) if pattern else None
        if compiled is not None and not compiled.fullmatch(value):
            problems.append(
                violation(value, path, f"Member must satisfy regular expression pattern: {pattern}")
            )

    def _number(self, shape: Shape, value: Any, path: str, problems: list[str], *, integral: bool) -> None:
        wanted = int if integral else int | float
        if isinstance(value, bool) or not isinstance(value, wanted):
            problems.append(violation(value, path, f"Member must be of type {shape.type_name}"))
            return
        low, high = shape.metadata.get("min"), shape.metadata.get("max")
        if high is not None and shape.name in SERVICE_NOW:
            high = max(high, SERVICE_NOW[shape.name])
        if low is not None and value < low:
            problems.append(violation(value, path, f"Member must have value greater than or equal to {low}"))
        if high is not None and value > high:
            problems.append(violation(value, path, f"Member must have value less than or equal to {high}"))

    @staticmethod
    def _size(shape: Shape, size: int, value: Any, path: str, problems: list[str]) -> None:
        low, high = shape.metadata.get("min"), shape.metadata.get("max")
        if low is not None and size < low:
            problems.append(violation(value, path, f"Member must have length greater than or equal to {low}"))
        if high is not None and size > high:
            problems.append(violation(value, path, f"Member must have length less than or equal to {high}"))


def _join(path: str, member: str) -> str:
    camel = member[:1].lower() + member[1:]
    return f"{path}.{camel}" if path else camel
