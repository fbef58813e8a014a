"""City runs in virtual time: the async code the triggerer runs (:class:`~sagemaker_fleet.dispatch.city_run.CityRun`),
stepped by the driver's timeline instead of an event loop.

A city's coroutine awaits the simulator's answers as :class:`Later` values; the driver sets each from its timeline at
the simulated time it happens (a turn, a job's end seen by a sweep, the end of a back-off), and the coroutine goes
on from there at that time. Nothing waits in real time.
"""

from __future__ import annotations

from collections.abc import Callable, Coroutine, Generator
from typing import Any, Generic, TypeVar, cast

from sagemaker_fleet.simulate.errors import SimulationError

T = TypeVar("T")


class Later(Generic[T]):
    """A value the driver sets at a simulated time; awaiting it suspends the city's coroutine until then. Set it
    from a timeline action, never from the coroutine that awaits it."""

    def __init__(self) -> None:
        self._done = False
        self._value: T | None = None
        self._resume: Callable[[], None] | None = None

    def set(self, value: T) -> None:
        if self._done:
            raise SimulationError("a simulated answer was given twice")
        self._done, self._value = True, value
        resume, self._resume = self._resume, None
        if resume is not None:
            resume()

    def __await__(self) -> Generator[Any, None, T]:
        if not self._done:
            yield self
        return cast("T", self._value)


def run_coroutine(coroutine: Coroutine[Any, Any, T], done: Callable[[T], None]) -> None:
    """Run ``coroutine`` until it awaits a :class:`Later` that is not set yet; it goes on when that is set, and
    ``done`` gets its result once it returns. Its exceptions reach whoever set the value it was waiting on (the
    timeline action: the simulation stops with them)."""

    def step() -> None:
        try:
            awaited = coroutine.send(None)
        except StopIteration as stop:
            done(stop.value)
            return
        if not isinstance(awaited, Later):
            coroutine.close()
            raise SimulationError(f"a city's run waited on {awaited!r}, which the simulator does not provide")
        awaited._resume = step

    step()
