"""Typed reads from a decoded JSON document, failing with the field path (``jobs[3].lane``) on a bad value."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from sagemaker_fleet.plan.errors import PlanFormatError


class JsonObject:
    """One JSON object and where it sits in the document, for error messages that name the field."""

    def __init__(self, data: object, path: str) -> None:
        if not isinstance(data, Mapping):
            raise PlanFormatError(f"{path or '<root>'}: expected an object, got {type(data).__name__}")
        self.data: Mapping[str, Any] = data
        self.path = path

    def _where(self, name: str) -> str:
        return f"{self.path}.{name}" if self.path else name

    def _get(self, name: str) -> Any:
        if name not in self.data:
            raise PlanFormatError(f"{self._where(name)}: required field is missing")
        return self.data[name]

    def text(self, name: str) -> str:
        value = self._get(name)
        if not isinstance(value, str):
            raise PlanFormatError(f"{self._where(name)}: expected a string, got {value!r}")
        return value

    def optional_text(self, name: str) -> str | None:
        value = self.data.get(name)
        if value is not None and not isinstance(value, str):
            raise PlanFormatError(f"{self._where(name)}: expected a string or null, got {value!r}")
        return value

    def integer(self, name: str) -> int:
        value = self._get(name)
        if isinstance(value, bool) or not isinstance(value, int):
            raise PlanFormatError(f"{self._where(name)}: expected an integer, got {value!r}")
        return value

    def flag(self, name: str) -> bool:
        value = self._get(name)
        if not isinstance(value, bool):
            raise PlanFormatError(f"{self._where(name)}: expected true or false, got {value!r}")
        return value

    def choice(self, name: str, allowed: Sequence[str]) -> str:
        value = self.text(name)
        if value not in allowed:
            raise PlanFormatError(f"{self._where(name)}: expected one of {', '.join(allowed)}, got {value!r}")
        return value

    def texts(self, name: str) -> tuple[str, ...]:
        values = self.items(name)
        if not all(isinstance(item, str) for item in values):
            raise PlanFormatError(f"{self._where(name)}: expected a list of strings")
        return tuple(values)

    def items(self, name: str) -> list[Any]:
        value = self._get(name)
        if not isinstance(value, list):
            raise PlanFormatError(f"{self._where(name)}: expected a list, got {type(value).__name__}")
        return value

    def objects(self, name: str) -> list[JsonObject]:
        where = self._where(name)
        return [JsonObject(item, f"{where}[{index}]") for index, item in enumerate(self.items(name))]

    def child(self, name: str) -> JsonObject:
        return JsonObject(self._get(name), self._where(name))
