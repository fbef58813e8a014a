"""Attachment: what creating a training job by its name found — the job's description, and whether this call made it
(the name is the idempotency key: a job of that name that exists already is attached to, never made twice)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from sagemaker_fleet.jobs.record import Description


@dataclass(frozen=True)
class Attachment:
    """What create-or-attach found: the job's description and whether this call created it."""

    description: Description  # a partial one (hooks.fleet's _created) when the create was not described
    created: bool

    @property
    def job_name(self) -> str:
        return str(self.description["TrainingJobName"])

    @property
    def status(self) -> str:
        return str(self.description["TrainingJobStatus"])
