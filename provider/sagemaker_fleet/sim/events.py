"""The engine's timeline: a heap of timed events, each tagged with the token of what scheduled it.

Cancelling is lazy: an event whose token no longer matches its job's (or pool's) current token is skipped when it
comes up, so an interruption or a stop never has to search the heap.
"""

from __future__ import annotations

import heapq
from collections.abc import Callable
from enum import Enum
from typing import NamedTuple


class EventKind(Enum):
    PHASE_END = "phase-end"  # the job's current secondary status is over
    CHECKPOINT = "checkpoint"  # the training container writes a checkpoint
    SPOT_INTERRUPTION = "spot-interruption"
    ALGORITHM_FAILURE = "algorithm-failure"
    MAX_RUNTIME = "max-runtime"
    MAX_WAIT = "max-wait"
    STOPPED = "stopped"  # the Stopping phase is over
    POOL_EXPIRY = "pool-expiry"


class Event(NamedTuple):
    time: float
    seq: int
    kind: EventKind
    target: str  # a job name, or a pool id for POOL_EXPIRY
    token: int


class EventQueue:
    def __init__(self) -> None:
        self._heap: list[Event] = []
        self._seq = 0

    def __len__(self) -> int:
        return len(self._heap)

    def schedule(self, time: float, kind: EventKind, target: str, token: int) -> None:
        self._seq += 1
        heapq.heappush(self._heap, Event(time, self._seq, kind, target, token))

    def next_time(self) -> float | None:
        return self._heap[0].time if self._heap else None

    def drop_stale_head(self, is_stale: Callable[[Event], bool]) -> None:
        """Discard cancelled events at the front, so ``next_time`` tells when something will really happen."""
        while self._heap and is_stale(self._heap[0]):
            heapq.heappop(self._heap)

    def pop_due(self, until: float) -> Event | None:
        """The earliest event at or before ``until``, removed from the queue; None when there is none."""
        if self._heap and self._heap[0].time <= until:
            return heapq.heappop(self._heap)
        return None
