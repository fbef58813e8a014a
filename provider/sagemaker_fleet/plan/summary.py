"""Totals of a plan, and the two yardsticks it is judged by: its makespan and a lower bound for its lanes.

``makespan_lower_bound_seconds`` is computed per capacity pool (an instance type's on-demand quota; its spot
quota separately when it has one), because lanes cannot take work from another pool; the bound is the largest
of the pools' ``max(longest planned job, ⌈total lane work / parallel lanes⌉)``. A job's planned length is its
start-up as planned (cold or warm) plus its expected training seconds; a lane's work is the span from its first
job's creation to its last job's end (its jobs plus the orchestration gaps between them); *parallel lanes* is the
largest number of the pool's lanes running at one instant — its lane count, unless some lanes follow others on
the same instances (time-sliced), in which case counting both would make the bound meaningless. Lanes whose
jobs use several instances count for that many, in work and in parallel lanes alike (work and parallelism are
measured in instances). It is what a perfect balance of the same work over the same parallelism could reach;
since the pool never has more instances busy than at its peak, the bound never exceeds the planned makespan.

``planned_retained_seconds`` sums the idle seconds of planned warm pools (one pool per lane, not multiplied by
the instance count, like ``ResourceRetainedBillableTimeInSeconds``): the gap until the successor takes the pool
over, or the whole keep-alive when no successor does (an explicit keep-alive on a lane's last job, or one too
short to reach the successor).

``quota_request`` is, per instance type, the most instances the plan holds at one instant: on-demand lanes (with
the pools they keep), the pools alone, and spot lanes. A warm lane holds its instances from its first job's
creation until its last job's keep-alive runs out. These are the Service Quotas the plan needs as laid out.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from sagemaker_fleet.plan.model import Lane, PlanSummary, PoolGroup, QuotaRequest


def lane_retained_seconds(lane: Lane) -> int:
    retained = 0
    for index, job in enumerate(lane.jobs):
        if job.keep_alive_seconds <= 0:
            continue
        successor = lane.jobs[index + 1] if index + 1 < len(lane.jobs) else None
        if successor is not None and successor.start == "warm":
            retained += successor.planned_start_seconds - job.planned_end_seconds
        else:
            retained += job.keep_alive_seconds
    return retained


def peak_instances(spans: Sequence[tuple[int, int, int]]) -> int:
    """The most instances held at one instant by ``(start, end, instances)`` spans (an end frees its instances
    before a start at the same second takes them)."""
    edges = sorted([(start, count) for start, _, count in spans] + [(end, -count) for _, end, count in spans])
    busy = peak = 0
    for _, change in edges:  # at equal times an ending lane (negative) sorts before a starting one
        busy += change
        peak = max(peak, busy)
    return peak


def parallel_lanes(lanes: Sequence[Lane], width: Mapping[str, int]) -> int:
    """The most instances held by lanes busy (between their first job's creation and their last job's end) at
    one instant; ``width`` gives each group's instances per job."""
    return peak_instances([(lane.start_seconds, lane.end_seconds, width[lane.group]) for lane in lanes])


def quota_request(lanes: Sequence[Lane], groups: Sequence[PoolGroup]) -> tuple[QuotaRequest, ...]:
    """Per instance type, the instances the plan holds at its peak (see the module docstring)."""
    by_group = {group.group: group for group in groups}
    spans: dict[str, dict[str, list[tuple[int, int, int]]]] = {}
    for group in groups:
        spans.setdefault(group.key.instance_type, {"instances": [], "warm_pools": [], "spot_instances": []})
    for lane in lanes:
        key = by_group[lane.group].key
        held = spans[key.instance_type]
        if lane.kind == "spot":
            held["spot_instances"].append((lane.start_seconds, lane.end_seconds, key.instance_count))
            continue
        span = (lane.start_seconds, lane.end_seconds + lane.jobs[-1].keep_alive_seconds, key.instance_count)
        held["instances"].append(span)
        if lane.kind == "warm":
            held["warm_pools"].append(span)
    return tuple(
        QuotaRequest(
            instance_type=instance_type,
            instances=peak_instances(held["instances"]),
            warm_pools=peak_instances(held["warm_pools"]),
            spot_instances=peak_instances(held["spot_instances"]),
        )
        for instance_type, held in spans.items()
    )


def _pool_bound(lanes: Sequence[Lane], width: Mapping[str, int]) -> int:
    longest = max(job.planned_seconds for lane in lanes for job in lane.jobs)
    total = sum(lane.busy_seconds * width[lane.group] for lane in lanes)
    return max(longest, -(-total // parallel_lanes(lanes, width)))


def makespan_lower_bound(
    lanes: Sequence[Lane], groups: Sequence[PoolGroup], pool_of_group: Mapping[str, str]
) -> int:
    """``pool_of_group`` names the capacity pool of each group id (lanes of unnamed groups share one)."""
    width = {group.group: group.key.instance_count for group in groups}
    pools: dict[str, list[Lane]] = {}
    for lane in lanes:
        pools.setdefault(pool_of_group.get(lane.group, ""), []).append(lane)
    return max((_pool_bound(members, width) for members in pools.values()), default=0)


def summarize(
    lanes: Sequence[Lane], groups: Sequence[PoolGroup], pool_of_group: Mapping[str, str]
) -> PlanSummary:
    jobs = [job for lane in lanes for job in lane.jobs]
    cold = sum(1 for job in jobs if job.start == "cold")
    kinds = [lane.kind for lane in lanes]
    return PlanSummary(
        jobs=len(jobs),
        lanes=len(lanes),
        cold_starts=cold,
        warm_starts=len(jobs) - cold,
        planned_makespan_seconds=max((lane.end_seconds for lane in lanes), default=0),
        makespan_lower_bound_seconds=makespan_lower_bound(lanes, groups, pool_of_group),
        planned_retained_seconds=sum(lane_retained_seconds(lane) for lane in lanes),
        warm_lanes=kinds.count("warm"),
        cold_lanes=kinds.count("cold"),
        spot_lanes=kinds.count("spot"),
        image_changes=sum(1 for job in jobs if job.image_change),
        quota_request=quota_request(lanes, groups),
    )
