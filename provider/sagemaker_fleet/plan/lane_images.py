"""Jobs of one training image back to back within a warm lane.

The image is no warm-pool matching criterion, but a warm start whose image differs from the pool's previous
job's pulls it from ECR again (:data:`~sagemaker_fleet.jobs.startup.IMAGE_PULL_P90`). Which jobs a lane runs is the
scheduler's choice; their order inside the lane changes the lane's work only by those pulls. So each warm lane's
jobs are regrouped by image — blocks in the order their image first appears in the lane, each block's jobs in
their scheduled (longest-first) order — and re-timed from the lane's start by the scheduler's rules (one
latency between jobs, keep-alive per :func:`~sagemaker_fleet.plan.keepalive.planned_keep_alive`).

The regrouped lane is kept only if it pulls less, ends no later, frees its slot no later and keeps its last pool
no longer: no other lane's timing or quota can change, and the makespan never grows.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from sagemaker_fleet.plan.keepalive import planned_keep_alive, pool_outlives
from sagemaker_fleet.plan.schedule import ScheduledJob

if TYPE_CHECKING:
    from collections.abc import Sequence

    from sagemaker_fleet.plan.durations import StartupSeconds
    from sagemaker_fleet.plan.groups import JobTask
    from sagemaker_fleet.plan.schedule import ScheduledLane


def image_changes(jobs: Sequence[ScheduledJob]) -> int:
    return sum(1 for job in jobs if job.image_change)


def _by_image(tasks: Sequence[JobTask]) -> list[JobTask]:
    blocks: dict[str, list[JobTask]] = {}
    for task in tasks:
        blocks.setdefault(task.image, []).append(task)
    return [task for block in blocks.values() for task in block]


def retime(tasks: Sequence[JobTask], start: int, startup: StartupSeconds, latency: int) -> list[ScheduledJob]:
    """``tasks`` run in this order on one warm lane whose first job is created at ``start``."""
    jobs: list[ScheduledJob] = []
    for position, task in enumerate(tasks):
        warm = False
        if jobs:
            start = jobs[-1].end + latency
            warm = pool_outlives(jobs[-1].keep_alive, latency)
        change = warm and task.image != jobs[-1].task.image
        end = start + startup.of(warm=warm, image_pulled=change) + task.training
        keep = planned_keep_alive(task.keep_alive, latency, warm_lane=True, last=position == len(tasks) - 1)
        jobs.append(
            ScheduledJob(
                task=task, start=start, end=end, warm_start=warm, keep_alive=keep, image_change=change
            )
        )
    return jobs


def group_lane_images(lanes: Sequence[ScheduledLane], startup: StartupSeconds, latency: int) -> None:
    """Regroup every warm lane's jobs by image where that is no worse (see the module docstring)."""
    for lane in lanes:
        if not lane.warm or image_changes(lane.jobs) == 0:
            continue
        jobs = retime(_by_image([job.task for job in lane.jobs]), lane.start, startup, latency)
        last, old_last = jobs[-1], lane.jobs[-1]
        released = last.end + last.keep_alive
        if (
            image_changes(jobs) < image_changes(lane.jobs)
            and last.end <= old_last.end
            and released <= max(lane.released_at, old_last.end)
            and last.keep_alive <= old_last.keep_alive
        ):
            lane.jobs = jobs
            lane.released_at = released
