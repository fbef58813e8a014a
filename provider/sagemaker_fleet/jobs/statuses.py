"""SageMaker's training-job statuses and the error codes the package acts on, defined once.

Imported by the hook, the dispatch, the cost report, the Fleet view and the simulator alike, so that they cannot
drift apart. The statuses are DescribeTrainingJob's ``TrainingJobStatus``, ``SecondaryStatus`` and
``WarmPoolStatus.Status`` values (docs/sagemaker-behaviour.md).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

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
