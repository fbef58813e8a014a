"""The simulated AWS endpoint: SageMaker training APIs from the engine, everything else from moto, one port."""

from __future__ import annotations

from sagemaker_fleet.sim.server.control import ServerSettings
from sagemaker_fleet.sim.server.server import SimulatorServer

__all__ = ["ServerSettings", "SimulatorServer"]
