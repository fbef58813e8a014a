"""RunSweepIO: the triggerer's I/O of a run's sweeps (:class:`~sagemaker_fleet.dispatch.shell.SweepIO`), which
:func:`~sagemaker_fleet.dispatch.sweep.sweep_once` drives for the run's session
(:mod:`sagemaker_fleet.triggers.session`): listings, describes and keep-alive changes with the run's shared client
(asyncio, aiobotocore), the account's board on S3, and the hand-outs to the session's waiting cities and watchers.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING, Any, Unpack

from botocore.exceptions import ClientError

from sagemaker_fleet.dispatch.shell import DENIED, Answer
from sagemaker_fleet.jobs.errors import error_code
from sagemaker_fleet.jobs.statuses import ACCESS_DENIED_CODES, KEEP_ALIVE_REFUSALS

if TYPE_CHECKING:
    from sagemaker_fleet.dispatch.shell import Listed, PoolEnd
    from sagemaker_fleet.dispatch.state import Wait
    from sagemaker_fleet.dispatch.waiters import Waiters
    from sagemaker_fleet.jobs.paging import JobFilters
    from sagemaker_fleet.triggers.connection import RunConnection
    from sagemaker_fleet.triggers.watch import JobWatchers

__all__ = ["DESCRIBE_CONCURRENCY", "RunSweepIO", "admit"]

log = logging.getLogger(__name__)

#: DescribeTrainingJob calls in flight at once when many jobs end in one sweep.
DESCRIBE_CONCURRENCY = 8


def admit(turns: Sequence[asyncio.Future[None]]) -> None:
    """Wake the waiting cities whose turn came (one already failed or cancelled stays so)."""
    for turn in turns:
        if not turn.done():
            turn.set_result(None)


class RunSweepIO:
    """The sweeps' calls through ``connection``, and their hand-outs to ``waiters`` and ``watchers``;
    ``listed()`` is called by each listing that fed the run's tracker (the session's first listing)."""

    def __init__(
        self,
        connection: RunConnection,
        waiters: Waiters[asyncio.Future[None]],
        watchers: JobWatchers,
        listed: Callable[[], None],
    ) -> None:
        self.connection = connection
        self.hook = connection.hook
        self.waiters = waiters
        self.watchers = watchers
        self._listed = listed
        self._denied_warned = False

    def now(self) -> float:
        """The dispatch clock (the event loop's): admissions, waits and log budgets are counted on it."""
        return asyncio.get_running_loop().time()

    def wall(self) -> float:
        """The board's clock (:meth:`SweepIO.wall`): wall-clock seconds."""
        return time.time()

    def waiting(self) -> list[Wait]:
        return self.waiters.waiting()

    async def list_jobs(self, *, account: bool, **filters: Unpack[JobFilters]) -> list[Mapping[str, Any]]:
        async with self.connection.client() as client:
            name_contains = "" if account else self.connection.name_contains
            return [summary async for summary in self.hook.alist_jobs(client, name_contains, **filters)]

    async def describe(self, names: Sequence[str], *, foreign: bool) -> list[Answer]:
        """Describe with the run's client, a few at a time (a burst of jobs ending together must not open a client
        per job nor stall the loop). Another run's job the credentials may not describe (a policy scoped to the
        fleet's jobs) is :data:`DENIED`, with one warning."""
        limit = asyncio.Semaphore(DESCRIBE_CONCURRENCY)

        async def one(name: str) -> Answer:
            async with limit, self.connection.client() as client:
                try:
                    return await self.hook.adescribe(client, name)
                except ClientError as exc:
                    if not foreign or error_code(exc) not in ACCESS_DENIED_CODES:
                        raise
                    self._warn_denied(exc)
                    return DENIED

        return list(await asyncio.gather(*(one(name) for name in names), return_exceptions=True))

    def _warn_denied(self, exc: ClientError) -> None:
        if not self._denied_warned:
            self._denied_warned = True
            log.warning(
                "%s: may not describe other runs' training jobs (%s): their capacity counts only as their runs "
                "post it on the account's board (fleets with sharing), and a city may meet ResourceLimitExceeded "
                "and retry; to count a trusted fleet's jobs, allow sagemaker:DescribeTrainingJob on its jobs "
                "(sagemaker-fleet iam --describe-fleet NAME; docs/security.md), never on training-job/*, which "
                "reads every team's environment",
                self.connection.name_contains,
                exc,
            )

    async def end_pool(self, end: PoolEnd) -> None:
        """Keep-alive 0 on a running job (it ends without a pool, so not one idle second after the run's last job)
        or on an idle pool no city of its group will take over: either would bill until expiry."""
        name, running = end.job_name, end.running
        try:
            async with self.connection.client() as client:
                await self.hook.aupdate_keep_alive(client, name, 0)
        except ClientError as exc:
            if error_code(exc) not in KEEP_ALIVE_REFUSALS:
                raise
            # a running job that ended meanwhile, or whose keep-alive AWS does not change while it runs: it keeps
            # its pool, which surplus_pools ends once Available; an idle pool that expired or was taken meanwhile:
            # nothing to end
            log.info("%s: %s: %s", name, "keep-alive not updated" if running else "warm pool not ended", exc)
            return
        group = f"group {end.group}" if end.group else "its group"
        if running:
            log.info("%s: keep-alive set to 0 (no city of %s is left to take its pool over)", name, group)
        else:
            log.info("%s: warm pool ended (no city of %s is left to take it over)", name, group)

    async def read_board(self, bucket: str, prefix: str, modified_after: float) -> list[object] | None:
        return await self.connection.board.records(bucket, prefix, modified_after)

    async def post_board(self, bucket: str, key: str, record: Mapping[str, Any]) -> bool:
        return await self.connection.board.put(bucket, key, record)

    def hand_out(self, listed: Listed) -> None:
        """The admitted cities' turns (the hand-off), and the running jobs' summaries to their watchers."""
        self._listed()
        admit(self.waiters.admitted(listed.admitted))
        for name, summary in listed.running.items():
            self.watchers.put(name, summary)

    def deliver(self, name: str, description: Mapping[str, Any] | None) -> None:
        self.watchers.put(name, description or {"error": f"training job {name} does not exist"})
