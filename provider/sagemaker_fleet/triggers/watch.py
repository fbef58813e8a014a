"""Waiting for a training job through a run's poller: the watchers' queues, and the wait for one job's end.

Each trigger that watches a job gets a queue of its updates (two triggers of one job in one triggerer each get
every update): the job's ListTrainingJobs summary while it runs, its DescribeTrainingJob response once it has ended
(so a terminal update is always a full description), or ``{"error": ...}`` when the poller gives up.
"""

from __future__ import annotations

import asyncio
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Protocol

from sagemaker_fleet.errors import SageMakerFleetError
from sagemaker_fleet.jobs.statuses import TERMINAL_STATUSES

if TYPE_CHECKING:
    import datetime as dt

#: Secondary statuses worth a warning in the task log while a job runs.
NOTABLE = frozenset({"Interrupted", "Restarting", "MaxWaitTimeExceeded", "Stopping"})

Update = Mapping[str, Any]


class JobWatchError(SageMakerFleetError, RuntimeError):
    """The poller gave up on a watched job (it vanished, or polling failed again and again)."""


class JobWatchers:
    """The queues of every watched job of one poller, by job name."""

    def __init__(self) -> None:
        self.queues: dict[str, list[asyncio.Queue[Update]]] = {}

    def add(self, job_name: str) -> asyncio.Queue[Update]:
        queue: asyncio.Queue[Update] = asyncio.Queue()
        self.queues.setdefault(job_name, []).append(queue)
        return queue

    def remove(self, job_name: str, queue: asyncio.Queue[Update] | None = None) -> bool:
        """Stop ``queue``'s watch of ``job_name`` (every watch of it without ``queue``); whether none is left."""
        queues = [q for q in self.queues.get(job_name, ()) if queue is not None and q is not queue]
        if queues:
            self.queues[job_name] = queues
            return False
        self.queues.pop(job_name, None)
        return True

    def put(self, job_name: str, update: Update) -> None:
        for queue in self.queues.get(job_name, ()):
            queue.put_nowait(update)

    def fail_all(self, reason: str) -> None:
        for job_name in self.queues:
            self.put(job_name, {"error": reason})


class Watched(Protocol):
    """What :func:`watch_until_terminal` needs of a poller."""

    def watch(self, job_name: str, created_after: dt.datetime | None = None) -> asyncio.Queue[Update]: ...

    def unwatch(self, job_name: str, queue: asyncio.Queue[Update] | None = None) -> None: ...


def watch_deadline(job: Mapping[str, Any], margin: float) -> float | None:
    """Seconds to watch ``job`` (a description or a CreateTrainingJob request) before it counts as lost: its own
    limit (MaxWaitTimeInSeconds for spot, else MaxRuntimeInSeconds) plus ``margin`` (:attr:`~sagemaker_fleet.dispatch.cadence.Cadence.watch_margin_seconds`)."""
    stopping = job.get("StoppingCondition") or {}
    limit = stopping.get("MaxWaitTimeInSeconds") or stopping.get("MaxRuntimeInSeconds")
    return float(limit) + margin if limit else None


async def watch_until_terminal(
    poller: Watched,
    job_name: str,
    created_after: dt.datetime | None,
    log: Any,
    deadline_seconds: float | None = None,
) -> Mapping[str, Any]:
    """Wait for ``job_name`` through the poller; its DescribeTrainingJob response once it is terminal.
    ``deadline_seconds``: give up (:class:`JobWatchError`) when it has not ended by then (:func:`watch_deadline`)."""
    queue = poller.watch(job_name, created_after)
    loop = asyncio.get_running_loop()
    deadline = None if deadline_seconds is None else loop.time() + deadline_seconds
    last: str | None = None
    try:
        while True:
            try:
                update = await asyncio.wait_for(
                    queue.get(), None if deadline is None else deadline - loop.time()
                )
            except TimeoutError:
                raise JobWatchError(
                    f"{job_name} has not ended {deadline_seconds:.0f} s after it was first watched, past its own "
                    "limits (SageMaker stops a job at MaxRuntime/MaxWait): its status cannot be read"
                ) from None
            if "error" in update:
                raise JobWatchError(str(update["error"]))
            # few lines: the triggerer writes every trigger's log lines from its one event loop, and in Airflow 3.3
            # a burst of them while it receives large workloads can stall it (see docs/troubleshooting.md)
            secondary = update.get("SecondaryStatus")
            if secondary != last and secondary in NOTABLE:
                log.warning("%s: %s / %s", job_name, update.get("TrainingJobStatus"), secondary)
            last = secondary
            if update.get("TrainingJobStatus") in TERMINAL_STATUSES:
                log.info("%s: %s / %s", job_name, update.get("TrainingJobStatus"), secondary)
                return update
    finally:
        poller.unwatch(job_name, queue)
