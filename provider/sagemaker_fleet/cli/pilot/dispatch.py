"""The pilot's training: the three stores run as a fleet DAG's training tasks run them in the triggerer — each a
:class:`~sagemaker_fleet.dispatch.city_run.CityRun` over the run's session
(:class:`~sagemaker_fleet.triggers.session.RunSession`, :class:`~sagemaker_fleet.triggers.city_io.SessionCityIO`),
the run's dispatch built from its plan (:func:`~sagemaker_fleet.dispatch.dispatch_from_plan`). The same
turns, keep-alives, hand-offs and pool ends as in production, in one asyncio loop of this process.

One difference, on purpose: the pilot counts its own jobs only (``account=False``: no look at other teams' jobs
and no account board), so it reads and describes nothing but its own jobs, and its policy can say so.
"""

from __future__ import annotations

import asyncio
import sys
import time
from typing import TYPE_CHECKING, Any

from sagemaker_fleet.dispatch import Cadence, dispatch_from_plan
from sagemaker_fleet.dispatch.city_run import CityEnd, CityRun
from sagemaker_fleet.fleetspec.names import run_name_contains
from sagemaker_fleet.triggers.city_io import SessionCityIO
from sagemaker_fleet.triggers.connection import RunConnection
from sagemaker_fleet.triggers.session import RunSession, SessionSetup

if TYPE_CHECKING:
    from sagemaker_fleet.cli.pilot.fleet import PilotFleet
    from sagemaker_fleet.hooks.fleet import SageMakerFleetHook


class PilotLog:
    """A city's log (:class:`~sagemaker_fleet.dispatch.city_run.CityLog`): one timed line each on stdout."""

    def __init__(self, began: float | None = None) -> None:
        self.began = time.monotonic() if began is None else began

    def _line(self, msg: str, args: tuple[Any, ...]) -> None:
        text = msg % args if args else msg
        print(f"  [{time.monotonic() - self.began:7.1f} s] {text}", file=sys.stdout, flush=True)

    def info(self, msg: str, /, *args: Any) -> None:
        self._line(msg, args)

    def warning(self, msg: str, /, *args: Any) -> None:
        self._line(msg, args)


async def train_stores(fleet: PilotFleet, hook: SageMakerFleetHook, log: PilotLog) -> dict[str, CityEnd]:
    """Run every store to its end through the fleet's dispatch; each store's end."""
    settings, spec = fleet.settings, fleet.spec
    cadence = Cadence(settings.poll_interval)
    sweeps = dispatch_from_plan(fleet.plan, spec, settings.run_key, cadence, account=False)
    connection = RunConnection(hook, run_name_contains(settings.run_key), settings.poll_interval)
    session = RunSession(connection, SessionSetup(sweeps))
    try:
        tracker = await session.first_listing()
        runs = [
            CityRun(
                spec,
                spec.city(store),
                settings.run_key,
                SessionCityIO(session, store, log),
                log,
                tracker,
                cadence=cadence,
            )
            for store in fleet.stores
        ]
        ends = await asyncio.gather(*(run.train() for run in runs))
        await session.finish()  # the pool ends the run's last sweeps hand out
    finally:
        await session.close()  # a loop still running (Ctrl-C, an error) is stopped
    return dict(zip(fleet.stores, ends, strict=True))
