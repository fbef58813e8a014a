"""Errors of the ``simulate`` driver: a fleet the strategy cannot run, or a run that never ends."""

from __future__ import annotations

from sagemaker_fleet.errors import SageMakerFleetError


class SimulationError(SageMakerFleetError, RuntimeError):
    """The fleet cannot be simulated as asked; the message says why and what to change."""
