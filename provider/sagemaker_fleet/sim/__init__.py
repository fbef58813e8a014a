"""The simulated SageMaker training control plane: warm pools, spot, billing, quotas and throttling.

One engine (:class:`SimEngine`) serves both the HTTP endpoint (``sagemaker-fleet sim serve``, see
:mod:`sagemaker_fleet.sim.server`) and virtual-time drivers (``simulate``). Production code never imports it.
"""

from __future__ import annotations

from sagemaker_fleet.sim.clock import AdjustableClock, Clock, VirtualClock, WallClock
from sagemaker_fleet.sim.config import SimConfig, SpotMarketConfig, TimingConfig
from sagemaker_fleet.sim.engine import OPERATIONS, SimEngine
from sagemaker_fleet.sim.errors import SimApiError
from sagemaker_fleet.sim.job import JobEvent
from sagemaker_fleet.sim.snapshot import JobFacts
from sagemaker_fleet.sim.startup_model import StartupModel
from sagemaker_fleet.sim.workload import CityRef, WorkModel

__all__ = [
    "OPERATIONS",
    "AdjustableClock",
    "CityRef",
    "Clock",
    "JobEvent",
    "JobFacts",
    "SimApiError",
    "SimConfig",
    "SimEngine",
    "SpotMarketConfig",
    "StartupModel",
    "TimingConfig",
    "VirtualClock",
    "WallClock",
    "WorkModel",
]
