"""A city's async run in virtual time: it goes on when the driver's timeline sets what it awaits."""

from __future__ import annotations

import pytest

from sagemaker_fleet.simulate.coroutines import Later, run_coroutine
from sagemaker_fleet.simulate.errors import SimulationError
from sagemaker_fleet.simulate.timeline import Timeline


def test_a_coroutine_goes_on_at_the_time_its_answer_is_set() -> None:
    timeline = Timeline()
    seen: list[tuple[float, str]] = []
    now = [0.0]

    async def city() -> str:
        first: Later[str] = Later()
        timeline.at(10.0, lambda: first.set("turn"))
        value = await first
        seen.append((now[0], value))
        ready: Later[str] = Later()
        ready.set("at once")  # set before it is awaited: no wait
        value = await ready
        seen.append((now[0], value))
        return "done"

    ended: list[str] = []
    run_coroutine(city(), ended.append)
    assert seen == []
    assert ended == []
    while (when := timeline.next_time()) is not None:
        now[0] = when
        timeline.run_due(when)
    assert seen == [(10.0, "turn"), (10.0, "at once")]
    assert ended == ["done"]


def test_a_coroutine_that_awaits_anything_else_stops_the_simulation() -> None:
    import asyncio

    async def city() -> None:
        await asyncio.sleep(0)

    with pytest.raises(SimulationError, match="does not provide"):
        run_coroutine(city(), lambda _: None)


def test_an_answer_is_given_once() -> None:
    later: Later[int] = Later()
    later.set(1)
    with pytest.raises(SimulationError, match="twice"):
        later.set(2)
