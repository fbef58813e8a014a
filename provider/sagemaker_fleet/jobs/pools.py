"""Finding an Available warm pool for a matching key (pure: the caller supplies descriptions)."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from sagemaker_fleet.jobs.keys import WarmPoolKey, warm_pool_key


def matching_pool(key: WarmPoolKey, descriptions: Iterable[Mapping[str, Any]]) -> str | None:
    """The name of a job whose Available warm pool the key would reuse, if any."""
    for description in descriptions:
        pool = description.get("WarmPoolStatus") or {}
        if pool.get("Status") == "Available" and warm_pool_key(description) == key:
            return str(description["TrainingJobName"])
    return None
