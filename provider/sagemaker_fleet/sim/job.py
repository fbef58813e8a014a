"""A simulated training job: its request, where it is in its lifecycle and what it has used so far.

This is the engine's private, mutable record (the engine's lock guards it). Callers get :class:`JobEvent` values
and JSON renderings, never the record itself.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Literal

from sagemaker_fleet.jobs.statuses import POOL_AVAILABLE
from sagemaker_fleet.jobs.statuses import TERMINAL_STATUSES as TERMINAL

if TYPE_CHECKING:
    from sagemaker_fleet.sim.billing import Billing
    from sagemaker_fleet.sim.request import TrainingRequest
    from sagemaker_fleet.sim.startup_model import StartupSample

JobStatus = Literal["InProgress", "Completed", "Failed", "Stopping", "Stopped"]
PoolStatus = Literal["Available", "InUse", "Reused", "Terminated"]


@dataclass(frozen=True)
class JobEvent:
    """One status change, as an EventBridge "SageMaker Training Job State Change" would report it."""

    job_name: str
    time: float
    status: str
    secondary_status: str
    message: str
    #: Where the model was written, on the event that ends a job with a model (Completed, or Stopped after launch).
    model_artifacts: str | None = None


@dataclass(slots=True)
class Transition:
    status: str
    start: float
    message: str
    end: float | None = None


@dataclass(slots=True, eq=False)
class TrainingJob:
    request: TrainingRequest
    raw: dict[str, Any]  # the request as received, echoed by DescribeTrainingJob
    arn: str
    created_at: float
    work_seconds: float
    work_source: str
    keep_alive: int
    discount: float = 0.0
    status: JobStatus = "InProgress"
    secondary: str = "Starting"
    transitions: list[Transition] = field(default_factory=list)
    last_modified: float = 0.0
    #: Tags added after creation (AddTags), beside the request's own.
    added_tags: dict[str, str] = field(default_factory=dict)
    failure_reason: str | None = None
    training_start: float | None = None
    training_end: float | None = None
    #: Bumped whenever the scheduled future of the job is void (interruption, stop, failure, end).
    token: int = 0
    attempt: int = 0  # 1 for the first start; +1 for each restart after a spot interruption
    interruptions: int = 0
    startup: StartupSample | None = None  # durations drawn for the current attempt
    cluster_up: bool = False  # instances launched and held for the current attempt
    run_started: float | None = None  # start of the current billed interval
    running_seconds: float = 0.0  # closed billed intervals
    lost_seconds: float = 0.0  # billed seconds whose work an interruption threw away
    durable_at: float | None = None  # last checkpoint of the current attempt
    training_started: float | None = None
    progress_at_training_start: float = 0.0
    progress: float = 0.0  # seconds of work saved in a checkpoint (or done, once training ended)
    startup_seconds: float | None = None  # CreateTrainingJob → first Training
    stop_outcome: str = "Stopped"  # the final SecondaryStatus of a stop: Stopped | MaxWaitTimeExceeded | …
    # warm pool (docs/sagemaker-behaviour.md, warm pools)
    warm_start: bool = False
    #: A warm start whose training image differs from the pool's previous job's: the image is pulled again.
    image_pulled: bool = False
    pool_id: str | None = None
    pool_status: PoolStatus | None = None
    pool_since: float | None = None  # when the pool became Available after this job
    pool_retained: float | None = None  # final idle seconds once the pool moved on or ended
    reused_by: str | None = None
    billing: Billing | None = None

    @property
    def name(self) -> str:
        return self.request.name

    @property
    def ended(self) -> bool:
        return self.status in TERMINAL

    @property
    def holds_instances(self) -> bool:
        """Whether instances exist for the job now: its own launched cluster, or the warm pool it runs on."""
        return self.cluster_up or self.pool_id is not None

    def retained_seconds(self, now: float) -> float:
        if self.pool_retained is not None:
            return self.pool_retained
        if self.pool_status == POOL_AVAILABLE and self.pool_since is not None:
            return max(now - self.pool_since, 0.0)
        return 0.0
