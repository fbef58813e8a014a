"""The ``simulate`` application: a whole fleet, or several on one account, through the simulated endpoint's engine (:mod:`sagemaker_fleet.sim`) in virtual time
(docs/formats.md, simulate JSON).

It composes the pieces production uses — the planner, the run's sweep and each city's run as the triggerer runs
them (``dispatch``), the request compiler and the cost model — around the engine, so a simulated run behaves and is
priced like a real one. Production code never imports it.
"""

from __future__ import annotations

from sagemaker_fleet.simulate.account_result import AccountResult
from sagemaker_fleet.simulate.errors import SimulationError
from sagemaker_fleet.simulate.options import (
    STRATEGIES,
    SimulateOptions,
    StrategyName,
    account_config,
    account_quotas,
    engine_config,
)
from sagemaker_fleet.simulate.result import SimulationResult
from sagemaker_fleet.simulate.run import (
    AccountRun,
    AccountSimulation,
    FleetSimulation,
    Progress,
    ProgressCallback,
    simulate_account,
    simulate_fleet,
)

__all__ = [
    "STRATEGIES",
    "AccountResult",
    "AccountRun",
    "AccountSimulation",
    "FleetSimulation",
    "Progress",
    "ProgressCallback",
    "SimulateOptions",
    "SimulationError",
    "SimulationResult",
    "StrategyName",
    "account_config",
    "account_quotas",
    "engine_config",
    "simulate_account",
    "simulate_fleet",
]
