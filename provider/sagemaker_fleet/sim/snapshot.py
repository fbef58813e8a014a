"""The simulator's view of its state, for the admin endpoint, drivers and tests (JSON-ready, never the records)."""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import TYPE_CHECKING, Any

from sagemaker_fleet.sim.clock import Clock, WallClock
from sagemaker_fleet.sim.render import timestamp, warm_pool_status

if TYPE_CHECKING:
    from sagemaker_fleet.sim.job import TrainingJob
    from sagemaker_fleet.sim.state import SimState


@dataclass(frozen=True)
class JobFacts:
    """What DescribeTrainingJob does not say: how the job started and how much work it had."""

    name: str
    status: str
    secondary_status: str
    spot: bool
    instance_type: str
    instance_count: int
    start: str | None  # "warm" (on a warm pool) | "cold" | None before Training began
    startup_seconds: float | None
    work_seconds: float
    work_source: str
    progress_seconds: float
    attempts: int
    interruptions: int
    pool_id: str | None
    warm_pool_status: str | None
    retained_seconds: float
    training_seconds: int | None
    billable_seconds: int | None
    created_at: float
    ended_at: float | None
    checkpoint_uri: str | None = None  # CheckpointConfig.S3Uri: where a spot job resumes from
    image_pulled: bool = False  # a warm start that pulled its image again (not the pool's previous job's)


def job_facts(job: TrainingJob, now: float) -> JobFacts:
    started = job.startup_seconds is not None
    return JobFacts(
        name=job.name,
        status=job.status,
        secondary_status=job.secondary,
        spot=job.request.spot,
        instance_type=job.request.instance_type,
        instance_count=job.request.instance_count,
        start=("warm" if job.warm_start else "cold") if started else None,
        startup_seconds=job.startup_seconds,
        work_seconds=job.work_seconds,
        work_source=job.work_source,
        progress_seconds=job.progress,
        attempts=job.attempt,
        interruptions=job.interruptions,
        pool_id=job.pool_id,
        warm_pool_status=job.pool_status,
        retained_seconds=job.retained_seconds(now),
        training_seconds=job.billing.training_seconds if job.billing else None,
        billable_seconds=job.billing.billable_seconds if job.billing else None,
        created_at=job.created_at,
        ended_at=job.transitions[-1].start if job.ended else None,
        checkpoint_uri=job.request.checkpoint_uri,
        image_pulled=job.warm_start and job.image_pulled,
    )


def state_json(state: SimState, clock: Clock, now: float) -> dict[str, Any]:
    config = state.config
    return {
        "clock": {
            "now": timestamp(now),
            "kind": type(clock).__name__,
            "speed": clock.speed if isinstance(clock, WallClock) else None,
        },
        "next_event_time": state.queue.next_time(),
        "jobs": [
            {**asdict(job_facts(job, now)), "warm_pool": warm_pool_status(job, now)}
            for job in state.jobs.values()
        ],
        "pools": [
            {
                "pool_id": pool.pool_id,
                "status": pool.status,
                "key": pool.key.to_json(),
                "holder": pool.holder,
                "keep_alive": pool.keep_alive,
                "available_since": pool.available_since,
                "expires_at": pool.expires_at,
                "jobs": list(pool.jobs),
            }
            for pool in state.pools
        ],
        "quotas": {
            itype: {"limit": asdict(config.quota(itype)), "usage": asdict(usage)}
            for itype, usage in sorted(state.quotas.snapshot().items())
        },
        "config": {
            "seed": config.seed,
            "throttle_share": config.throttle_share,
            "throttle_operations": sorted(config.throttle_operations),
            "spot": {**asdict(config.spot), "no_capacity_types": sorted(config.spot.no_capacity_types)},
            "failure_probability": config.failure_probability,
            "failing_cities": sorted(config.failing_cities),
            "failing_first_cities": sorted(config.failing_first_cities),
            "refuse_keep_alive_while_running": config.refuse_keep_alive_while_running,
            "api_errors": {
                "share": config.api_errors.share,
                "operations": sorted(config.api_errors.operations),
                "after_commit": config.api_errors.after_commit,
            },
            "metrics_missing": sorted(config.metrics.missing),
            "quotas": {itype: asdict(q) for itype, q in sorted(config.quotas.items())},
            "default_quota": asdict(config.default_quota) if config.default_quota else None,
        },
        "api_calls": state.counters.to_json(),
    }
