"""A city's ``job:`` template as the resolved spec carries it: the fleet's, ``defaults``' and the city's layers
merged, less the fields lifted into the city, placeholders not yet filled (``{run_key}`` is known per run).

Kept as canonical JSON text: frozen, hashable and cheap to pickle, and cities sharing one template share one value.
"""

from __future__ import annotations

import functools
import json
from dataclasses import dataclass
from typing import Any

from sagemaker_fleet.fleetspec.placeholders import render_value, values_for


@dataclass(frozen=True)
class JobTemplate:
    """``text``: the merged template as JSON (AWS's field names, the order written)."""

    text: str

    @classmethod
    def of(cls, value: dict[str, Any]) -> JobTemplate:
        return cls(json.dumps(value, separators=(",", ":"), ensure_ascii=False))

    @functools.cached_property
    def value(self) -> dict[str, Any]:
        loaded: dict[str, Any] = json.loads(self.text)
        return loaded

    def render(self, fleet: str, city: str, run_key: str) -> dict[str, Any]:
        """The template with ``{city}``, ``{fleet}`` and ``{run_key}`` filled (fresh containers, never shared)."""
        rendered = render_value(self.value, values_for(fleet, city, run_key))
        assert isinstance(rendered, dict)
        return rendered

    @property
    def session_tag_chaining(self) -> bool:
        """``SessionChainingConfig.EnableSessionTagChaining``: a warm-pool matching criterion."""
        config = self.value.get("SessionChainingConfig") or {}
        return bool(config.get("EnableSessionTagChaining", False))

    @property
    def metric_names(self) -> tuple[str, ...]:
        """The names of ``AlgorithmSpecification.MetricDefinitions``, in their order."""
        algorithm = self.value.get("AlgorithmSpecification") or {}
        return tuple(str(d["Name"]) for d in algorithm.get("MetricDefinitions") or () if "Name" in d)
