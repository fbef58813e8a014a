"""What a ``simulate`` run is asked to do: the strategy, the seed, the run key and the operator's timings.

The engine's configuration is derived from the fleet spec (quotas, per-city work) and these options, so the same
spec and options always give the same run.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from types import MappingProxyType
from typing import TYPE_CHECKING, Literal

from sagemaker_fleet.dispatch.cadence import AWS_CADENCE, Cadence
from sagemaker_fleet.fleetspec.model import InstanceQuota
from sagemaker_fleet.sim.config import SimConfig, SpotMarketConfig
from sagemaker_fleet.sim.workload import WorkModel
from sagemaker_fleet.simulate.errors import SimulationError

if TYPE_CHECKING:
    from collections.abc import Sequence

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
    #: Every interval of the run, in simulated seconds: its ``poll_interval`` is the batched ListTrainingJobs sweep
    #: (planned) or one DescribeTrainingJob per job (naive); the ResourceLimitExceeded back-off (base, doubling up to
    #: the cap, jittered ×U(0.5, 1.5); the city fails after the timeout, as the operator does); while cities wait
    #: the poller sweeps at least every ``handoff_interval`` (the triggerer's 10 s). To predict a triggerer's run
    #: against a sped-up simulator, give ``Cadence(...).scaled(speed)``.
    cadence: Cadence = AWS_CADENCE
    #: ThrottlingException on CreateTrainingJob: retried after a jittered exponential back-off from this base.
    throttle_retry_seconds: float = 1.0
    naive_keep_alive_seconds: int = NAIVE_KEEP_ALIVE_SECONDS
    #: planned: from the sweep that admits a city (or sees its job end) to its CreateTrainingJob — the trigger's
    #: reaction and the call itself (measured through real Airflow: see docs/performance.md).
    handoff_seconds: float = 1.0
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
    return account_config([spec], options)


def account_config(specs: Sequence[FleetSpec], options: SimulateOptions) -> SimConfig:
    """The engine's configuration for fleets run side by side on one account: their region (one: quotas are per
    region), the account's quotas (:func:`account_quotas`), every city's expected work, the seed and the market."""
    regions = sorted({spec.region for spec in specs})
    if len(regions) > 1:
        where = ", ".join(f"{spec.fleet} in {spec.region}" for spec in specs)
        raise SimulationError(
            f"region: the fleets are in {len(regions)} regions ({where}); SageMaker's quotas and warm pools are "
            "per region, so they share no account here: simulate each region's fleets on their own"
        )
    quotas, _ = account_quotas(specs)
    config = SimConfig(
        seed=options.seed,
        region=specs[0].region,
        work=WorkModel.from_fleets(specs),
        quotas=MappingProxyType(quotas),
        throttle_share=options.throttle_share,
        failure_probability=options.failure_probability,
        refuse_keep_alive_while_running=options.refuse_keep_alive_while_running,
    )
    return config if options.spot is None else replace(config, spot=options.spot)


def account_quotas(specs: Sequence[FleetSpec]) -> tuple[dict[str, InstanceQuota], list[str]]:
    """The account's quotas for ``specs`` run side by side, and a note for each figure the specs disagree on.

    Each spec declares what its runs may use of the account (docs/guides/aws.md: the whole quota, in every fleet), so the
    account has at least the largest figure any of them declares: per instance type and field, that one is the
    account's, and a run whose spec declares less still keeps to its own (a cap the team chose). Specs without a
    ``quotas:`` block (the assumed quota) count only for types no other spec declares. One spec: its quotas.
    """
    declared = [spec for spec in specs if spec.quotas_given] or list(specs)
    quotas: dict[str, InstanceQuota] = {}
    notes: list[str] = []
    for itype in dict.fromkeys(itype for spec in specs for itype in spec.quotas):
        entries = [(spec.fleet, spec.quotas[itype]) for spec in declared if itype in spec.quotas] or [
            (spec.fleet, spec.quotas[itype]) for spec in specs if itype in spec.quotas
        ]
        if all(quota == entries[0][1] for _, quota in entries):
            quotas[itype] = entries[0][1]
            continue
        largest: dict[str, int | None] = {}
        for field_name in ("instances", "warm_pools", "spot_instances"):
            figures = [(fleet, getattr(quota, field_name)) for fleet, quota in entries]
            given = [value for _, value in figures if value is not None]
            largest[field_name] = max(given) if given else None
            if len({value for _, value in figures}) > 1:
                notes.append(_disagree(f"quotas.{itype}.{field_name}", figures, largest[field_name]))
        quotas[itype] = InstanceQuota(
            instances=max(quota.instances for _, quota in entries),
            warm_pools=max(quota.warm_pools for _, quota in entries),
            spot_instances=largest["spot_instances"],
        )
    return quotas, notes


def _disagree(field_path: str, figures: list[tuple[str, int | None]], largest: int | None) -> str:
    said = ", ".join(f"{fleet} {'none (spot shares instances)' if n is None else n}" for fleet, n in figures)
    return (
        f"{field_path}: the fleets declare different figures ({said}); the simulated account has the largest, "
        f"{largest}, and each run keeps to its own spec's. Specs that split the account between them each "
        "declare less than it has: the simulated account then has less than the real one"
    )
