"""The model registry, checked before a run of a fleet with ``register:`` (docs/guides/model-registry.md#iam).

Read-only probes with the caller's credentials, for each group pattern (the first city of each): the group
(DescribeModelPackageGroup: it exists, or is made at the first run) and its listing (ListModelPackages). A call
refused with AccessDenied is a WARNING naming the permission the ``register_models`` task needs; what cannot be
probed without creating anything (CreateModelPackageGroup, CreateModelPackage, UpdateModelPackage) is a NOTE with
the actions of :func:`sagemaker_fleet.registry.permissions.registry_permissions`. The caller is often not the
Airflow principal: the policy in docs/guides/aws.md is the reference.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from sagemaker_fleet.jobs.errors import error_code, error_message
from sagemaker_fleet.jobs.statuses import ACCESS_DENIED_CODES
from sagemaker_fleet.preflight.findings import Finding
from sagemaker_fleet.registry.permissions import registry_permissions

if TYPE_CHECKING:
    from sagemaker_fleet.fleetspec.model import FleetSpec


def registry_findings(sagemaker: Any, spec: FleetSpec) -> list[Finding]:
    """What the caller may do in the fleet's model package groups (none for a spec without ``register:``)."""
    first: dict[str, str] = {}  # group pattern -> its first city's group
    for city in spec.cities:
        if city.register is not None:
            first.setdefault(city.register.group, city.register.group_name(spec.fleet, city.name))
    findings = []
    for pattern, group in first.items():
        subject = f"registry {group}"
        findings.append(
            _probe(
                subject,
                group,
                lambda g=group: sagemaker.describe_model_package_group(ModelPackageGroupName=g),
                "sagemaker:DescribeModelPackageGroup",
            )
        )
        listed = _probe(
            subject,
            group,
            lambda g=group: sagemaker.list_model_packages(ModelPackageGroupName=g, MaxResults=1),
            "sagemaker:ListModelPackages",
        )
        if listed.level != "OK":
            findings.append(listed)
        actions = sorted({a for p in registry_permissions(pattern, spec.fleet) for a in p.actions})
        findings.append(
            Finding(
                "NOTE",
                subject,
                "register_models also creates groups and packages and writes their approval: its principal needs "
                + ", ".join(actions)
                + " (not probed: they would create)",
            )
        )
    return findings


def _probe(subject: str, group: str, call: Any, permission: str) -> Finding:
    try:
        answer = call()
    except Exception as exc:
        code = error_code(exc)
        if not code:
            raise
        if code in ACCESS_DENIED_CODES:
            return Finding("WARNING", subject, f"not checked: {code} — register_models needs {permission}")
        if "does not exist" in error_message(exc).lower():
            return Finding(
                "OK", subject, f"no group {group} yet: the first run makes it (and its city's others)"
            )
        return Finding("WARNING", subject, f"not checked: {code}: {error_message(exc)}")
    status = answer.get("ModelPackageGroupStatus") if isinstance(answer, dict) else None
    return Finding("OK", subject, f"group {group} exists ({status})" if status else "readable")
