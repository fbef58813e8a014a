"""The training tasks of a simulated run: each city is the trigger's own :class:`~sagemaker_fleet.dispatch.city_run.
CityRun` (submit, back off while the quota is in use, decide after each terminal submission with
:func:`~sagemaker_fleet.jobs.attempts.next_step`), run in virtual time with the engine as its endpoint
(:class:`SimCityIO`).

What the simulator adds is timing: with the planned strategy a city acts ``handoff_seconds`` after the sweep that
admitted it or saw its job end (the trigger's reaction and its call); with the stock pattern one orchestration
latency after its job ended (a task process resumes), and never before its poller has seen the end. A throttled
CreateTrainingJob is sent again after a jittered exponential back-off, as botocore does; every jitter is seeded.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Literal

from sagemaker_fleet.dispatch.city_run import CityEnd, CityRun
from sagemaker_fleet.jobs.attachment import Attachment
from sagemaker_fleet.jobs.statuses import THROTTLING_CODES
from sagemaker_fleet.sim.errors import SimApiError
from sagemaker_fleet.sim.seeding import stream
from sagemaker_fleet.simulate.coroutines import Later, run_coroutine
from sagemaker_fleet.simulate.errors import SimulationError

if TYPE_CHECKING:
    from mypy_boto3_sagemaker.type_defs import CreateTrainingJobRequestTypeDef

    from sagemaker_fleet.dispatch import RunTracker, Wait
    from sagemaker_fleet.fleetspec.model import CitySpec, FleetSpec
    from sagemaker_fleet.jobs.record import Description
    from sagemaker_fleet.simulate.endpoint import Endpoint
    from sagemaker_fleet.simulate.options import SimulateOptions
    from sagemaker_fleet.simulate.polling import PerJobPoller, SimulatedFleetPoller
    from sagemaker_fleet.simulate.timeline import Timeline

TaskState = Literal["waiting", "running", "done", "failed"]


@dataclass(eq=False)
class CityTask:
    """One city's training in the run: its submissions and, once they end, the outcome."""

    city: CitySpec
    keep_alive_seconds: int  # for on-demand submissions; spot ones never keep a pool
    state: TaskState = "waiting"
    submissions: list[str] = field(default_factory=list)
    reason: str = ""
    run: CityRun | None = None

    @property
    def finished(self) -> bool:
        return self.state in ("done", "failed")

    @property
    def history(self) -> list[Description]:
        """Descriptions of its submissions, oldest first (the latest as last seen)."""
        return self.run.history if self.run is not None else []

    @property
    def capacity_retries(self) -> int:
        """Creates the quota refused (ResourceLimitExceeded)."""
        return self.run.refusals if self.run is not None else 0


Finished = Callable[[CityTask, float], None]


class _Silent:
    """The task log of a simulated city: not written (hundreds of cities, thousands of lines)."""

    def info(self, msg: str, /, *args: Any) -> None:
        return None

    def warning(self, msg: str, /, *args: Any) -> None:
        return None


class SimulatedOperator:
    """Runs :class:`CityTask` s against the engine; ``on_finished(task, at)`` says when a task's slot is free.
    ``dispatch``: the run's poller, which admits cities and sees their jobs end (planned, with ``tracker``); else
    each city starts when it is started and ``per_job`` polls each job (the stock pattern)."""

    def __init__(
        self,
        spec: FleetSpec,
        options: SimulateOptions,
        engine: Endpoint,
        timeline: Timeline,
        ended_at: dict[str, float],
        on_finished: Finished,
    ) -> None:
        self.spec = spec
        self.options = options
        self.engine = engine
        self.timeline = timeline
        # job name → when it reached a terminal status (filled by the run's listener)
        self.ended_at = ended_at
        self.on_finished = on_finished
        self.owner: dict[str, CityTask] = {}
        self.created_at: dict[str, float] = {}
        self.dispatch: SimulatedFleetPoller | None = None
        self.per_job: PerJobPoller | None = None
        self.tracker: RunTracker | None = None

    def start(self, task: CityTask, at: float) -> None:
        """Begin ``task`` at simulated time ``at``."""
        task.state = "running"
        options = self.options
        task.run = CityRun(
            self.spec,
            task.city,
            options.run_key,
            SimCityIO(self, task),
            _Silent(),
            self.tracker,
            keep_alive_seconds=task.keep_alive_seconds,
            cadence=options.cadence,
        )
        run = task.run
        self.timeline.at(at, lambda: run_coroutine(run.train(), lambda end: self._ended(task, end)))

    def settle(self, later: Later[Any], at: float, value: Any = None) -> None:
        """Set ``later`` to ``value`` at simulated time ``at``."""
        self.timeline.at(at, lambda: later.set(value))

    def jittered(self, seconds: float, name: str, purpose: str, n: int) -> float:
        """``seconds`` × U(0.5, 1.5), seeded by job and retry so a run replays exactly."""
        return seconds * stream(self.options.seed, name, purpose, n).uniform(0.5, 1.5)

    def _ended(self, task: CityTask, end: CityEnd) -> None:
        task.state = "done" if end.kind == "done" else "failed"
        task.reason = end.reason
        at = self.engine.now()
        if end.kind == "no_capacity":  # it failed in its own process; the next task starts a latency later
            at += self.spec.orchestration_latency_seconds
        self.on_finished(task, at)


class SimCityIO:
    """A city's I/O in virtual time (:class:`~sagemaker_fleet.dispatch.city_run.CityIO`)."""

    def __init__(self, operator: SimulatedOperator, task: CityTask) -> None:
        self.operator = operator
        self.task = task

    def now(self) -> float:
        return self.operator.engine.now()

    def jitter(self, job_name: str, retries: int) -> float:
        return self.operator.jittered(1.0, job_name, "capacity", retries)

    async def sleep(self, seconds: float) -> None:
        later: Later[None] = Later()
        self.operator.settle(later, self.now() + seconds)
        await later

    async def wait_turn(self, wait: Wait) -> None:
        """Planned: the run's poller admits the city; it acts ``handoff_seconds`` later. Stock: at once."""
        dispatch = self.operator.dispatch
        if dispatch is None:
            return
        later: Later[None] = Later()
        handoff = self.operator.options.handoff_seconds
        dispatch.wait_turn(wait, lambda: self.operator.settle(later, self.now() + handoff))
        await later

    def release(self, city: str) -> None:
        if self.operator.dispatch is not None:
            self.operator.dispatch.release(city)

    async def create(self, request: CreateTrainingJobRequestTypeDef) -> Attachment | None:
        operator = self.operator
        name = str(request["TrainingJobName"])
        throttled = 0
        while True:
            try:
                response = operator.engine.create_training_job(request)
                break
            except SimApiError as exc:
                if exc.code == "ResourceLimitExceeded":
                    return None
                if exc.code not in THROTTLING_CODES:
                    raise SimulationError(f"CreateTrainingJob {name} was rejected: {exc}") from exc
            seconds = operator.options.throttle_retry_seconds * 2 ** min(throttled, 5)
            await self.sleep(operator.jittered(seconds, name, "throttle", throttled))
            throttled += 1
        now = self.now()
        self.task.submissions.append(name)
        operator.owner[name] = self.task
        operator.created_at[name] = now
        created = dt.datetime.fromtimestamp(now, dt.UTC)
        return Attachment.just_created(request, response.get("TrainingJobArn"), created)

    async def watch(self, job: Description, created_after: dt.datetime | None) -> Description:
        """The job's terminal description, when the city acts on it: planned, ``handoff_seconds`` after the sweep
        that saw it end; stock, one orchestration latency after it ended (and not before its poll saw it)."""
        operator = self.operator
        name = str(job["TrainingJobName"])
        later: Later[Description] = Later()
        if operator.dispatch is not None:
            handoff = operator.options.handoff_seconds
            operator.dispatch.watch(
                name, created_after, lambda d: operator.settle(later, self.now() + handoff, d)
            )
        else:
            assert operator.per_job is not None, "the run wires a poller before it starts tasks"
            latency = operator.spec.orchestration_latency_seconds

            def deliver(described: dict[str, Any]) -> None:
                operator.settle(later, max(self.now(), operator.ended_at[name] + latency), described)

            operator.per_job.watch(name, operator.created_at[name], deliver)
        return await later

    async def describe(self, job_name: str) -> Description | None:
        return self.operator.engine.describe_training_job(job_name)

    async def tags(self, arn: str) -> dict[str, str]:
        response = self.operator.engine.call("ListTags", {"ResourceArn": arn})
        return {str(tag["Key"]): str(tag["Value"]) for tag in response.get("Tags") or ()}
