"""The driver's own timeline: what Airflow would do at a given simulated time (create a job, poll, retry).

The engine keeps its timeline (job phases, pool expiry); this one holds the orchestrator's actions. The run loop
(:mod:`.run`) interleaves the two, engine events first at equal times, so an action sees the state of its instant.
"""

from __future__ import annotations

import heapq
from collections.abc import Callable

Action = Callable[[], None]


class Timeline:
    def __init__(self) -> None:
        self._heap: list[tuple[float, int, Action]] = []
        self._seq = 0

    def __len__(self) -> int:
        return len(self._heap)

    def at(self, when: float, action: Action) -> None:
        """Run ``action`` at simulated time ``when`` (actions due at one instant run in the order given)."""
        self._seq += 1
        heapq.heappush(self._heap, (when, self._seq, action))

    def next_time(self) -> float | None:
        return self._heap[0][0] if self._heap else None

    def run_due(self, until: float) -> int:
        """Run every action due at or before ``until``, including those the actions schedule; returns how many."""
        ran = 0
        while self._heap and self._heap[0][0] <= until:
            _, _, action = heapq.heappop(self._heap)
            action()
            ran += 1
        return ran
