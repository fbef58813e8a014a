"""The plan as a table for people (``sagemaker-fleet plan --format table``): groups, lanes, makespan vs bound."""

from __future__ import annotations

from typing import TYPE_CHECKING

from sagemaker_fleet.jobs.duration_text import duration

if TYPE_CHECKING:
    from sagemaker_fleet.jobs.keys import WarmPoolKey
    from sagemaker_fleet.plan.fleet_plan import FleetPlan
    from sagemaker_fleet.plan.model import Lane, PlannedJob, PoolGroup


def key_summary(key: WarmPoolKey) -> str:
    """The matching key in a few words: instances, role name, volume and whatever else is set."""
    role = key.role_arn.rsplit("/", 1)[-1]
    parts = [f"{key.instance_count} × {key.instance_type}", f"role {role}", f"{key.volume_size_gb} GB"]
    if key.volume_kms_key_id:
        parts.append(f"kms {key.volume_kms_key_id}")
    if key.subnets or key.security_group_ids:
        parts.append(f"vpc {len(key.subnets)} subnet(s)/{len(key.security_group_ids)} sg(s)")
    if key.enable_network_isolation:
        parts.append("network isolation")
    if key.enable_inter_container_traffic_encryption:
        parts.append("traffic encryption")
    return ", ".join(parts)


def _group_line(group: PoolGroup) -> str:
    kind = "spot" if group.spot else ("warm pool" if group.warm_pool else "cold")
    return f"  {group.group:<5} {kind:<9} {group.lanes:>5} {group.jobs:>6}  {key_summary(group.key)}"


def _job_line(job: PlannedJob, width: int) -> str:
    keep = f"keep-alive {job.keep_alive_seconds:>4} s" if job.keep_alive_seconds else "keep-alive    0"
    change = ", image change: pulled again" if job.image_change else ""
    return (
        f"    {job.position:>4}  {job.city:<{width}}  {job.start:<4}  {keep}  "
        f"{job.planned_start_seconds:>7} → {job.planned_end_seconds:>7}  ({job.expected_seconds} s training{change})"
    )


def _lane_lines(lane: Lane) -> list[str]:
    kind = {"warm": "warm pool", "cold": "cold", "spot": "spot"}[lane.kind]
    head = f"  lane {lane.lane} · {lane.group} · {kind} · {lane.start_seconds} s → {lane.end_seconds} s"
    width = max(len(job.city) for job in lane.jobs)
    return [head] + [_job_line(job, width) for job in lane.jobs]


def render_table(plan: FleetPlan) -> str:
    summary = plan.summary
    lines = [
        f"Plan of fleet {plan.fleet}, run {plan.run_key}: {summary.jobs} jobs in {summary.lanes} lanes "
        f"({summary.warm_lanes} warm-pool, {summary.cold_lanes} cold, {summary.spot_lanes} spot) — "
        f"{summary.cold_starts} cold / {summary.warm_starts} warm starts, {summary.image_changes} image change(s) "
        "on warm pools",
        "",
        "Groups",
        f"  {'group':<5} {'kind':<9} {'lanes':>5} {'jobs':>6}  key",
        *(_group_line(group) for group in plan.groups),
        "",
        "Lanes (times in seconds from run start)",
    ]
    for lane in plan.lanes:
        lines += _lane_lines(lane)
    bound = summary.makespan_lower_bound_seconds
    ratio = summary.planned_makespan_seconds / bound if bound else 1.0
    lines += [
        "",
        f"Planned makespan {summary.planned_makespan_seconds} s ({duration(summary.planned_makespan_seconds)}) — "
        f"lower bound {bound} s ({duration(bound)}), ratio {ratio:.3f}",
        f"Planned idle warm-pool time {summary.planned_retained_seconds} s "
        f"({duration(summary.planned_retained_seconds)})",
    ]
    if summary.quota_request:
        lines += [
            "",
            "Request this quota (Service Quotas, per instance type: the most this plan holds at once)",
            f"  {'instance type':<16} {'instances':>9} {'warm pools':>10} {'spot':>5}",
            *(
                f"  {q.instance_type:<16} {q.instances:>9} {q.warm_pools:>10} {q.spot_instances:>5}"
                for q in summary.quota_request
            ),
        ]
    return "\n".join(lines)
