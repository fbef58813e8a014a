"""Field paths of a spec (``cities[3].spot.max_wait_seconds``): how they are written and walked up.

Every error names one, so the writer and the walker live together: a key that holds user data (an instance type,
a variable name) is written in brackets, and walking up from any path, however odd its keys, always ends.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

#: Fields whose keys are user data (instance types, variable names, tag keys): written ``quotas[ml.m5.xlarge]``; the
#: maps of a ``job:`` template too (``job.HyperParameters[learning_rate]``).
KEYED_FIELDS = frozenset(
    {
        "quotas",
        "prices",
        "hyperparameters",
        "environment",
        "tags",
        "HyperParameters",
        "Environment",
        "ProfilingParameters",
        "HookParameters",
        "CollectionParameters",
        "RuleParameters",
    }
)

#: The last segment of a field path (``.key``, ``[index]`` or a leading top-level key): strip it to get the parent.
_PARENT_RE = re.compile(r"(\.[^.\[]+|\[[^\]]*\]|^[^.\[]+)$")


def join(path: str, key: str) -> str:
    """The path of ``key`` inside ``path``."""
    if "." in key or "[" in key or path.rsplit(".", 1)[-1] in KEYED_FIELDS:
        return f"{path}[{key}]"
    return f"{path}.{key}" if path else key


def parent(path: str) -> str:
    """The path holding ``path`` ("" for a top-level key). A path the pattern cannot split (a key with a ``]`` in
    it, say) has no parent but the root: walking up must end whatever the user wrote."""
    up = _PARENT_RE.sub("", path, count=1)
    return up if up != path else ""


def lineage(path: str) -> Iterator[str]:
    """``path`` and every path above it, innermost first, without the root."""
    while path:
        yield path
        path = parent(path)
