"""Account quotas per instance type (docs/sagemaker-behaviour.md, quotas): training instances, warm pools, spot instances.

Instances in warm pools count toward the training-instance limit, as do running on-demand jobs (and spot jobs when
no separate spot quota is set). The warm-pool quota is counted in instances, the unit Service Quotas uses; for
single-instance jobs that is the number of pools.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from sagemaker_fleet.jobs.service_quotas import quota_name
from sagemaker_fleet.sim.errors import SimApiError, resource_limit_exceeded

if TYPE_CHECKING:
    from sagemaker_fleet.fleetspec.model import InstanceQuota


@dataclass
class Usage:
    """Instances in use for one type right now."""

    on_demand: int = 0  # running on-demand jobs that are not on a warm pool
    spot: int = 0
    pooled: int = 0  # instances of warm pools (Available or InUse)


class QuotaBook:
    """Limits (read through ``limit_of``, so admin changes apply at once) and live usage counters."""

    def __init__(self, limit_of: Callable[[str], InstanceQuota]) -> None:
        self._limit_of = limit_of
        self._usage: defaultdict[str, Usage] = defaultdict(Usage)

    def usage(self, instance_type: str) -> Usage:
        return self._usage[instance_type]

    def snapshot(self) -> dict[str, Usage]:
        return {itype: Usage(u.on_demand, u.spot, u.pooled) for itype, u in self._usage.items()}

    def instances_in_use(self, instance_type: str) -> int:
        usage = self._usage[instance_type]
        shared_spot = usage.spot if self._limit_of(instance_type).spot_shares_instances else 0
        return usage.on_demand + usage.pooled + shared_spot

    def admit_on_demand(self, instance_type: str, count: int) -> None:
        """Reserve instances for a new on-demand cluster or raise ResourceLimitExceeded."""
        limit = self._limit_of(instance_type).instances
        used = self.instances_in_use(instance_type)
        if used + count > limit:
            raise _limit_error(quota_name(instance_type, "instances"), limit, used, count)
        self._usage[instance_type].on_demand += count

    def admit_spot(self, instance_type: str, count: int) -> None:
        quota = self._limit_of(instance_type)
        if quota.spot_instances is None:
            used = self.instances_in_use(instance_type)
            if used + count > quota.instances:
                raise _limit_error(quota_name(instance_type, "instances"), quota.instances, used, count)
        else:
            used = self._usage[instance_type].spot
            if used + count > quota.spot_instances:
                raise _limit_error(
                    quota_name(instance_type, "spot_instances"), quota.spot_instances, used, count
                )
        self._usage[instance_type].spot += count

    def release_spot(self, instance_type: str, count: int) -> None:
        self._usage[instance_type].spot -= count

    def release_on_demand(self, instance_type: str, count: int) -> None:
        self._usage[instance_type].on_demand -= count

    def may_keep_pool(self, instance_type: str, count: int) -> bool:
        return self._usage[instance_type].pooled + count <= self._limit_of(instance_type).warm_pools

    def pool_created(self, instance_type: str, count: int) -> None:
        """A finished on-demand job's cluster stays as a warm pool: its instances move from running to pooled."""
        usage = self._usage[instance_type]
        usage.on_demand -= count
        usage.pooled += count

    def pool_terminated(self, instance_type: str, count: int) -> None:
        self._usage[instance_type].pooled -= count


def _limit_error(name: str, limit: int, used: int, delta: int) -> SimApiError:
    return resource_limit_exceeded(
        f"The account-level service limit '{name}' is {limit} Instances, with current utilization of "
        f"{used} Instances and a request delta of {delta} Instances. Please use AWS Service Quotas to request an "
        "increase for this quota. If AWS Service Quotas is not available, contact AWS support to request an "
        "increase for this quota."
    )
