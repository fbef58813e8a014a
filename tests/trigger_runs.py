"""Running city triggers the way one triggerer does, for the tests that drive them against the simulator."""

from __future__ import annotations

import asyncio
import dataclasses
from pathlib import Path
from typing import Any

from sagemaker_fleet.triggers.defaults import CITY_TRIGGER_GROUPS
from sagemaker_fleet.triggers.session import RunSession


def city_trigger(spec_path: Path | str, city: str, **fields: Any) -> Any:
    """A ``FleetCityTrigger`` for ``city``, each of ``fields`` (``run_key=``, ``plan_task_id=``, ``poll_interval=``,
    …) put into its settings group by name; the AWS connection's are passed as they are."""
    from sagemaker_fleet.triggers.city import FleetCityTrigger

    groups: dict[str, dict[str, Any]] = {name: {} for name in CITY_TRIGGER_GROUPS}
    owner = {f.name: name for name, group in CITY_TRIGGER_GROUPS.items() for f in dataclasses.fields(group)}
    connection = {}
    for key, value in fields.items():
        if key in owner:
            groups[owner[key]][key] = value
        else:
            connection[key] = value
    return FleetCityTrigger(
        spec_path=str(spec_path),
        city=city,
        **{name: CITY_TRIGGER_GROUPS[name](**values) for name, values in groups.items()},
        **connection,
    )


def run_triggers(triggers: list[Any], timeout: float = 180.0) -> list:
    """Each trigger's first event, all in one event loop (one triggerer), then the run pollers' last sweeps: a
    triggerer's loop goes on after the last event, so the pollers finish their sweep and stop."""

    async def first(t: Any) -> Any:
        async for event in t.run():
            return event
        raise AssertionError("the trigger ended without an event")

    async def all_of() -> list:
        events = await asyncio.wait_for(asyncio.gather(*(first(t) for t in triggers)), timeout)
        loop = asyncio.get_running_loop()
        pending = [p._task for p in RunSession._registry.values() if p._task is not None and p._loop is loop]
        await asyncio.wait_for(asyncio.gather(*pending), timeout)
        return events

    return asyncio.run(all_of())


def publish_plan(monkeypatch: Any, plan: Any) -> None:
    """Hand ``plan`` to every city trigger in place of the plan task's XCom read."""
    from sagemaker_fleet.triggers.city import FleetCityTrigger

    async def plan_json(self: Any) -> Any:
        return plan.to_json()

    monkeypatch.setattr(FleetCityTrigger, "_plan_json", plan_json)
