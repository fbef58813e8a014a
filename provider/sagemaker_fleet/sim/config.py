"""The simulator's knobs, as frozen values: timings, the spot market, quotas, throttling and the work model.

Administrators change them at run time by replacing the value (``dataclasses.replace``), never by mutation, so the
engine always reads one consistent configuration.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from types import MappingProxyType

from sagemaker_fleet.fleetspec.model import InstanceQuota
from sagemaker_fleet.fleetspec.names import ATTEMPT_TAG, CITY_TAG, FLEET_TAG
from sagemaker_fleet.sim.metrics import MetricModel
from sagemaker_fleet.sim.startup_model import StartupModel
from sagemaker_fleet.sim.workload import WorkModel

Bounds = tuple[float, float]


@dataclass(frozen=True)
class TimingConfig:
    """Durations of the phases the seed table does not cover (seconds, drawn uniformly within bounds)."""

    startup: StartupModel = field(default_factory=StartupModel)
    upload_seconds: Bounds = (5.0, 20.0)
    #: After StopTrainingJob: SIGTERM, then at most 120 s before the kill (docs/sagemaker-behaviour.md, managed spot training).
    stop_seconds_launched: Bounds = (5.0, 30.0)
    stop_seconds_unlaunched: Bounds = (1.0, 5.0)
    #: The model's training container writes a checkpoint this often while training.
    checkpoint_interval_seconds: float = 300.0


@dataclass(frozen=True)
class SpotMarketConfig:
    """Managed spot training: capacity waits, interruptions and the discount (docs/sagemaker-behaviour.md, managed spot training)."""

    #: Mean interruptions per hour of training on spot capacity (Poisson process); 0 disables them.
    interruptions_per_hour: float = 0.1
    #: Mean wait for spot capacity before each (re)start, exponentially distributed; 0 means none.
    capacity_wait_mean_seconds: float = 60.0
    #: Spot discount against on-demand, per job drawn uniformly in discount ± discount_spread.
    discount: float = 0.70
    discount_spread: float = 0.05
    #: Time spent ``Interrupted`` before SageMaker starts the job again.
    interrupted_seconds: Bounds = (20.0, 60.0)
    #: Instance types with no spot capacity at all: their jobs wait in ``Starting`` until MaxWait.
    no_capacity_types: frozenset[str] = frozenset()


#: A quota so large it never binds: used for instance types nobody configured.
UNLIMITED_QUOTA = InstanceQuota(instances=1_000_000, warm_pools=1_000_000)


@dataclass(frozen=True)
class ApiErrorConfig:
    """Calls answered with InternalFailure (HTTP 500, which SDKs retry): a seeded ``share`` of the calls to
    ``operations`` (empty: every operation). ``after_commit``: the call takes effect first and only its answer is
    lost, as when a connection drops after AWS has acted (a client that retries must not act twice)."""

    share: float = 0.0
    operations: frozenset[str] = frozenset()
    after_commit: bool = False


@dataclass(frozen=True)
class SimConfig:
    seed: int = 0
    region: str = "us-east-1"
    account_id: str = "123456789012"
    timing: TimingConfig = field(default_factory=TimingConfig)
    spot: SpotMarketConfig = field(default_factory=SpotMarketConfig)
    work: WorkModel = field(default_factory=WorkModel)
    #: Per instance type. Types not listed use ``default_quota``; ``None`` there means unconstrained (AWS's real
    #: default warm-pool quota is 0, but a simulator that keeps no pool out of the box surprises more than helps).
    quotas: Mapping[str, InstanceQuota] = field(default_factory=lambda: MappingProxyType({}))
    default_quota: InstanceQuota | None = None
    #: Share of API calls answered with ThrottlingException (seeded), and the operations it applies to
    #: (empty: all of them).
    throttle_share: float = 0.0
    throttle_operations: frozenset[str] = frozenset()
    #: Calls failed with InternalFailure (seeded), before or after they take effect.
    api_errors: ApiErrorConfig = field(default_factory=ApiErrorConfig)
    #: Final metrics of the jobs that define MetricDefinitions (``sim/metrics.py``).
    metrics: MetricModel = field(default_factory=MetricModel)
    #: Probability that a job fails with an AlgorithmError at a random point of its training.
    failure_probability: float = 0.0
    #: Cities whose training container always fails (an AlgorithmError early in training, every submission):
    #: ``city`` or ``fleet/city``, matched against the job's ``sagemaker-fleet:*`` tags.
    failing_cities: frozenset[str] = frozenset()
    #: Cities whose first submission of a run fails the same way (its ``sagemaker-fleet:attempt`` tag is 1) and
    #: whose later submissions train: a city that fails once and trains when its task is retried.
    failing_first_cities: frozenset[str] = frozenset()
    #: UpdateTrainingJob(ResourceConfig.KeepAlivePeriodInSeconds) on a job still running (InProgress, Stopping):
    #: True answers ValidationException, as AWS may. AWS documents the change only for an ended job whose pool is
    #: Available and says nothing of a running one (the API reference sets no status condition), so both are
    #: plausible. False (accepted, the change applies when the job ends) is the default, so that simulated figures
    #: stay comparable; a refusal costs the dispatch little — the job keeps its pool and the run's poller ends it a
    #: sweep after the job ends (docs/sagemaker-behaviour.md, keep-alive).
    refuse_keep_alive_while_running: bool = False

    def fails_early(self, tags: Mapping[str, str]) -> bool:
        """Whether this submission's container exits early: its city fails always, or fails once and this is the
        city's first submission."""
        city, fleet = tags.get(CITY_TAG), tags.get(FLEET_TAG)
        if city is None:
            return False
        names = {city, f"{fleet}/{city}"}
        if names & self.failing_cities:
            return True
        return bool(names & self.failing_first_cities) and tags.get(ATTEMPT_TAG, "1") == "1"

    def quota(self, instance_type: str) -> InstanceQuota:
        return self.quotas.get(instance_type) or self.default_quota or UNLIMITED_QUOTA
