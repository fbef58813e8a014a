"""SageMaker's training-job statuses, what they mean for a job, and the error codes the package acts on, defined once.

Imported by the hook, the dispatch, the cost report, the Fleet view and the simulator alike, so that they cannot
drift apart. The statuses are DescribeTrainingJob's ``TrainingJobStatus``, ``SecondaryStatus`` and
``WarmPoolStatus.Status`` values (docs/sagemaker-behaviour.md); a ListTrainingJobs summary carries the same
``TrainingJobStatus`` and ``WarmPoolStatus``, so :func:`settled` and :func:`holds_capacity` read either. The AWS
error code of a refused call is read by :func:`sagemaker_fleet.jobs.errors.error_code`.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Final

if TYPE_CHECKING:
    from mypy_boto3_sagemaker.literals import TrainingJobStatusType

#: A job in one of these will not change status again (its warm pool still may).
TERMINAL_STATUSES: frozenset[TrainingJobStatusType] = frozenset({"Completed", "Failed", "Stopped"})
#: A job in one of these is still running (or stopping) and will reach a terminal status.
ACTIVE_STATUSES: frozenset[TrainingJobStatusType] = frozenset({"InProgress", "Stopping"})
#: SecondaryStatus values of a job starting (before its first ``Training``, or again after a spot interruption):
#: the start-up that :mod:`sagemaker_fleet.jobs.starts` measures and the report's timeline colours as one.
STARTUP_STATES: frozenset[str] = frozenset({"Pending", "Starting", "Downloading", "Restarting"})
#: ``WarmPoolStatus.Status`` values after which a job holds nothing any more (its pool ended or moved on): a
#: terminal job in one of these (or with no pool) will not change again.
POOL_SETTLED: frozenset[str] = frozenset({"Terminated", "Reused"})
#: The ``WarmPoolStatus.Status`` of an idle warm pool: a terminal job keeps its instances for the next job of its
#: matching key (they count toward the account's quota), and a listing can ask for these only.
POOL_AVAILABLE: Final = "Available"
#: Error codes of a call refused for its rate: retried after a back-off, never a failure of the job.
THROTTLING_CODES: frozenset[str] = frozenset(
    {"ThrottlingException", "Throttling", "TooManyRequestsException", "RequestLimitExceeded"}
)
#: Error codes of an UpdateTrainingJob(keep-alive) refused because nothing is left to change: the job ended (no
#: keep-alive to set while it runs), or its pool was taken over, expired or never kept — or because AWS does not
#: change a running job's keep-alive (undocumented either way): that job then ends with its pool, which is ended
#: once Available like any idle one. Any other error passes, and the change is tried again.
KEEP_ALIVE_REFUSALS: frozenset[str] = frozenset({"ValidationException", "ResourceNotFound"})
#: Error codes of a call the credentials may not make.
ACCESS_DENIED_CODES: frozenset[str] = frozenset({"AccessDeniedException", "AccessDenied"})


def pool_status(job: Mapping[str, Any]) -> str | None:
    """The ``WarmPoolStatus.Status`` of a listing summary or a description (None: the job keeps no pool)."""
    status = (job.get("WarmPoolStatus") or {}).get("Status")
    return str(status) if status else None


def settled(status: str | None, pool: str | None) -> bool:
    """Whether a job of ``status`` with warm-pool status ``pool`` will not change again: terminal, and holding no
    pool (none, or one :data:`POOL_SETTLED`). A later listing may leave it out, a description of it is final."""
    return status in TERMINAL_STATUSES and (pool is None or pool in POOL_SETTLED)


def holds_capacity(status: str | None, pool: str | None) -> bool:
    """Whether a job of ``status`` with warm-pool status ``pool`` holds instances of the account's quota: running
    (or stopping), or keeping an Available pool."""
    return status in ACTIVE_STATUSES or pool == POOL_AVAILABLE
