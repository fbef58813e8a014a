"""Errors of the cost report: each names what is missing and how to fix it.

The base ``CostReportError`` and the two errors the job model raises (an unknown price, an unsupported job
shape) are defined in ``sagemaker_fleet.jobs.errors`` and re-exported here.
"""

from __future__ import annotations

from sagemaker_fleet.jobs.errors import CostReportError, UnknownPriceError, UnsupportedTrainingJobError

__all__ = [
    "CostReportError",
    "PriceListError",
    "UnattributedJobError",
    "UnknownPriceError",
    "UnsupportedTrainingJobError",
]


class PriceListError(CostReportError):
    """The AWS Price List API could not give a price (no product, ambiguous answer, unsupported region)."""


class UnattributedJobError(CostReportError, ValueError):
    """A training job that belongs to no city of the fleet's run (neither by its tags nor by its name)."""
