"""WaitLineBudget: how many "still waiting" task-log lines a run's waiting cities may write (a token bucket).

The triggerer writes every trigger's log lines from its event loop through one pipe to its supervisor; in Airflow
3.3 that pipe filling up while the supervisor sends a large batch of new triggers deadlocks the triggerer (seen
with 1,000 cities, whose wait lines all came due together). A city whose line finds no room tries again later.
"""

from __future__ import annotations

#: Lines per second the run's waiting cities may write, and at most at once.
WAIT_LINES_PER_SECOND = 1.0
WAIT_LINES_BURST = 10.0


class WaitLineBudget:
    """A token bucket of :data:`WAIT_LINES_BURST` lines refilled at :data:`WAIT_LINES_PER_SECOND`."""

    def __init__(self) -> None:
        self.tokens = WAIT_LINES_BURST
        self.at: float | None = None

    def take(self, now: float) -> bool:
        """Whether a line may be written at ``now`` (seconds, a monotonic clock); takes its token if so."""
        if self.at is not None:
            self.tokens = min(WAIT_LINES_BURST, self.tokens + (now - self.at) * WAIT_LINES_PER_SECOND)
        self.at = now
        if self.tokens < 1.0:
            return False
        self.tokens -= 1.0
        return True
