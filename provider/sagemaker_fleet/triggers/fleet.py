"""FleetJobTrigger: waits for one training job of a fleet run through the run's shared batched poller."""

from __future__ import annotations

import datetime as dt
from collections.abc import AsyncIterator
from typing import Any

from airflow.triggers.base import TriggerEvent

from sagemaker_fleet.contract import POLL_INTERVAL
from sagemaker_fleet.jobs.describe import event_description, summarize
from sagemaker_fleet.triggers.base import RunPollerTrigger
from sagemaker_fleet.triggers.watch import JobWatchError, watch_until_terminal


class FleetJobTrigger(RunPollerTrigger):
    """Fires once the training job ``job_name`` is Completed, Failed or Stopped, with its summary and what of its
    description may travel (:data:`~sagemaker_fleet.jobs.describe.EVENT_FIELDS`: status, times, billing, resources,
    artifacts; never the container's entrypoint, arguments, environment or hyperparameters).

    :param job_name: the job to wait for.
    :param name_contains: what every job of the run's name contains; jobs sharing it share one poller.
    :param poll_interval: seconds between ListTrainingJobs sweeps.
    :param created_after: ISO timestamp a little before the job's creation; narrows the listing.
    :param aws_conn_id, region_name, verify, botocore_config: the AWS connection (:class:`FleetAwsTrigger`).
    """

    def __init__(
        self,
        *,
        job_name: str,
        name_contains: str,
        poll_interval: float = POLL_INTERVAL,
        created_after: str | None = None,
        **connection: Any,
    ) -> None:
        super().__init__(**connection)
        self.job_name = job_name
        self.name_contains = name_contains
        self.poll_interval = float(poll_interval)
        self.created_after = created_after

    async def run(self) -> AsyncIterator[TriggerEvent]:
        poller = self.shared_poller(self.name_contains, self.poll_interval)
        after = dt.datetime.fromisoformat(self.created_after) if self.created_after else None
        try:
            described = await watch_until_terminal(poller, self.job_name, after, self.log)
        except JobWatchError as exc:
            yield TriggerEvent({"status": "error", "job_name": self.job_name, "message": str(exc)})
            return
        # the terminal update is the poller's DescribeTrainingJob response; what of it may travel goes with the event
        # (an allow-list: Airflow logs events and stores them), so the resumed task needs no second call
        yield TriggerEvent(
            {
                "status": "terminal",
                "job_name": self.job_name,
                "job": summarize(described),
                "description": event_description(described),
            }
        )
