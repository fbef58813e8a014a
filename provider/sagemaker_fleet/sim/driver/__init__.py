"""The ``simulate`` driver: a whole fleet through the simulator engine in virtual time (docs/formats.md, simulate JSON).

It composes the pieces production uses — the planner, the run's sweep and each city's run as the triggerer runs
them (``dispatch``), the request compiler and the cost model — around the engine, so a simulated run behaves and is
priced like a real one. Production code never imports it.
"""

from __future__ import annotations

from sagemaker_fleet.sim.driver.errors import SimulationError
from sagemaker_fleet.sim.driver.options import STRATEGIES, SimulateOptions, StrategyName, engine_config
from sagemaker_fleet.sim.driver.result import SimulationResult
from sagemaker_fleet.sim.driver.run import FleetSimulation, Progress, ProgressCallback, simulate_fleet

__all__ = [
    "STRATEGIES",
    "FleetSimulation",
    "Progress",
    "ProgressCallback",
    "SimulateOptions",
    "SimulationError",
    "SimulationResult",
    "StrategyName",
    "engine_config",
    "simulate_fleet",
]
