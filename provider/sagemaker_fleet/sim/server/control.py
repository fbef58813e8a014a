"""What the endpoint serves from: the engine on a wall clock, the base settings to reset to, and moto's outputs."""

from __future__ import annotations

import threading
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING

from sagemaker_fleet.sim.clock import WallClock
from sagemaker_fleet.sim.config import SimConfig
from sagemaker_fleet.sim.engine import SimEngine
from sagemaker_fleet.sim.server.moto_backend import MotoCheckpointStore, MotoS3, TrainingOutputs, reset_moto
from sagemaker_fleet.sim.server.shapes import ShapeChecker

if TYPE_CHECKING:
    from sagemaker_fleet.fleetspec.model import FleetSpec
    from sagemaker_fleet.sim.checkpoints import CheckpointStore


@dataclass(frozen=True)
class ServerSettings:
    """How ``sim serve`` starts; ``reset`` returns to these (with an optional new seed or speed)."""

    host: str = "127.0.0.1"
    port: int = 0
    speed: float = 1.0
    #: Simulated time at start-up (epoch seconds); None: the current time.
    epoch: float | None = None
    config: SimConfig = field(default_factory=SimConfig)
    #: Serve S3/Logs/STS through moto and write checkpoints, models and logs there.
    with_moto: bool = True
    #: Fleets whose roles, buckets, data and images are created at start and after each reset of moto
    #: (``sim serve --provision``; ``sim/provision.py``). Needs moto.
    provision: tuple[FleetSpec, ...] = ()


class SimulatorControl:
    def __init__(self, settings: ServerSettings) -> None:
        self.settings = settings
        self.shapes = ShapeChecker()
        self.quota_shapes = ShapeChecker("service-quotas")
        #: Called after a reset that emptied moto, outside the lock (the server provisions its fleets again).
        self.after_moto_reset: list[Callable[[], None]] = []
        self._lock = threading.Lock()
        self._s3 = MotoS3(settings.config.account_id) if settings.with_moto else None
        self.engine = SimEngine(settings.config, WallClock(settings.speed, settings.epoch), self._store())
        if self._s3 is not None:
            config = settings.config
            self.engine.subscribe(TrainingOutputs(self._s3, config.account_id, config.region))

    @property
    def speed(self) -> float:
        """Simulated seconds per wall second of the served clock (an admin may change it: reset, set_speed)."""
        clock = self.engine.clock
        return clock.speed if isinstance(clock, WallClock) else 1.0

    def _store(self) -> CheckpointStore | None:
        return MotoCheckpointStore(self._s3) if self._s3 is not None else None

    def reset(self, *, seed: int | None = None, speed: float | None = None, moto: bool = True) -> None:
        """Back to the start-up settings: no jobs, pools, overrides or counters; the clock restarts."""
        with self._lock:
            base = self.settings
            config = base.config if seed is None else replace(base.config, seed=seed)
            clock = WallClock(base.speed if speed is None else speed, base.epoch)
            moto_reset = moto and self._s3 is not None
            if moto_reset:
                reset_moto()
            self.engine.reset(config, clock, self._store())
        if moto_reset:
            for callback in self.after_moto_reset:
                callback()
