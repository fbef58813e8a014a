"""Warm-pool rules (docs/sagemaker-behaviour.md, warm pools) applied to jobs: reuse at creation, retention at the end, expiry, updates.

A pool is kept when a job with keep-alive > 0 completes, is stopped after its cluster launched, or fails with an
algorithm/client error — and only within the warm-pool quota. The next matching on-demand job takes it over
(the old job's WarmPoolStatus becomes ``Reused``) — pulling its training image again when it is not the old
job's (the image is no matching criterion) — and the pool takes that job's keep-alive when it ends; a job
without keep-alive uses the pool, which then ends with it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from sagemaker_fleet.jobs.statuses import POOL_AVAILABLE
from sagemaker_fleet.sim.errors import validation_error
from sagemaker_fleet.sim.events import EventKind

if TYPE_CHECKING:
    from sagemaker_fleet.sim.job import TrainingJob
    from sagemaker_fleet.sim.pools import WarmPool
    from sagemaker_fleet.sim.state import SimState

#: Failure reasons after which SageMaker still keeps the pool (customer-side errors, cluster healthy).
POOL_KEEPING_FAILURES = ("AlgorithmError", "ClientError")


def claim_pool(state: SimState, job: TrainingJob, now: float) -> WarmPool | None:
    """Put a new on-demand job on a matching Available pool, if there is one; spot jobs never use pools."""
    if job.request.spot:
        return None
    pool = state.pools.find_available(job.request.key, now)
    if pool is None:
        return None
    previous = state.jobs[state.pools.take(pool, job.name)]
    previous.pool_status = "Reused"
    previous.reused_by = job.name
    previous.pool_retained = now - (previous.pool_since or now)
    previous.last_modified = now
    job.pool_id = pool.pool_id
    job.pool_status = "InUse"
    job.warm_start = True
    job.image_pulled = job.request.image != previous.request.image
    return pool


def settle_pool(state: SimState, job: TrainingJob, now: float, *, cluster_held: bool) -> None:
    """An on-demand job ended: keep its cluster as an Available pool, or let it go."""
    request = job.request
    keep = cluster_held and job.keep_alive > 0 and _keeps_after(job)
    if job.pool_id is not None:
        pool = state.pools.get(job.pool_id)
        if keep:
            _make_available(state, pool, job, now)
        else:
            _end_pool(state, pool)
            job.pool_status = "Terminated"
            job.pool_retained = 0.0
        return
    if keep and state.quotas.may_keep_pool(request.instance_type, request.instance_count):
        pool = state.pools.create(request.key, job.name, now)
        state.quotas.pool_created(request.instance_type, request.instance_count)
        job.pool_id = pool.pool_id
        _make_available(state, pool, job, now)
        return
    state.quotas.release_on_demand(request.instance_type, request.instance_count)
    if job.keep_alive > 0:
        job.pool_status = "Terminated"
        job.pool_retained = 0.0


def expire_pool(state: SimState, pool: WarmPool, now: float) -> None:
    """Keep-alive ran out (or was set to 0): the idle pool ends; its last job's retained time is final."""
    holder = state.jobs[pool.holder]
    holder.pool_status = "Terminated"
    holder.pool_retained = now - (holder.pool_since or now)
    holder.last_modified = now
    _end_pool(state, pool)


def update_keep_alive(state: SimState, job: TrainingJob, seconds: int, now: float) -> None:
    """UpdateTrainingJob(ResourceConfig.KeepAlivePeriodInSeconds): for its Available pool, and for a running job
    unless the configuration refuses that (``refuse_keep_alive_while_running``: AWS does not document it)."""
    if job.request.spot:
        raise validation_error(
            "Invalid KeepAlivePeriodInSeconds. Warm pools are not supported with managed spot training"
        )
    refuse_running = state.config.refuse_keep_alive_while_running
    when = (
        "its warm pool is Available"
        if refuse_running
        else "the job is in progress or its warm pool is Available"
    )
    if not job.ended:
        if refuse_running:
            # AWS's own words for this refusal are unknown (it may not even refuse): the message follows the
            # refusal below and StopTrainingJob's "The request was rejected because …"
            raise validation_error(
                f"The request was rejected because the training job is in status {job.status}; "
                f"KeepAlivePeriodInSeconds of training job {job.name} can only be updated when {when}"
            )
        job.keep_alive = seconds
        return
    if job.pool_status != POOL_AVAILABLE or job.pool_id is None:
        status = job.pool_status or "not configured"
        raise validation_error(
            f"The warm pool of training job {job.name} is {status}; KeepAlivePeriodInSeconds can only be "
            f"updated while {when}"
        )
    job.keep_alive = seconds
    pool = state.pools.get(job.pool_id)
    expires = state.pools.set_keep_alive(pool, seconds)
    if expires <= now:
        expire_pool(state, pool, now)
    else:
        state.queue.schedule(expires, EventKind.POOL_EXPIRY, pool.pool_id, pool.token)


def _keeps_after(job: TrainingJob) -> bool:
    if job.status != "Failed":
        return True
    return (job.failure_reason or "").startswith(POOL_KEEPING_FAILURES)


def _make_available(state: SimState, pool: WarmPool, job: TrainingJob, now: float) -> None:
    expires = state.pools.make_available(pool, job.name, job.keep_alive, now)
    job.pool_status = POOL_AVAILABLE
    job.pool_since = now
    state.queue.schedule(expires, EventKind.POOL_EXPIRY, pool.pool_id, pool.token)


def _end_pool(state: SimState, pool: WarmPool) -> None:
    state.pools.terminate(pool)
    state.quotas.pool_terminated(pool.key.instance_type, pool.key.instance_count)
