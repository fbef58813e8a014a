"""The dispatch book: each city's turn in its warm-pool group, read from the run's plan (pure).

A group of N jobs with width W (the plan's peak of simultaneous lanes) starts its first W cities at once; the
k-th city in planned order starts once k − W + 1 of the group's cities have ended, so whichever job ends first
hands its warm pool to the next city — the plan's order, not its fixed lanes, which is what holds up when real
durations differ from the expected ones. As any job may be the one that ends first, every job of a group with
successors keeps its pool; those nobody takes over are ended as soon as no city of the group waits.

A warm-pool group may also start only as many jobs cold as the plan does (``cold_starts``): once those are used,
its other cities wait for a pool of the group instead of starting cold on an instance a job without a pool freed
(:meth:`RunTracker.admit`). The plan spends its cold starts where they shorten the run; starting more of them
only because a job ended early takes cities away from the warm pools, which then end with nobody to take them.

Each turn also carries the city's training image and its successor on the plan's lane: a pool freed by a job with
image X goes to a waiting city with image X where one is near its turn (:meth:`RunTracker.admit`), so the plan's
image order survives durations that differ from the plan's.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import TYPE_CHECKING, Literal

from sagemaker_fleet.fleetspec.model import KEEP_ALIVE_GUIDE_MAX

if TYPE_CHECKING:
    from sagemaker_fleet.fleetspec.model import CitySpec, FleetSpec, InstanceQuota, SharingSettings
    from sagemaker_fleet.jobs.keys import WarmPoolKey
    from sagemaker_fleet.plan.fleet_plan import FleetPlan

#: The account quota a job draws instances from: (instance type, "instances" | "spot_instances").
QuotaKey = tuple[str, Literal["instances", "spot_instances"]]


@dataclass(frozen=True)
class Turn:
    """One city's place in the run: its group, its rank there (planned start order) and its keep-alive."""

    city: str
    group: str
    rank: int
    order: int  # position in the whole run's planned start order
    keep_alive_seconds: int
    instance_type: str
    instance_count: int
    quota: QuotaKey
    spot: bool
    warm_pool: bool
    spot_attempts: int = 0  # a spot city's attempts on spot; later ones are its on-demand fallback
    image: str = ""  # the training image (no matching criterion: a pool's next job with another one pulls it)
    successor: str | None = None  # the next city on the plan's lane (planned to take this job's pool)
    #: the keep-alive is the planner's to choose (an on-demand city of a warm-pool group, no keep_alive of its own)
    automatic_keep_alive: bool = False

    def quota_for(self, attempt: int) -> QuotaKey:
        """The quota the city's ``attempt``-th submission draws on (its on-demand fallback uses ``instances``)."""
        if self.spot and attempt <= self.spot_attempts:
            return self.quota
        return (self.instance_type, "instances")


def quota_key(
    spec: FleetSpec,
    city: CitySpec,
    spot: bool | None = None,
    quotas: Mapping[str, InstanceQuota] | None = None,
) -> QuotaKey:
    """Spot jobs draw on ``spot_instances`` when the quotas (``quotas``, else the spec's) give it, every other job
    on ``instances``."""
    use_spot = city.spot is not None if spot is None else spot
    quota = (spec.quotas if quotas is None else quotas).get(city.instance_type)
    if use_spot and quota is not None and quota.spot_instances is not None:
        return (city.instance_type, "spot_instances")
    return (city.instance_type, "instances")


def peak_lanes(plan: FleetPlan, group: str) -> int:
    """How many of a group's lanes run at the same moment in the plan. Lanes that take turns on the same
    instances (planned one after the other) must not run side by side, so this, not the lane count, is the
    group's width."""
    edges: list[tuple[int, int]] = []
    for lane in plan.lanes:
        if lane.group == group and lane.jobs:
            edges += [(lane.start_seconds, 1), (lane.end_seconds, -1)]
    running = peak = 0
    for _, step in sorted(edges):  # an end sorts before a start at the same second
        running += step
        peak = max(peak, running)
    return max(1, peak)


def handoff_keep_alive(plan: FleetPlan, spec: FleetSpec) -> int:
    """Keep-alive for a pool handed to whichever job of the group starts next: the plan's longest automatic
    keep-alive, or the orchestration latency plus a minute when the plan has none."""
    planned = [job.keep_alive_seconds for job in plan.jobs if job.keep_alive_seconds > 0]
    fallback = spec.orchestration_latency_seconds + 60
    return min(KEEP_ALIVE_GUIDE_MAX, max(planned, default=fallback))


def _above(plan: FleetPlan, capacity: Mapping[QuotaKey, int]) -> dict[QuotaKey, int]:
    """The account's quotas the plan carries (:attr:`FleetPlan.account_quotas`) where they are above ``capacity``."""
    above: dict[QuotaKey, int] = {}
    for itype, quota in plan.account_quotas.items():
        pools: tuple[tuple[QuotaKey, int | None], ...] = (
            ((itype, "instances"), quota.instances),
            ((itype, "spot_instances"), quota.spot_instances),
        )
        for pool, limit in pools:
            if pool in capacity and limit is not None and limit > capacity[pool]:
                above[pool] = limit
    return above


@dataclass(frozen=True)
class DispatchBook:
    """Turns by city, widths and ranked members by group, the instance quotas (None: not given), per warm-pool
    group the plan's cold starts (a group not listed may start any number of jobs cold) and its matching key (the
    pools of another run with that key are the group's too: :class:`~sagemaker_fleet.dispatch.account.AccountView`)."""

    turns: Mapping[str, Turn]
    widths: Mapping[str, int]
    members: Mapping[str, tuple[str, ...]]
    capacity: Mapping[QuotaKey, int]
    cold_starts: Mapping[str, int] = field(default_factory=lambda: MappingProxyType({}))
    keys: Mapping[str, WarmPoolKey] = field(default_factory=lambda: MappingProxyType({}))
    fleet: str = ""
    run_key: str = ""
    #: the fleet's ``sharing`` (None: it takes no part in shares; :mod:`sagemaker_fleet.dispatch.board`)
    sharing: SharingSettings | None = None
    #: the account's quotas where the run read them above :attr:`capacity`: everyone's jobs together keep to these,
    #: the run's own to :attr:`capacity` (a fleet's cap within the account); elsewhere :attr:`capacity` is both
    account: Mapping[QuotaKey, int] = field(default_factory=lambda: MappingProxyType({}))

    def account_limit(self, pool: QuotaKey) -> int | None:
        """The account's quota ``pool`` as the run knows it: what all jobs of the account together keep to."""
        limit = self.capacity.get(pool)
        return self.account.get(pool, limit) if limit is not None else None

    @classmethod
    def from_plan(cls, plan: FleetPlan, spec: FleetSpec) -> DispatchBook:
        explicit = {city.name for city in spec.cities if city.keep_alive is not None}
        handoff = handoff_keep_alive(plan, spec)
        ordered = sorted(plan.jobs, key=lambda j: (j.planned_start_seconds, j.lane, j.position))
        members: dict[str, list[str]] = {group.group: [] for group in plan.groups}
        for job in ordered:
            members[job.group].append(job.city)
        widths = {
            group.group: min(peak_lanes(plan, group.group), len(members[group.group]) or 1)
            for group in plan.groups
        }
        turns: dict[str, Turn] = {}
        for order, job in enumerate(ordered):
            group = plan.group(job.group)
            city = spec.city(job.city)
            rank = members[job.group].index(job.city)
            successors = len(members[job.group]) - widths[job.group]
            following = plan.successor(job.city)
            if job.city in explicit or group.spot or not group.warm_pool:
                keep = job.keep_alive_seconds
            else:
                # any job of the group may end first and hand its pool on; the pools left idle once no city of
                # the group is waiting are ended by the poller (RunTracker.surplus_pools), not left to expire
                keep = (job.keep_alive_seconds or handoff) if successors > 0 else 0
            turns[job.city] = Turn(
                city=job.city,
                group=job.group,
                rank=rank,
                order=order,
                keep_alive_seconds=keep,
                instance_type=city.instance_type,
                instance_count=city.instance_count,
                quota=quota_key(spec, city, group.spot, plan.quotas or None),
                spot=group.spot,
                warm_pool=group.warm_pool,
                spot_attempts=city.spot.max_attempts if group.spot and city.spot is not None else 0,
                image=city.image_uri,
                successor=following.city if following is not None else None,
                automatic_keep_alive=group.warm_pool and not group.spot and job.city not in explicit,
            )
        capacity: dict[QuotaKey, int] = {}
        for itype, quota in (plan.quotas or spec.quotas).items():  # what the plan was laid out within
            capacity[(itype, "instances")] = quota.instances
            if quota.spot_instances is not None:
                capacity[(itype, "spot_instances")] = quota.spot_instances
        cold: dict[str, int] = {}
        for job in plan.jobs:
            group = plan.group(job.group)
            if group.warm_pool and not group.spot:
                cold[job.group] = cold.get(job.group, 0) + (job.start == "cold")
        return cls(
            turns=MappingProxyType(turns),
            widths=MappingProxyType(widths),
            members=MappingProxyType({g: tuple(cities) for g, cities in members.items()}),
            capacity=MappingProxyType(capacity),
            cold_starts=MappingProxyType(cold),
            keys=MappingProxyType({g.group: g.key for g in plan.groups if g.warm_pool and not g.spot}),
            fleet=spec.fleet,
            run_key=plan.run_key,
            sharing=spec.sharing,
            account=MappingProxyType(_above(plan, capacity)),
        )

    @classmethod
    def empty(cls) -> DispatchBook:
        """No plan: every city starts as soon as it asks (a task used on its own, outside a fleet DAG)."""
        return cls(MappingProxyType({}), MappingProxyType({}), MappingProxyType({}), MappingProxyType({}))
