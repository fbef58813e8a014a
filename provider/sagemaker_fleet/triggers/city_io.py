"""PollerCityIO: a city's I/O in the triggerer (:class:`~sagemaker_fleet.dispatch.city_run.CityIO`) — the run's
shared poller admits it, creates, describes and reads tags with the poller's client (sent again through an outage),
and watches its jobs; its waits say why in the task log, within the run's budget of lines."""

from __future__ import annotations

import asyncio
import random
from typing import TYPE_CHECKING, Any

from sagemaker_fleet.hooks.fleet import CapacityUnavailableError
from sagemaker_fleet.triggers.watch import watch_deadline, watch_until_terminal

if TYPE_CHECKING:
    import datetime as dt

    from mypy_boto3_sagemaker.type_defs import CreateTrainingJobRequestTypeDef

    from sagemaker_fleet.dispatch.state import Wait
    from sagemaker_fleet.jobs.attachment import Attachment
    from sagemaker_fleet.jobs.record import Description
    from sagemaker_fleet.triggers.poller import FleetPoller

#: Seconds between the task log's "still waiting" lines.
WAIT_LOG_EVERY = 300.0
#: A city that waits this long for its turn says why (not at once: hundreds of cities wait at a run's start).
WAIT_LOG_FIRST = 30.0


class PollerCityIO:
    """One city's I/O through its run's :class:`FleetPoller`; ``log``: its trigger's task log."""

    def __init__(self, poller: FleetPoller, city: str, log: Any) -> None:
        self.poller = poller
        self.city = city
        self.log = log

    def now(self) -> float:
        return self.poller.now()

    def jitter(self, job_name: str, retries: int) -> float:
        return random.uniform(0.5, 1.5)

    async def sleep(self, seconds: float) -> None:
        await asyncio.sleep(seconds)

    async def wait_turn(self, wait: Wait) -> None:
        """Wait for the turn, saying why in the task log (after half a minute, then every few minutes; the run's
        waiting lines share a budget, :meth:`FleetPoller.take_wait_line`, so hundreds of cities never write at
        once)."""
        poller = self.poller
        turn = asyncio.ensure_future(poller.wait_turn(wait))
        try:
            await asyncio.wait({turn}, timeout=WAIT_LOG_FIRST)
            while not turn.done():
                if poller.take_wait_line():
                    self.log.info("%s %s", self.city, poller.waiting_reason(self.city))
                    timeout = WAIT_LOG_EVERY
                else:
                    timeout = random.uniform(WAIT_LOG_FIRST / 2, WAIT_LOG_FIRST * 2)
                await asyncio.wait({turn}, timeout=timeout)
            turn.result()
        finally:
            if not turn.done():
                turn.cancel()

    def release(self, city: str) -> None:
        self.poller.release(city)

    async def create(self, request: CreateTrainingJobRequestTypeDef) -> Attachment | None:
        poller = self.poller
        try:
            return await poller.call(
                f"creating {request['TrainingJobName']}", poller.hook.acreate_or_attach, request
            )
        except CapacityUnavailableError:
            return None

    async def watch(self, job: Description, created_after: dt.datetime | None) -> Description:
        name = str(job["TrainingJobName"])
        return await watch_until_terminal(
            self.poller,
            name,
            created_after,
            self.log,
            deadline_seconds=watch_deadline(job, self.poller.cadence.watch_margin_seconds),
        )

    async def describe(self, job_name: str) -> Description | None:
        return await self.poller.call(f"describing {job_name}", self.poller.hook.adescribe, job_name)

    async def tags(self, arn: str) -> dict[str, str]:
        return await self.poller.call(f"reading the tags of {arn}", self.poller.hook.atags, arn)
