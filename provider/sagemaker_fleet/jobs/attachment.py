"""Attachment: what creating a training job by its name found — the job's description, and whether this call made it
(the name is the idempotency key: a job of that name that exists already is attached to, never made twice)."""

from __future__ import annotations

import datetime as dt
from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from sagemaker_fleet.jobs.record import Description


@dataclass(frozen=True)
class Attachment:
    """What create-or-attach found: the job's description and whether this call created it."""

    description: Description  # a partial one (:meth:`just_created`) when the create was not described
    created: bool

    @property
    def job_name(self) -> str:
        return str(self.description["TrainingJobName"])

    @property
    def status(self) -> str:
        return str(self.description["TrainingJobStatus"])

    @classmethod
    def just_created(cls, request: Mapping[str, Any], arn: object, creation_time: dt.datetime) -> Attachment:
        """A job this call has just created, described without a DescribeTrainingJob: its name and ARN,
        ``InProgress``/``Starting``, the request's spot flag and resources, and ``creation_time`` (taken just
        before the call: a lower bound for ListTrainingJobs' ``CreationTimeAfter``). The hook and the simulator's
        city I/O both make it here, so the two cannot describe a new job differently."""
        description = {
            "TrainingJobName": str(request["TrainingJobName"]),
            "TrainingJobArn": arn,
            "TrainingJobStatus": "InProgress",
            "SecondaryStatus": "Starting",
            "CreationTime": creation_time,
            "EnableManagedSpotTraining": bool(request.get("EnableManagedSpotTraining", False)),
            "ResourceConfig": dict(request.get("ResourceConfig") or {}),
        }
        return cls(description, created=True)
