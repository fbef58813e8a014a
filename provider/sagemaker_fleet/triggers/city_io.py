"""SessionCityIO: a city's I/O in the triggerer (:class:`~sagemaker_fleet.dispatch.city_run.CityIO`) — the run's
session admits it, creates, describes and reads tags with the run's client (sent again through an outage), and
watches its jobs; its waits say why in the task log, within the run's budget of lines."""

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
    from sagemaker_fleet.triggers.session import RunSession

#: Seconds between the task log's "still waiting" lines.
WAIT_LOG_EVERY = 300.0
#: A city that waits this long for its turn says why (not at once: hundreds of cities wait at a run's start).
WAIT_LOG_FIRST = 30.0


class SessionCityIO:
    """One city's I/O through its run's :class:`RunSession`; ``log``: its trigger's task log."""

    def __init__(self, session: RunSession, city: str, log: Any) -> None:
        self.session = session
        self.city = city
        self.log = log

    def now(self) -> float:
        return self.session.now()

    def jitter(self, job_name: str, retries: int) -> float:
        return random.uniform(0.5, 1.5)

    async def sleep(self, seconds: float) -> None:
        await asyncio.sleep(seconds)

    async def wait_turn(self, wait: Wait) -> None:
        """Wait for the turn, saying why in the task log (after half a minute, then every few minutes; the run's
        waiting lines share a budget, :meth:`RunSession.take_wait_line`, so hundreds of cities never write at
        once)."""
        session = self.session
        turn = asyncio.ensure_future(session.wait_turn(wait))
        try:
            await asyncio.wait({turn}, timeout=WAIT_LOG_FIRST)
            while not turn.done():
                if session.take_wait_line():
                    self.log.info("%s %s", self.city, session.waiting_reason(self.city))
                    timeout = WAIT_LOG_EVERY
                else:
                    timeout = random.uniform(WAIT_LOG_FIRST / 2, WAIT_LOG_FIRST * 2)
                await asyncio.wait({turn}, timeout=timeout)
            turn.result()
        finally:
            if not turn.done():
                turn.cancel()

    def release(self, city: str) -> None:
        self.session.release(city)

    async def create(self, request: CreateTrainingJobRequestTypeDef) -> Attachment | None:
        session = self.session
        try:
            return await session.call(
                f"creating {request['TrainingJobName']}", session.hook.acreate_or_attach, request
            )
        except CapacityUnavailableError:
            return None

    async def watch(self, job: Description, created_after: dt.datetime | None) -> Description:
        name = str(job["TrainingJobName"])
        return await watch_until_terminal(
            self.session,
            name,
            created_after,
            self.log,
            deadline_seconds=watch_deadline(job, self.session.cadence.watch_margin_seconds),
        )

    async def describe(self, job_name: str) -> Description | None:
        return await self.session.call(f"describing {job_name}", self.session.hook.adescribe, job_name)

    async def tags(self, arn: str) -> dict[str, str]:
        return await self.session.call(f"reading the tags of {arn}", self.session.hook.atags, arn)
