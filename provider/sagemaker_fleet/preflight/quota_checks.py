"""The account's quotas against what the plan holds at once and what the spec's ``quotas:`` says (pure).

Per instance type the plan uses, one finding for each quota (instances, warm pools, spot instances). The plan
holds at most ``summary.quota_request`` at one instant (on-demand instances with the pools they keep, the pool
instances alone, the spot instances). Where the account and the spec differ, the lower figure is what a run gets:
the spec's because the dispatch never asks for more, the account's because AWS refuses more.

- An instance or spot quota of 0 where the plan needs some is an ERROR: those cities cannot start at all.
- A warm-pool quota of 0 where the plan keeps pools is the loudest WARNING: AWS raises no error, the job runs and
  simply keeps no pool, so every start is cold and nothing says why. Below the plan's pools, some starts are cold.
- An instance or spot quota below the plan's peak: creates past it fail with ResourceLimitExceeded and those
  cities wait and retry (the run is longer than planned).
- The spec above the account: the plan lays out what AWS will not give (fix ``quotas:``). The spec below the
  account: fine, the plan uses the spec's figure (a NOTE says more is there).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING

from sagemaker_fleet.fleetspec.render import some_names
from sagemaker_fleet.jobs.service_quotas import QuotaKind, quota_name
from sagemaker_fleet.preflight.findings import Finding

if TYPE_CHECKING:
    from sagemaker_fleet.fleetspec.model import FleetSpec, InstanceQuota
    from sagemaker_fleet.plan import FleetPlan
    from sagemaker_fleet.plan.model import QuotaRequest

_WORDS: dict[QuotaKind, str] = {
    "instances": "instances",
    "warm_pools": "warm pools",
    "spot_instances": "spot instances",
}


def quota_findings(spec: FleetSpec, plan: FleetPlan, account: Mapping[str, InstanceQuota]) -> list[Finding]:
    """Findings for every instance type of ``plan`` against the ``account``'s quotas (read_account_quotas)."""
    findings: list[Finding] = []
    for request in plan.summary.quota_request:
        itype = request.instance_type
        have = account.get(itype)
        if have is None:
            findings.append(
                Finding(
                    "WARNING",
                    f"quota {itype}",
                    f"Service Quotas lists no '{quota_name(itype, 'instances')}' in {spec.region}: the type may "
                    "not be offered for training there; check the console (Service Quotas → Amazon SageMaker)",
                )
            )
            continue
        findings += _type_findings(spec, request, have)
    if not spec.quotas_given and account:
        written = ", ".join(
            f"{itype}: {{instances: {q.instances}, warm_pools: {q.warm_pools}"
            + ("" if q.spot_instances is None else f", spot_instances: {q.spot_instances}")
            + "}"
            for itype, q in sorted(account.items())
        )
        findings.append(
            Finding(
                "NOTE",
                "quotas",
                "the spec has no quotas: block, so the plan assumed its defaults; write the account's: "
                f"quotas: {{{written}}}",
            )
        )
    return findings


def _type_findings(spec: FleetSpec, request: QuotaRequest, have: InstanceQuota) -> list[Finding]:
    itype = request.instance_type
    declared = spec.quotas.get(itype) if spec.quotas_given else None
    on_demand = [c.name for c in spec.cities if c.instance_type == itype and c.spot is None]
    spot = [c.name for c in spec.cities if c.instance_type == itype and c.spot is not None]
    findings = [
        _instances(
            itype,
            request.instances,
            None if declared is None else declared.instances,
            have.instances,
            on_demand,
        ),
        _warm_pools(
            itype, request.warm_pools, None if declared is None else declared.warm_pools, have.warm_pools
        ),
    ]
    if spot or (declared is not None and declared.spot_instances is not None):
        account_spot = have.instances if have.spot_instances is None else have.spot_instances
        spec_spot = None if declared is None else declared.spot_instances
        findings.append(_spot(itype, request.spot_instances, spec_spot, account_spot, spot))
    return findings


def _compare(itype: str, kind: QuotaKind, need: int, declared: int | None, allowed: int) -> Finding:
    """The finding when the account does not fall short of the plan: the spec against the account."""
    subject = f"quota {itype} {_WORDS[kind]}"
    peak = f"the plan holds at most {need} at once"
    if declared is not None and allowed < declared:
        return Finding(
            "WARNING",
            subject,
            f"the spec says {declared}, the account allows {allowed}: the lower wins. This plan fits ({peak}), "
            f"but set quotas.{itype}.{kind} to {allowed} so that the plan lays out only what AWS gives",
        )
    if declared is not None and declared < allowed:
        return Finding(
            "NOTE",
            subject,
            f"the account allows {allowed}, the spec says {declared}: the lower wins, so the plan uses {declared} "
            f"({peak}); raise quotas.{itype}.{kind} to use more",
        )
    return Finding("OK", subject, f"the account allows {allowed}; {peak}")


def _instances(itype: str, need: int, declared: int | None, allowed: int, cities: Sequence[str]) -> Finding:
    subject = f"quota {itype} instances"
    name = quota_name(itype, "instances")
    if need > 0 and allowed == 0:
        return Finding(
            "ERROR",
            subject,
            f"the account allows 0 (Service Quotas '{name}'): no on-demand job of {some_names(cities)} can start; "
            f"request at least {need}",
        )
    if allowed < need:
        return Finding(
            "WARNING",
            subject,
            f"the plan holds up to {need} at once, the account allows {allowed}: the lower wins — past {allowed}, "
            f"CreateTrainingJob fails with ResourceLimitExceeded and cities wait their turn, so the run takes longer "
            f"than planned; set quotas.{itype}.instances to {allowed} and plan again, or request {need} ('{name}')",
        )
    return _compare(itype, "instances", need, declared, allowed)


def _warm_pools(itype: str, need: int, declared: int | None, allowed: int) -> Finding:
    subject = f"quota {itype} warm pools"
    name = quota_name(itype, "warm_pools")
    if need > 0 and allowed == 0:
        return Finding(
            "WARNING",
            subject,
            f"NO WARM POOLS — the account's '{name}' is 0, and the plan keeps up to {need} pool instances at "
            "once. AWS raises no error: each job runs and keeps no pool, so EVERY START IS COLD and the run is "
            f"longer and costlier than planned. Request at least {need}, or set quotas.{itype}.warm_pools to 0 "
            "so that the plan says so",
        )
    if allowed < need:
        return Finding(
            "WARNING",
            subject,
            f"the plan keeps up to {need} pool instances at once, the account allows {allowed}: past {allowed} AWS "
            f"silently keeps no pool and the next job of that lane starts cold; request {need} ('{name}') or set "
            f"quotas.{itype}.warm_pools to {allowed}",
        )
    if need == 0 and allowed == 0:
        return Finding(
            "NOTE",
            subject,
            f"the account's '{name}' is 0 and the plan keeps no pool: every start of {itype} is cold; request "
            "warm pools to reuse instances between jobs",
        )
    return _compare(itype, "warm_pools", need, declared, allowed)


def _spot(itype: str, need: int, declared: int | None, allowed: int, cities: Sequence[str]) -> Finding:
    subject = f"quota {itype} spot instances"
    name = quota_name(itype, "spot_instances")
    if need > 0 and allowed == 0:
        return Finding(
            "ERROR",
            subject,
            f"the account allows 0 (Service Quotas '{name}'): no spot job of {some_names(cities)} can start; "
            f"request at least {need}",
        )
    if allowed < need:
        return Finding(
            "WARNING",
            subject,
            f"the plan holds up to {need} spot instances at once, the account allows {allowed}: the lower wins — "
            f"past it spot creates fail with ResourceLimitExceeded and wait; request {need} ('{name}') or set "
            f"quotas.{itype}.spot_instances to {allowed}",
        )
    return _compare(itype, "spot_instances", need, declared, allowed)
