"""The account's SageMaker training quotas, read from Service Quotas (a thin I/O wrapper: the client is passed in).

:func:`read_account_quotas` pages ListServiceQuotas for service code ``sagemaker`` to its end and reads the three
training quotas of each instance type asked for (the names and the reading are pure, in
``jobs/service_quotas.py``). It needs ``servicequotas:ListServiceQuotas``; without it the error says so.

    client = boto3.client("service-quotas", region_name=spec.region)
    quotas = read_account_quotas(client, spec.instance_types)   # {"ml.m5.xlarge": InstanceQuota(20, 8, 20)}
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import TYPE_CHECKING, Any, Protocol

from botocore.exceptions import ClientError

from sagemaker_fleet.errors import SageMakerFleetError
from sagemaker_fleet.jobs.errors import error_code, error_message
from sagemaker_fleet.jobs.paging import PagedListing
from sagemaker_fleet.jobs.service_quotas import PAGE_MAX, SERVICE_CODE, account_quotas
from sagemaker_fleet.jobs.statuses import ACCESS_DENIED_CODES

if TYPE_CHECKING:
    from sagemaker_fleet.fleetspec.model import InstanceQuota

#: The IAM action ListServiceQuotas needs.
PERMISSION = "servicequotas:ListServiceQuotas"
#: Quotas per ListServiceQuotas page: the most it returns.
PAGE_SIZE = PAGE_MAX


class ServiceQuotasClient(Protocol):
    """The one call this module makes (a boto3 ``service-quotas`` client satisfies it)."""

    def list_service_quotas(self, **kwargs: Any) -> Mapping[str, Any]: ...


class QuotaReadError(SageMakerFleetError, RuntimeError):
    """Service Quotas refused the listing; the message names the error code and, for AccessDenied, the
    permission to grant. ``code`` is AWS's error code."""

    def __init__(self, message: str, code: str) -> None:
        super().__init__(message)
        self.code = code


def list_training_quotas(client: ServiceQuotasClient) -> list[Mapping[str, Any]]:
    """Every quota of service code ``sagemaker`` (all pages), as ListServiceQuotas returns them."""
    listing = PagedListing(
        f"ListServiceQuotas({SERVICE_CODE})", {"ServiceCode": SERVICE_CODE, "MaxResults": PAGE_SIZE}, "Quotas"
    )
    rows: list[Mapping[str, Any]] = []
    while listing.request is not None:
        try:
            page = client.list_service_quotas(**listing.request)
        except ClientError as exc:
            raise _read_error(exc) from exc
        rows.extend(listing.take(page))
    return rows


def read_account_quotas(
    client: ServiceQuotasClient, instance_types: Iterable[str]
) -> dict[str, InstanceQuota]:
    """The account's quotas of each of ``instance_types`` (keyed as given), from Service Quotas.

    A type the account lists no training-instance quota for is not in the result. Raises :class:`QuotaReadError`
    when Service Quotas refuses the listing (AccessDenied: grant ``servicequotas:ListServiceQuotas``)."""
    return account_quotas(list_training_quotas(client), instance_types)


def _read_error(exc: ClientError) -> QuotaReadError:
    code, message = error_code(exc), error_message(exc)
    if code in ACCESS_DENIED_CODES:
        return QuotaReadError(
            f"Service Quotas refused ListServiceQuotas ({code}: {message}); grant {PERMISSION} to these "
            "credentials to read the account's SageMaker quotas",
            code,
        )
    return QuotaReadError(f"Service Quotas refused ListServiceQuotas ({code}: {message})", code)
