"""Errors of the job model: a price or a job shape it cannot handle. Each names what is missing and how to fix it.

``CostReportError`` is their base because the cost report is where users meet them; ``sagemaker_fleet.cost``
re-exports all three. :func:`error_code` and :func:`error_message` read what AWS said of a refused call, for every
layer (the hook, the triggerer, the cost report, the Fleet view, the command line).
"""

from __future__ import annotations

from collections.abc import Iterable

from sagemaker_fleet.errors import SageMakerFleetError
from sagemaker_fleet.fleetspec.price_table import PRICING_PAGE


class CostReportError(SageMakerFleetError):
    """Base of every error the cost report raises on purpose."""


class UnknownPriceError(CostReportError, LookupError):
    """No price source knows one or more instance types of the run. The fix works offline and before any run:
    the spec's ``prices:`` (``validate`` warns about the same types). ``report`` adds its ``--price-list`` look-up,
    the only command that has one."""

    def __init__(self, instance_types: Iterable[str], region: str, known: Iterable[str] = ()) -> None:
        self.instance_types = tuple(sorted(set(instance_types)))
        self.region = region
        names = ", ".join(self.instance_types)
        example = ", ".join(f"{itype}: <USD per instance-hour>" for itype in self.instance_types)
        shipped = ", ".join(sorted(known)) or "none"
        super().__init__(
            f"no price for {names} in {region} (the shipped table there covers: {shipped}); "
            f"add its on-demand training price to the fleet spec as `prices: {{{example}}}` ({PRICING_PAGE})"
        )


class UnsupportedTrainingJobError(CostReportError, ValueError):
    """A training job shape the cost model does not price (heterogeneous clusters: the fleet never makes them)."""


def error_code(exc: BaseException) -> str:
    """The AWS error code of a botocore ``ClientError`` (read from its ``response``: the pure core imports no
    botocore), or "" for anything else: the one reading of a refused call, compared with the code sets of
    :mod:`sagemaker_fleet.jobs.statuses`."""
    response = getattr(exc, "response", None)
    return str((response.get("Error") or {}).get("Code", "")) if isinstance(response, dict) else ""


def error_message(exc: BaseException) -> str:
    """The AWS error message of a botocore ``ClientError``, or "" for anything else."""
    response = getattr(exc, "response", None)
    return str((response.get("Error") or {}).get("Message", "")) if isinstance(response, dict) else ""


def job_not_found(exc: BaseException) -> bool:
    """Whether a DescribeTrainingJob (or a call on one job) was refused because no job of that name exists: SageMaker
    says so with ``ResourceNotFound`` or with a ``ValidationException`` whose message says the job is not there."""
    code, message = error_code(exc), error_message(exc).lower()
    return code in ("ResourceNotFound", "ResourceNotFoundException") or (
        code == "ValidationException" and ("not found" in message or "does not exist" in message)
    )
