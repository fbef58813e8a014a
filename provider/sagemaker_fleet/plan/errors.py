"""Errors of the planning layer: each names what is wrong and how to fix it."""

from __future__ import annotations

from sagemaker_fleet.errors import SageMakerFleetError


class PlanError(SageMakerFleetError, ValueError):
    """The fleet cannot be planned within its quotas (e.g. a city needs more instances than the quota allows)."""


class PlanFormatError(SageMakerFleetError, ValueError):
    """A plan JSON document (docs/formats.md, plan JSON) is malformed; the message names the field path."""


class HistoryError(SageMakerFleetError, ValueError):
    """A previous run's report.json cannot be used as duration history; the message names the field path."""


class ForeignPlanError(SageMakerFleetError, ValueError):
    """A run is given another fleet's plan (two fleets' DAGs, a plan task wired to the wrong fleet file): the
    message names both fleets."""
