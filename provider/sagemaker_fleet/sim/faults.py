"""Fault injection call by call: a seeded share of API calls answered with ThrottlingException ("Rate exceeded"),
or with InternalFailure before or after the call takes effect."""

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


class ApiErrors:
    """Decides, call by call, whether to answer InternalFailure; its own seeded stream, apart from throttling's."""

    def __init__(self, seed: int) -> None:
        self._rng = stream(seed, "api-errors")

    def should_fail(self, operation: str, share: float, operations: frozenset[str]) -> bool:
        if share <= 0 or (operations and operation not in operations):
            return False
        return share >= 1 or self._rng.random() < share
