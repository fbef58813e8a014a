"""SageMaker's training quotas in Service Quotas (ServiceCode ``sagemaker``): their names, and the account's quotas
per instance type read from a ListServiceQuotas listing (pure: the listing itself is made by
``sagemaker_fleet.preflight.quotas``; the simulator answers with these same names).

Three quotas per instance type bound a fleet (docs/guides/aws.md, quotas to request), each one field of
:class:`~sagemaker_fleet.fleetspec.model.InstanceQuota`:

- ``<type> for training job usage``: instances of the type in training jobs and warm pools at once (``instances``);
- ``<type> for training warm pool usage``: instances kept in warm pools (``warm_pools``; AWS's default is 0);
- ``<type> for spot training job usage``: instances in managed spot training jobs (``spot_instances``).

Names are matched without regard to case or repeated spaces: the console and the API have spelt them with other
capitals over the years.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping
from typing import Any, Literal

from sagemaker_fleet.fleetspec.model import InstanceQuota

#: Service Quotas' code for SageMaker (``aws service-quotas list-service-quotas --service-code sagemaker``).
SERVICE_CODE = "sagemaker"
#: The largest page ListServiceQuotas returns: what the account's reader asks for, and the simulator's page.
PAGE_MAX = 100

QuotaKind = Literal["instances", "warm_pools", "spot_instances"]
QUOTA_KINDS: tuple[QuotaKind, ...] = ("instances", "warm_pools", "spot_instances")

#: What follows the instance type in each quota's name.
_SUFFIXES: dict[QuotaKind, str] = {
    "instances": "for training job usage",
    "warm_pools": "for training warm pool usage",
    "spot_instances": "for spot training job usage",
}
_KIND_OF_SUFFIX = {suffix: kind for kind, suffix in _SUFFIXES.items()}


def quota_name(instance_type: str, kind: QuotaKind) -> str:
    """``ml.m5.xlarge for training warm pool usage``: the Service Quotas name of one quota of a type."""
    return f"{instance_type} {_SUFFIXES[kind]}"


def parse_quota_name(name: str) -> tuple[str, QuotaKind] | None:
    """``(instance type, kind)`` of a training quota's name (the type in lower case), or None for any other quota
    (endpoint, notebook, processing quotas …)."""
    words = name.strip().lower().split()
    for suffix, kind in _KIND_OF_SUFFIX.items():
        tail = suffix.split()
        if len(words) == len(tail) + 1 and words[1:] == tail:
            return words[0], kind
    return None


def _count(value: Any) -> int | None:
    """A quota's ``Value`` (a float: ``20.0``) as a count of instances; None when it is no usable number."""
    if isinstance(value, bool) or not isinstance(value, int | float) or not math.isfinite(value):
        return None
    return max(0, int(value))


def account_quotas(
    rows: Iterable[Mapping[str, Any]], instance_types: Iterable[str]
) -> dict[str, InstanceQuota]:
    """The account's quotas of each of ``instance_types`` from the ``Quotas`` of ListServiceQuotas pages.

    A type with no training-instance quota listed is left out (the account has none for it: not offered in the
    region, or not yet listed). A type listed without a warm-pool quota gets 0 warm pools — AWS's default, and
    what a missing quota means in effect: no pool is kept. Without a spot quota, ``spot_instances`` stays None
    (the spec's meaning: spot shares ``instances``). Resource-level quotas are skipped; the first account-level
    value of a name counts. Keys are the types as given."""
    wanted = {instance_type.lower(): instance_type for instance_type in instance_types}
    found: dict[str, dict[QuotaKind, int]] = {}
    for row in rows:
        if row.get("QuotaAppliedAtLevel") == "RESOURCE":
            continue
        parsed = parse_quota_name(str(row.get("QuotaName") or ""))
        count = _count(row.get("Value"))
        if parsed is None or count is None or parsed[0] not in wanted:
            continue
        found.setdefault(parsed[0], {}).setdefault(parsed[1], count)
    return {
        wanted[lowered]: InstanceQuota(
            instances=values["instances"],
            warm_pools=values.get("warm_pools", 0),
            spot_instances=values.get("spot_instances"),
        )
        for lowered, values in found.items()
        if "instances" in values
    }
