"""Throttling injection: a seeded share of API calls answered with ThrottlingException ("Rate exceeded")."""

from __future__ import annotations

from sagemaker_fleet.sim.seeding import stream


class Throttle:
    """Decides, call by call, whether to throttle; the sequence of decisions is fixed by the seed."""

    def __init__(self, seed: int) -> None:
        self._rng = stream(seed, "throttle")

    def should_throttle(self, operation: str, share: float, operations: frozenset[str]) -> bool:
        if share <= 0 or (operations and operation not in operations):
            return False
        return share >= 1 or self._rng.random() < share
