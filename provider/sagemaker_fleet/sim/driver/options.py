"""What a ``simulate`` run is asked to do: the strategy, the seed, the run key and the operator's timings.

The engine's configuration is derived from the fleet spec (quotas, per-city work) and these options, so the same
spec and options always give the same run.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from types import MappingProxyType
from typing import TYPE_CHECKING, Literal

from sagemaker_fleet.contract import CAPACITY_RETRY_SECONDS, POLL_INTERVAL
from sagemaker_fleet.dispatch.tracker import HANDOFF_INTERVAL
from sagemaker_fleet.jobs.attempts import CAPACITY_RETRY_MAX_SECONDS
from sagemaker_fleet.sim.config import SimConfig, SpotMarketConfig
from sagemaker_fleet.sim.workload import WorkModel

if TYPE_CHECKING:
    from sagemaker_fleet.fleetspec.model import FleetSpec
    from sagemaker_fleet.plan.history import DurationHistory

StrategyName = Literal["planned", "naive"]
STRATEGIES: tuple[StrategyName, ...] = ("planned", "naive")

#: docs/formats.md, command line (``naive``): the stock behaviour keeps every on-demand job's pool this long.
NAIVE_KEEP_ALIVE_SECONDS = 600


@dataclass(frozen=True)
class SimulateOptions:
    """How to run the fleet. Defaults are the CLI's and the operator's (``FleetTrainingOperator``)."""

    strategy: StrategyName = "planned"
    seed: int = 7
    run_key: str = "20261129"
    #: Status polling: the batched ListTrainingJobs sweep (planned) or one DescribeTrainingJob per job (naive).
    poll_interval_seconds: float = POLL_INTERVAL
    #: ResourceLimitExceeded back-off: base, doubling up to the cap, jittered ×U(0.5, 1.5); the task gives up
    #: (the city fails) after the timeout, as the operator does.
    capacity_retry_seconds: float = CAPACITY_RETRY_SECONDS
    capacity_retry_max_seconds: float = CAPACITY_RETRY_MAX_SECONDS
    capacity_timeout_seconds: float = 6 * 3600.0
    #: ThrottlingException on CreateTrainingJob: retried after a jittered exponential back-off from this base.
    throttle_retry_seconds: float = 1.0
    naive_keep_alive_seconds: int = NAIVE_KEEP_ALIVE_SECONDS
    #: planned: from the sweep that admits a city (or sees its job end) to its CreateTrainingJob — the trigger's
    #: reaction and the call itself (measured through real Airflow: see docs/benchmarks.md).
    handoff_seconds: float = 1.0
    #: planned: while cities wait the poller sweeps at least this often (the triggerer's 10 s). To predict a run
    #: against a sped-up simulator, scale it (and the poll interval) by the speed.
    handoff_interval_seconds: float = HANDOFF_INTERVAL
    #: The spot market; None keeps the engine's seeded defaults (interruptions on).
    spot: SpotMarketConfig | None = None
    #: Share of API calls the engine answers with ThrottlingException (0: none).
    throttle_share: float = 0.0
    #: Probability that a job fails with an AlgorithmError somewhere in its training (0: none).
    failure_probability: float = 0.0
    #: The engine refuses keep-alive changes of running jobs, as AWS may (:class:`SimConfig`'s setting).
    refuse_keep_alive_while_running: bool = False
    #: A previous run's durations for the planner (planned only).
    history: DurationHistory | None = field(default=None, compare=False)
    #: planned: plan with the training image as secondary ordering key (False only to measure what it does:
    #: ``benchmarks/bench_image_order.py``).
    image_order: bool = True
    #: planned: hand a freed pool to a waiting city with its image (False: start order only, to measure it).
    image_handoff: bool = True
    #: planned: keep-alive 0 on a group's running jobs once none of its cities is left to start (False: their
    #: pools are ended only once idle, a sweep later, to measure it: ``benchmarks/idle_after_last_end.py``).
    tail_release: bool = True
    #: Stop with :class:`SimulationError` when the simulated run goes on longer than this.
    max_simulated_seconds: float = 60 * 24 * 3600.0

    def with_strategy(self, strategy: StrategyName) -> SimulateOptions:
        return replace(self, strategy=strategy)


def engine_config(spec: FleetSpec, options: SimulateOptions) -> SimConfig:
    """The engine's configuration for ``spec``: its quotas, its cities' expected work, the seed and the market."""
    config = SimConfig(
        seed=options.seed,
        region=spec.region,
        work=WorkModel.from_fleets([spec]),
        quotas=MappingProxyType(dict(spec.quotas)),
        throttle_share=options.throttle_share,
        failure_probability=options.failure_probability,
        refuse_keep_alive_while_running=options.refuse_keep_alive_while_running,
    )
    return config if options.spot is None else replace(config, spot=options.spot)
