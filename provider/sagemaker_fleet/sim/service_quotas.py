"""Service Quotas for ServiceCode ``sagemaker``, answered from the simulator's own quotas: what
``sagemaker-fleet preflight`` and ``aws service-quotas list-service-quotas --service-code sagemaker`` read.

Per instance type, the three training quotas under the names AWS gives them (``jobs/service_quotas.py``), valued as
the engine enforces them (:meth:`SimConfig.quota`): the training-instance quota, the warm-pool quota, and the spot
quota — the instance quota itself when spot shares it. Every SageMaker training instance type is listed, as AWS
lists every type; a type given no quota shows the limit the engine really applies to it (``default_quota``, or a
limit so large it never binds). Quota codes are ``L-`` and eight hex digits of a hash of the quota's name: stable
across runs and processes, as AWS's are. Pages hold at most 100 quotas (``MaxResults``); ``NextToken`` is the
offset of the next page.

Other service codes: ListServiceQuotas answers NoSuchResourceException, as AWS does for a service it does not
know (GetServiceQuota for them is left to moto, which knows a few).
"""

from __future__ import annotations

import base64
import binascii
import hashlib
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from sagemaker_fleet.fleetspec.instance_types import training_instance_types
from sagemaker_fleet.jobs.service_quotas import PAGE_MAX, QUOTA_KINDS, SERVICE_CODE, QuotaKind, quota_name
from sagemaker_fleet.sim.errors import SimApiError

if TYPE_CHECKING:
    from sagemaker_fleet.sim.config import SimConfig

#: botocore's target prefix of the Service Quotas API (JSON 1.1).
TARGET_PREFIX = "ServiceQuotasV20190624."
#: The operations answered here; every other Service Quotas operation goes to moto.
OPERATIONS = frozenset({"ListServiceQuotas", "GetServiceQuota"})
SERVICE_NAME = "Amazon SageMaker"

_DESCRIPTIONS: dict[QuotaKind, str] = {
    "instances": "The maximum number of {} instances in training jobs and warm pools at once.",
    "warm_pools": "The maximum number of {} instances kept in warm pools at once.",
    "spot_instances": "The maximum number of {} instances in managed spot training jobs at once.",
}


def quota_code(name: str) -> str:
    """``L-`` and eight hex digits of the name's SHA-256: the same code for the same quota, always."""
    return "L-" + hashlib.sha256(name.encode()).hexdigest()[:8].upper()


def _value(config: SimConfig, instance_type: str, kind: QuotaKind) -> int:
    quota = config.quota(instance_type)
    if kind == "warm_pools":
        return quota.warm_pools
    if kind == "spot_instances" and quota.spot_instances is not None:
        return quota.spot_instances
    return quota.instances


def sagemaker_quotas(config: SimConfig) -> list[dict[str, Any]]:
    """Every training quota of every instance type (training types and any configured one), by type then kind."""
    rows = []
    for instance_type in sorted(training_instance_types() | set(config.quotas)):
        for kind in QUOTA_KINDS:
            name = quota_name(instance_type, kind)
            code = quota_code(name)
            rows.append(
                {
                    "ServiceCode": SERVICE_CODE,
                    "ServiceName": SERVICE_NAME,
                    "QuotaArn": f"arn:aws:servicequotas:{config.region}:{config.account_id}:{SERVICE_CODE}/{code}",
                    "QuotaCode": code,
                    "QuotaName": name,
                    "Value": float(_value(config, instance_type, kind)),
                    "Unit": "None",
                    "Adjustable": True,
                    "GlobalQuota": False,
                    "QuotaAppliedAtLevel": "ACCOUNT",
                    "Description": _DESCRIPTIONS[kind].format(instance_type),
                }
            )
    return rows


def no_such_service(service_code: object) -> SimApiError:
    return SimApiError(
        "NoSuchResourceException",
        f"The request failed because the specified service does not exist: {service_code}. The simulator lists "
        f"the quotas of service code {SERVICE_CODE} only.",
    )


def _token(offset: int) -> str:
    return base64.b64encode(f"sim-quotas:{offset}".encode()).decode()


def _offset(token: str, total: int) -> int:
    try:
        prefix, _, number = base64.b64decode(token, validate=True).decode().partition(":")
        offset = int(number)
    except (binascii.Error, UnicodeDecodeError, ValueError):
        offset = -1
        prefix = ""
    if prefix != "sim-quotas" or not 0 < offset <= total:
        raise SimApiError("InvalidPaginationTokenException", "Invalid pagination token.")
    return offset


def list_service_quotas(config: SimConfig, params: Mapping[str, Any]) -> dict[str, Any]:
    """ListServiceQuotas: a page of the sagemaker quotas, filtered by ``QuotaCode`` and ``QuotaAppliedAtLevel``."""
    if params.get("ServiceCode") != SERVICE_CODE:
        raise no_such_service(params.get("ServiceCode"))
    rows = sagemaker_quotas(config)
    if params.get("QuotaAppliedAtLevel") == "RESOURCE":  # the simulator's quotas are all the account's
        rows = []
    if params.get("QuotaCode"):
        rows = [row for row in rows if row["QuotaCode"] == params["QuotaCode"]]
    size = int(params.get("MaxResults") or PAGE_MAX)
    start = _offset(str(params["NextToken"]), len(rows)) if params.get("NextToken") else 0
    page: dict[str, Any] = {"Quotas": rows[start : start + size]}
    if start + size < len(rows):
        page["NextToken"] = _token(start + size)
    return page


def get_service_quota(config: SimConfig, params: Mapping[str, Any]) -> dict[str, Any]:
    """GetServiceQuota of one sagemaker quota by its code."""
    for row in sagemaker_quotas(config):
        if row["QuotaCode"] == params.get("QuotaCode"):
            return {"Quota": row}
    raise SimApiError(
        "NoSuchResourceException",
        f"The request failed because the specified service quota does not exist: {params.get('QuotaCode')} "
        f"(service code {SERVICE_CODE}). List the codes with ListServiceQuotas.",
    )
