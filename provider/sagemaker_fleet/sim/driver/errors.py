"""Errors of the ``simulate`` driver: a fleet the strategy cannot run, or a run that never ends."""

from __future__ import annotations


class SimulationError(RuntimeError):
    """The fleet cannot be simulated as asked; the message says why and what to change."""
