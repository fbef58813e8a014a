"""The quotas a run plans and dispatches within: the spec's and the account's together (pure).

A spec's ``quotas:`` is what its author believes the account allows; Service Quotas says what it does. A DAG run
reads the account (``PlanFleetOperator``) and plans with, per instance type the spec uses:

- the spec has a ``quotas:`` block: the lower of the two, field by field (a spec may ask a fleet to use less than
  the account has; it can never get more) — with a warning where the account allows less than the spec says, and
  a note where it allows more;
- the spec has none: the account's (the spec's assumed default otherwise), with a note that says what to write;
- the account lists no quota for the type: the spec's, with a warning.

A warm-pool quota of 0 gets a warning of its own: AWS then keeps no pool and says nothing, so every start is cold.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Literal

from sagemaker_fleet.fleetspec.model import InstanceQuota

if TYPE_CHECKING:
    from sagemaker_fleet.fleetspec.model import FleetSpec


@dataclass(frozen=True)
class QuotaNote:
    """One line for the plan task's log: ``warning`` when the run gets less than its author expects."""

    level: Literal["warning", "info"]
    text: str


def _lower(spec: int | None, account: int | None) -> int | None:
    if spec is None or account is None:
        return spec if account is None else account
    return min(spec, account)


def _differences(itype: str, declared: InstanceQuota, account: InstanceQuota) -> list[QuotaNote]:
    notes: list[QuotaNote] = []
    fields = (
        ("instances", declared.instances, account.instances),
        ("warm_pools", declared.warm_pools, account.warm_pools),
        ("spot_instances", declared.spot_instances, account.spot_instances),
    )
    for name, said, allowed in fields:
        if said is None or allowed is None or said == allowed:
            continue
        if allowed < said:
            text = f"quotas.{itype}.{name}: the spec says {said}, the account allows {allowed}: planning with {allowed}"
            notes.append(QuotaNote("warning", text + f" (set it to {allowed} in the spec)"))
        else:
            text = f"quotas.{itype}.{name}: the spec says {said}, the account allows {allowed}: planning with {said}"
            notes.append(QuotaNote("info", text))
    return notes


def effective_quotas(
    spec: FleetSpec, account: Mapping[str, InstanceQuota]
) -> tuple[FleetSpec, list[QuotaNote]]:
    """``spec`` with the quotas the run keeps to (see the module docstring), and what to log about them."""
    quotas: dict[str, InstanceQuota] = dict(spec.quotas)
    notes: list[QuotaNote] = []
    for itype in spec.instance_types:
        have = account.get(itype)
        declared = spec.quotas.get(itype) if spec.quotas_given else None
        if have is None:
            notes.append(
                QuotaNote(
                    "warning",
                    f"quotas.{itype}: Service Quotas lists no training quota for it in {spec.region}; planning "
                    "with the spec's",
                )
            )
            continue
        if declared is None:
            quotas[itype] = have
            notes.append(
                QuotaNote(
                    "info",
                    f"quotas.{itype}: none in the spec; the account's: {have.instances} instances, "
                    f"{have.warm_pools} warm pools"
                    + ("" if have.spot_instances is None else f", {have.spot_instances} spot instances"),
                )
            )
        else:
            quotas[itype] = InstanceQuota(
                instances=min(declared.instances, have.instances),
                warm_pools=min(declared.warm_pools, have.warm_pools),
                spot_instances=declared.spot_instances
                if declared.spot_instances is None
                else _lower(declared.spot_instances, have.spot_instances),
            )
            notes += _differences(itype, declared, have)
        if quotas[itype].warm_pools == 0 and have.warm_pools == 0:
            notes.append(
                QuotaNote(
                    "warning",
                    f"quotas.{itype}: the account's warm-pool quota is 0: AWS keeps no pool, so every job of this "
                    f"type starts cold; request '{itype} for training warm pool usage' in Service Quotas",
                )
            )
    return dataclasses.replace(spec, quotas=quotas), notes
