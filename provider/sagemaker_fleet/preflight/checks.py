"""Every preflight check of one fleet spec and its plan, in the order they print (``sagemaker-fleet preflight``).

The caller's identity first (STS GetCallerIdentity: it needs no permission, so it is also the test that the
credentials and the endpoint work; its errors are the caller's to report), then the quotas, the roles, the
output bucket, the account's board (listed only), the cities' data, the images and, for a fleet with ``register:``,
the model registry.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from sagemaker_fleet.preflight.findings import Finding
from sagemaker_fleet.preflight.quota_checks import quota_findings
from sagemaker_fleet.preflight.quotas import QuotaReadError, read_account_quotas
from sagemaker_fleet.preflight.registry_checks import registry_findings
from sagemaker_fleet.preflight.resources import (
    board_findings,
    data_findings,
    image_findings,
    output_findings,
    role_findings,
)
from sagemaker_fleet.preflight.targets import cities_by

if TYPE_CHECKING:
    from sagemaker_fleet.fleetspec.model import FleetSpec
    from sagemaker_fleet.plan import FleetPlan


@dataclass(frozen=True)
class AccountClients:
    """The boto3 clients the checks use (``ecr`` gives a client of a region: an image may live in another one)."""

    sts: Any
    service_quotas: Any
    iam: Any
    s3: Any
    ecr: Callable[[str], Any]
    #: the model registry's probes of a fleet with ``register:`` (None: not checked)
    sagemaker: Any = None


def preflight(spec: FleetSpec, plan: FleetPlan, clients: AccountClients) -> list[Finding]:
    """The findings for ``spec`` (planned as ``plan``) in the account ``clients`` reach."""
    identity = clients.sts.get_caller_identity()
    findings = [
        Finding("OK", "account", f"{identity.get('Account')} in {spec.region}, as {identity.get('Arn')}")
    ]
    try:
        account = read_account_quotas(clients.service_quotas, spec.instance_types)
    except QuotaReadError as exc:
        findings.append(Finding("WARNING", "quotas", f"not checked: {exc}"))
    else:
        findings += quota_findings(spec, plan, account)
    findings += role_findings(clients.iam, cities_by(spec, lambda city: city.role_arn))
    output = output_findings(clients.s3, spec.output_s3_uri, spec.region)
    findings += output
    if not any(
        finding.level == "ERROR" for finding in output
    ):  # else the default board's bucket is missing too
        findings += board_findings(clients.s3, spec.sharing)
    findings += data_findings(
        clients.s3, {city.name: city.train_s3_uri for city in spec.cities if city.train_s3_uri}
    )
    findings += image_findings(clients.ecr, cities_by(spec, lambda city: city.image_uri))
    if clients.sagemaker is not None:
        findings += registry_findings(clients.sagemaker, spec)
    return findings
