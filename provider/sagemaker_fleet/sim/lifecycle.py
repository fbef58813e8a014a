"""The life of a training job (docs/sagemaker-behaviour.md, spot life cycle), as reactions to timed events.

InProgress: Starting → Downloading → Training → Uploading → Completed. A spot job waits for capacity in
``Starting``; when its instances are reclaimed it goes ``Interrupted`` and starts again (Starting → Downloading →
Training …), losing the work since its last checkpoint, until it completes or MaxWait runs out (Stopping →
Stopped / ``MaxWaitTimeExceeded``). StopTrainingJob and MaxRuntime go through Stopping to Stopped. The training
container checkpoints every ``checkpoint_interval_seconds`` of training and resumes from the checkpoint prefix.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from sagemaker_fleet.jobs.statuses import POOL_AVAILABLE
from sagemaker_fleet.sim import spot
from sagemaker_fleet.sim.billing import bill
from sagemaker_fleet.sim.events import Event, EventKind
from sagemaker_fleet.sim.job import JobEvent, JobStatus, TrainingJob, Transition
from sagemaker_fleet.sim.pool_rules import expire_pool, settle_pool
from sagemaker_fleet.sim.render import model_artifact_uri
from sagemaker_fleet.sim.seeding import stream, uniform

if TYPE_CHECKING:
    from sagemaker_fleet.sim.state import SimState

MESSAGES = {
    "Starting": "Preparing the instances for training",
    "Downloading": "Downloading the training image and input data",
    "Training": "Training image download completed. Training in progress.",
    "Uploading": "Uploading generated training model",
    "Completed": "Training job completed",
    "Interrupted": "Training job interrupted: the spot instances were reclaimed",
    "Stopping": "Stopping the training job",
    "Stopped": "Training job stopped",
    "MaxWaitTimeExceeded": "The training job did not complete within MaxWaitTimeInSeconds",
    "MaxRuntimeExceeded": "The training job exceeded MaxRuntimeInSeconds",
}
#: Downloading on a warm pool: the image is cached there, unless it differs from the pool's previous job's.
WARM_DOWNLOADING = "Downloading input data; the training image is cached on the warm pool"
WARM_IMAGE_PULL = "Downloading the training image (it differs from the image of the warm pool's previous job) and input data"
ALGORITHM_FAILURE = "AlgorithmError: simulated training failure (the training container exited with code 1)"


class Lifecycle:
    def __init__(self, state: SimState) -> None:
        self.s = state

    # -------------------------------------------------------------------------------------------- entry points

    def start(self, job: TrainingJob, now: float) -> None:
        """A job was just created (and admitted under the quotas)."""
        message = MESSAGES["Starting"]
        if job.warm_start:
            message = "Reusing the warm pool's instances; preparing the training container"
        self._enter(job, "Starting", now, message)
        if job.request.max_wait is not None:
            self.s.queue.schedule(job.created_at + job.request.max_wait, EventKind.MAX_WAIT, job.name, 0)
        self._begin_attempt(job, now)

    def handle(self, event: Event) -> None:
        if event.kind is EventKind.POOL_EXPIRY:
            pool = self.s.pools.get(event.target)
            if pool.token == event.token and pool.status == POOL_AVAILABLE:
                expire_pool(self.s, pool, event.time)
            return
        job = self.s.jobs[event.target]
        if event.kind is EventKind.MAX_WAIT:
            if job.status == "InProgress":
                self.stop(job, event.time, outcome="MaxWaitTimeExceeded")
            return
        if event.token != job.token:
            return  # scheduled for a future the job no longer has
        if event.kind is EventKind.PHASE_END:
            self._phase_over(job, event.time)
        elif event.kind is EventKind.CHECKPOINT:
            self._checkpoint(job, event.time)
        else:
            self._disrupt(job, event)

    def _disrupt(self, job: TrainingJob, event: Event) -> None:
        if event.kind is EventKind.SPOT_INTERRUPTION:
            self.interrupt(job, event.time)
        elif event.kind is EventKind.ALGORITHM_FAILURE:
            self.fail(job, event.time, ALGORITHM_FAILURE)
        elif event.kind is EventKind.MAX_RUNTIME:
            self.stop(job, event.time, outcome="MaxRuntimeExceeded")
        elif event.kind is EventKind.STOPPED:
            self._finish(job, event.time, "Stopped", job.stop_outcome)

    def is_stale(self, event: Event) -> bool:
        """Whether handling ``event`` would change nothing (its job or pool moved on since it was scheduled)."""
        if event.kind is EventKind.POOL_EXPIRY:
            pool = self.s.pools.get(event.target)
            return pool.token != event.token or pool.status != POOL_AVAILABLE
        job = self.s.jobs[event.target]
        if event.kind is EventKind.MAX_WAIT:
            return job.status != "InProgress"
        return event.token != job.token

    def stop(self, job: TrainingJob, now: float, *, outcome: str = "Stopped") -> None:
        """Stopping → Stopped: SIGTERM, a grace period, then the instances go (or stay as a warm pool)."""
        job.token += 1
        job.status = "Stopping"
        job.stop_outcome = outcome
        self._enter(job, "Stopping", now, MESSAGES["Stopping"] if outcome == "Stopped" else MESSAGES[outcome])
        timing = self.s.config.timing
        bounds = timing.stop_seconds_launched if job.holds_instances else timing.stop_seconds_unlaunched
        grace = uniform(self.s.config.seed, bounds, job.name, "stop")
        self._at(now + grace, EventKind.STOPPED, job)

    def fail(self, job: TrainingJob, now: float, reason: str) -> None:
        job.failure_reason = reason
        self._finish(job, now, "Failed", "Failed", reason)

    def interrupt(self, job: TrainingJob, now: float) -> None:
        """Spot capacity is reclaimed: the work since the last checkpoint is lost; SageMaker restarts the job."""
        if job.cluster_up and job.run_started is not None:
            job.running_seconds += now - job.run_started
            job.lost_seconds += now - (job.durable_at if job.durable_at is not None else job.run_started)
        job.cluster_up = False
        job.run_started = None
        job.durable_at = None
        job.token += 1
        job.interruptions += 1
        self._enter(job, "Interrupted", now, MESSAGES["Interrupted"])
        pause = spot.interrupted_seconds(self.s.config.spot, self.s.config.seed, job.name, job.attempt)
        self._at(now + pause, EventKind.PHASE_END, job)

    # ------------------------------------------------------------------------------------------------ phases

    def _phase_over(self, job: TrainingJob, now: float) -> None:
        if job.secondary == "Starting":
            self._launch(job, now)
        elif job.secondary == "Downloading":
            self._train(job, now)
        elif job.secondary == "Training":
            self._upload(job, now)
        elif job.secondary == "Uploading":
            self._finish(job, now, "Completed", "Completed")
        elif job.secondary == "Interrupted":
            self._enter(job, "Starting", now, "Restarting the training job after the spot interruption")
            self._begin_attempt(job, now)

    def _begin_attempt(self, job: TrainingJob, now: float) -> None:
        config = self.s.config
        job.attempt += 1
        warm = job.warm_start and job.attempt == 1
        rng = stream(config.seed, job.name, "startup", job.attempt)
        job.startup = config.timing.startup.sample(
            job.request.input_mode, warm=warm, rng=rng, image_pulled=warm and job.image_pulled
        )
        wait = 0.0
        if job.request.spot:
            granted = spot.capacity_wait(
                config.spot, config.seed, job.name, job.attempt, job.request.instance_type
            )
            if granted is None:
                return  # no capacity: the job waits in Starting until MaxWait stops it
            wait = granted
        self._at(now + wait + job.startup.starting, EventKind.PHASE_END, job)

    def _launch(self, job: TrainingJob, now: float) -> None:
        assert job.startup is not None
        job.cluster_up = True
        job.run_started = now
        if job.training_start is None:
            job.training_start = now
        self._enter(job, "Downloading", now, _downloading_message(job))
        self._at(now + job.startup.downloading, EventKind.PHASE_END, job)
        budget = max(job.request.max_runtime - job.running_seconds, 0.0)
        self._at(now + budget, EventKind.MAX_RUNTIME, job)

    def _train(self, job: TrainingJob, now: float) -> None:
        config = self.s.config
        uri = job.request.checkpoint_uri
        if uri is not None:
            job.progress = max(job.progress, self.s.checkpoints.load(uri))
        done = min(job.progress, job.work_seconds)
        remaining = job.work_seconds - done
        job.training_started = now
        job.progress_at_training_start = done
        if job.startup_seconds is None:
            job.startup_seconds = now - job.created_at
        self._enter(job, "Training", now, MESSAGES["Training"])
        self._at(now + remaining, EventKind.PHASE_END, job)
        interval = config.timing.checkpoint_interval_seconds
        if uri is not None and 0 < interval < remaining:
            self._at(now + interval, EventKind.CHECKPOINT, job)
        if job.request.spot:
            after = spot.interruption_after(config.spot, config.seed, job.name, job.attempt)
            if after is not None and after < remaining:
                self._at(now + after, EventKind.SPOT_INTERRUPTION, job)
        if config.fails_early(job.request.tags):  # the container exits early (every submission, or the first)
            self._at(now + min(remaining, 30.0) / 2, EventKind.ALGORITHM_FAILURE, job)
        elif config.failure_probability > 0:
            rng = stream(config.seed, job.name, "failure", job.attempt)
            if rng.random() < config.failure_probability:
                self._at(now + rng.uniform(0.0, remaining), EventKind.ALGORITHM_FAILURE, job)

    def _checkpoint(self, job: TrainingJob, now: float) -> None:
        assert job.training_started is not None
        assert job.request.checkpoint_uri is not None
        job.progress = job.progress_at_training_start + (now - job.training_started)
        job.durable_at = now
        self.s.checkpoints.save(job.request.checkpoint_uri, job.progress, job_name=job.name, at=now)
        training_end = job.training_started + (job.work_seconds - job.progress_at_training_start)
        following = now + self.s.config.timing.checkpoint_interval_seconds
        if following < training_end:
            self._at(following, EventKind.CHECKPOINT, job)

    def _upload(self, job: TrainingJob, now: float) -> None:
        job.progress = job.work_seconds
        job.durable_at = now
        if job.request.checkpoint_uri is not None:
            self.s.checkpoints.save(job.request.checkpoint_uri, job.progress, job_name=job.name, at=now)
        self._enter(job, "Uploading", now, MESSAGES["Uploading"])
        pause = uniform(
            self.s.config.seed, self.s.config.timing.upload_seconds, job.name, "upload", job.attempt
        )
        self._at(now + pause, EventKind.PHASE_END, job)

    def _finish(
        self, job: TrainingJob, now: float, status: JobStatus, secondary: str, reason: str | None = None
    ) -> None:
        held = job.holds_instances
        if job.cluster_up and job.run_started is not None:
            job.running_seconds += now - job.run_started
        job.run_started = None
        job.token += 1
        job.status = status
        event = self._enter(job, secondary, now, reason or MESSAGES.get(secondary, secondary), final=True)
        if job.training_start is not None:
            job.training_end = now
        job.billing = bill(
            job.running_seconds, job.lost_seconds, spot=job.request.spot, discount=job.discount
        )
        request = job.request
        if request.spot:
            self.s.quotas.release_spot(request.instance_type, request.instance_count)
        else:
            settle_pool(self.s, job, now, cluster_held=held)
        job.cluster_up = False
        self._emit(event)  # once pools and quotas are settled: a listener may submit the next job

    # --------------------------------------------------------------------------------------------- helpers

    def _at(self, when: float, kind: EventKind, job: TrainingJob) -> None:
        self.s.queue.schedule(when, kind, job.name, job.token)

    def _enter(
        self, job: TrainingJob, secondary: str, now: float, message: str, *, final: bool = False
    ) -> JobEvent:
        """Record a SecondaryStatus transition; listeners hear of it at once unless it is ``final``."""
        if job.transitions and job.transitions[-1].end is None:
            job.transitions[-1].end = now
        job.transitions.append(Transition(secondary, now, message, now if final else None))
        job.secondary = secondary
        job.last_modified = now
        artifacts = None
        if final and job.status in ("Completed", "Stopped") and job.training_start is not None:
            artifacts = model_artifact_uri(job)
        event = JobEvent(job.name, now, job.status, secondary, message, artifacts)
        if not final:
            self._emit(event)
        return event

    def _emit(self, event: JobEvent) -> None:
        for listener in self.s.listeners:
            listener(event)


def _downloading_message(job: TrainingJob) -> str:
    if not (job.warm_start and job.attempt == 1):
        return MESSAGES["Downloading"]
    return WARM_IMAGE_PULL if job.image_pulled else WARM_DOWNLOADING
