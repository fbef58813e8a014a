"""Deterministic random streams: each draw is keyed by the seed and what it is for, never by call order.

Keying a stream by ``(seed, job name, purpose, attempt)`` means a job gets the same work, start-up and spot fate
whatever else runs beside it, so two strategies simulated with one seed differ only by their decisions.
"""

from __future__ import annotations

import random


def stream(seed: int, *parts: object) -> random.Random:
    """A generator for one purpose; string seeds go through SHA-512, so streams are stable across processes."""
    return random.Random("|".join([str(seed), *map(str, parts)]))


def uniform(seed: int, bounds: tuple[float, float], *parts: object) -> float:
    low, high = bounds
    return stream(seed, *parts).uniform(low, high)
