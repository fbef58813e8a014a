"""The cost report's own errors: each names what is missing and how to fix it.

Their base ``CostReportError`` and the two errors the job model raises (an unknown price, an unsupported job
shape) are defined in ``sagemaker_fleet.jobs.errors``; the package ``sagemaker_fleet.cost`` exports all five.
"""

from __future__ import annotations

from sagemaker_fleet.jobs.errors import CostReportError


class PriceListError(CostReportError):
    """The AWS Price List API could not give a price (no product, ambiguous answer, unsupported region)."""


class UnattributedJobError(CostReportError, ValueError):
    """A training job that belongs to no city of the fleet's run (neither by its tags nor by its name)."""
