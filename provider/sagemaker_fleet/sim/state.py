"""Everything the engine owns, in one place, so the lifecycle rules can be written as plain functions of it."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from sagemaker_fleet.sim.checkpoints import CheckpointStore, InMemoryCheckpointStore
from sagemaker_fleet.sim.counters import ApiCounters
from sagemaker_fleet.sim.events import EventQueue
from sagemaker_fleet.sim.faults import ApiErrors, Throttle
from sagemaker_fleet.sim.job import JobEvent, TrainingJob
from sagemaker_fleet.sim.pools import PoolRegistry
from sagemaker_fleet.sim.quotas import QuotaBook
from sagemaker_fleet.sim.registry import ModelRegistry

if TYPE_CHECKING:
    from sagemaker_fleet.sim.config import SimConfig

JobListener = Callable[[JobEvent], None]


@dataclass
class SimState:
    config: SimConfig
    checkpoints: CheckpointStore = field(default_factory=InMemoryCheckpointStore)
    jobs: dict[str, TrainingJob] = field(default_factory=dict)
    pools: PoolRegistry = field(default_factory=PoolRegistry)
    queue: EventQueue = field(default_factory=EventQueue)
    counters: ApiCounters = field(default_factory=ApiCounters)
    listeners: list[JobListener] = field(default_factory=list)
    quotas: QuotaBook = field(init=False)
    throttle: Throttle = field(init=False)
    api_errors: ApiErrors = field(init=False)
    registry: ModelRegistry = field(init=False)

    def __post_init__(self) -> None:
        self.quotas = QuotaBook(lambda instance_type: self.config.quota(instance_type))
        self.throttle = Throttle(self.config.seed)
        self.api_errors = ApiErrors(self.config.seed)
        self.registry = ModelRegistry(self.config.region, self.config.account_id)
