"""Per-operation API call counters: how a strategy loads the control plane (compared across strategies)."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field


@dataclass
class ApiCounters:
    calls: Counter[str] = field(default_factory=Counter)  # every call received, throttled ones included
    throttled: Counter[str] = field(default_factory=Counter)
    errors: Counter[str] = field(default_factory=Counter)  # "Operation:ErrorCode"

    def to_json(self) -> dict[str, dict[str, int]]:
        return {
            "calls": dict(sorted(self.calls.items())),
            "throttled": dict(sorted(self.throttled.items())),
            "errors": dict(sorted(self.errors.items())),
        }
