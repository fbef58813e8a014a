"""Simulated time: one :class:`Clock` protocol, a wall clock that runs ``speed`` times faster, a virtual clock.

Simulated time is expressed as epoch seconds (floats), so it can be returned as-is in JSON-protocol timestamps.
The engine never sleeps: it reads ``now()`` and catches up on every call, so the clock decides how fast time runs.
"""

from __future__ import annotations

import threading
import time
from typing import Protocol, runtime_checkable

#: 2026-01-01T00:00:00Z: where a :class:`VirtualClock` starts unless told otherwise (timestamps look plausible).
DEFAULT_VIRTUAL_EPOCH = 1_767_225_600.0


@runtime_checkable
class Clock(Protocol):
    """Anything that tells the simulated time."""

    def now(self) -> float: ...


@runtime_checkable
class AdjustableClock(Clock, Protocol):
    """A clock an administrator or a driver may move forward."""

    def advance(self, seconds: float) -> float: ...


class WallClock:
    """Simulated seconds advance ``speed`` × the wall clock, starting at ``epoch`` (default: the current time).

    ``advance`` jumps ahead (admin fault injection); ``set_speed`` changes the rate without a jump.
    """

    def __init__(self, speed: float = 1.0, epoch: float | None = None) -> None:
        if speed <= 0:
            raise ValueError(f"speed must be > 0, got {speed}")
        self._lock = threading.Lock()
        self._speed = float(speed)
        self._wall0 = time.monotonic()
        self._sim0 = time.time() if epoch is None else float(epoch)

    @property
    def speed(self) -> float:
        return self._speed

    def now(self) -> float:
        with self._lock:
            return self._sim0 + (time.monotonic() - self._wall0) * self._speed

    def advance(self, seconds: float) -> float:
        if seconds < 0:
            raise ValueError("the simulated clock never goes back")
        with self._lock:
            self._sim0 += seconds
        return self.now()

    def set_speed(self, speed: float) -> None:
        if speed <= 0:
            raise ValueError(f"speed must be > 0, got {speed}")
        with self._lock:
            wall = time.monotonic()
            self._sim0 += (wall - self._wall0) * self._speed
            self._wall0 = wall
            self._speed = float(speed)


class VirtualClock:
    """Time that moves only when told to: for unit tests and the virtual-time ``simulate`` driver."""

    def __init__(self, start: float = DEFAULT_VIRTUAL_EPOCH) -> None:
        self._now = float(start)

    def now(self) -> float:
        return self._now

    def advance(self, seconds: float) -> float:
        if seconds < 0:
            raise ValueError("the simulated clock never goes back")
        self._now += seconds
        return self._now

    def set(self, when: float) -> float:
        """Move to ``when`` (never backwards)."""
        if when < self._now:
            raise ValueError(f"the simulated clock never goes back ({when} < {self._now})")
        self._now = float(when)
        return self._now
