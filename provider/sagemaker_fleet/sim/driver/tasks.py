"""The training tasks of a simulated run, each handled as ``FleetTrainingOperator`` handles its city.

A task submits its city (the one request builder, :func:`compile_training_request`), retries a
``ResourceLimitExceeded`` after the operator's jittered, doubling back-off and gives up after its capacity timeout,
and decides after each terminal submission with the operator's own rule (:func:`next_step`): done, re-submit
(spot ``MaxWaitTimeExceeded`` → spot again from the same checkpoint as ``-r{n}``, then on-demand or fail), or fail.
It acts one orchestration latency after the job ended, and never before the poller has seen it end.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Literal, Protocol

from sagemaker_fleet.jobs.attempts import NextStep, capacity_delay, next_step
from sagemaker_fleet.jobs.request import Submission, compile_training_request
from sagemaker_fleet.jobs.statuses import THROTTLING_CODES
from sagemaker_fleet.sim.driver.errors import SimulationError
from sagemaker_fleet.sim.errors import SimApiError
from sagemaker_fleet.sim.seeding import stream

if TYPE_CHECKING:
    from sagemaker_fleet.fleetspec.model import CitySpec, FleetSpec
    from sagemaker_fleet.sim.driver.options import SimulateOptions
    from sagemaker_fleet.sim.driver.polling import Poller
    from sagemaker_fleet.sim.driver.timeline import Timeline
    from sagemaker_fleet.sim.engine import SimEngine

TaskState = Literal["waiting", "running", "done", "failed"]


@dataclass(eq=False)
class CityTask:
    """One city's training in the run: its submissions and, once they end, the outcome."""

    city: CitySpec
    keep_alive_seconds: int  # for on-demand submissions; spot ones never keep a pool
    state: TaskState = "waiting"
    submissions: list[str] = field(default_factory=list)
    history: list[dict[str, Any]] = field(default_factory=list)  # terminal describes, oldest first
    reason: str = ""
    capacity_retries: int = 0

    @property
    def finished(self) -> bool:
        return self.state in ("done", "failed")


Finished = Callable[[CityTask, float], None]


class Gate(Protocol):
    """The dispatch a task asks for room (see :class:`~sagemaker_fleet.sim.driver.strategies.DispatchStrategy`)."""

    handoff_seconds: float

    def request(self, task: CityTask, step: NextStep, since: float, retries: int, at: float) -> None: ...

    def release(self, task: CityTask) -> None: ...

    def created(self, name: str, at: float) -> None: ...

    def keep_alive_at_create(self, task: CityTask, planned: int) -> int: ...


class SimulatedOperator:
    """Runs :class:`CityTask` s against the engine; ``on_finished(task, at)`` says when a task's slot is free."""

    def __init__(
        self,
        spec: FleetSpec,
        options: SimulateOptions,
        engine: SimEngine,
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
        self.poller: Poller | None = None
        #: the dispatch (planned strategy): re-submissions and retries after a refused create ask it for room
        self.gate: Gate | None = None

    def start(self, task: CityTask, at: float) -> None:
        """Begin ``task`` at simulated time ``at`` (its first CreateTrainingJob)."""
        task.state = "running"
        step = next_step(task.city, task.history, new_try=False)
        self.timeline.at(at, lambda: self._submit(task, step, since=at))

    def launch(self, task: CityTask, step: NextStep, at: float, since: float, retries: int = 0) -> None:
        """Submit ``step`` at ``at``: the dispatch admitted it."""
        task.state = "running"
        self.timeline.at(at, lambda: self._submit(task, step, since=since, retries=retries))

    # ------------------------------------------------------------------------------------------ submitting

    def _submit(
        self, task: CityTask, step: NextStep, since: float, retries: int = 0, throttled: int = 0
    ) -> None:
        keep_alive = 0 if step.spot else task.keep_alive_seconds
        if self.gate is not None:  # as the trigger does once its turn has come
            keep_alive = self.gate.keep_alive_at_create(task, keep_alive)
        submission = Submission(
            task.city.name,
            self.options.run_key,
            attempt=step.attempt,
            spot=step.spot,
            keep_alive_seconds=keep_alive,
        )
        request = compile_training_request(self.spec, task.city, submission)
        name = str(request["TrainingJobName"])
        try:
            self.engine.create_training_job(request)
        except SimApiError as exc:
            now = self.engine.now()
            if exc.code == "ResourceLimitExceeded":
                self._capacity_wait(task, step, since, retries, name, now)
            elif exc.code in THROTTLING_CODES:
                wait = self._jittered(
                    self.options.throttle_retry_seconds * 2 ** min(throttled, 5), name, "throttle", throttled
                )
                self.timeline.at(now + wait, lambda: self._submit(task, step, since, retries, throttled + 1))
            else:
                raise SimulationError(f"CreateTrainingJob {name} was rejected: {exc}") from exc
            return
        task.submissions.append(name)
        self.owner[name] = task
        if self.gate is not None:
            self.gate.created(name, self.engine.now())
        assert self.poller is not None, "the run wires a poller before it starts tasks"
        self.poller.watch(name, self.engine.now())

    def _capacity_wait(
        self, task: CityTask, step: NextStep, since: float, retries: int, name: str, now: float
    ) -> None:
        options = self.options
        delay = capacity_delay(retries, options.capacity_retry_seconds, options.capacity_retry_max_seconds)
        if now + delay - since > options.capacity_timeout_seconds:
            task.reason = (
                f"no {task.city.instance_type} capacity for {options.capacity_timeout_seconds:.0f} s "
                "(ResourceLimitExceeded)"
            )
            self._finish(task, "failed", now + self.spec.orchestration_latency_seconds)
            return
        task.capacity_retries += 1
        wait = self._jittered(delay, name, "capacity", retries)
        if self.gate is not None:  # its place goes to the next city; it asks again after the back-off
            self.gate.release(task)
            self.gate.request(task, step, since, retries + 1, now + wait)
            return
        self.timeline.at(now + wait, lambda: self._submit(task, step, since, retries + 1))

    def _jittered(self, seconds: float, name: str, purpose: str, n: int) -> float:
        """``seconds`` × U(0.5, 1.5), seeded by job and retry so a run replays exactly."""
        return seconds * stream(self.options.seed, name, purpose, n).uniform(0.5, 1.5)

    # ------------------------------------------------------------------------------------------ deciding

    def terminal(self, name: str, described: dict[str, Any]) -> None:
        """The poller saw submission ``name`` end; ``described`` is its DescribeTrainingJob response."""
        task = self.owner[name]
        task.history.append(described)
        if self.gate is not None:  # the trigger acts in the sweep that delivered the description
            act = self.engine.now() + self.gate.handoff_seconds
        else:  # the stock pattern: a task process resumes, then the scheduler queues the next one
            act = max(self.engine.now(), self.ended_at[name] + self.spec.orchestration_latency_seconds)
        step = next_step(task.city, task.history, new_try=False)
        if step.kind == "submit" and self.gate is not None:
            self.gate.request(task, step, act, 0, act)
        elif step.kind == "submit":
            self.timeline.at(act, lambda: self._submit(task, step, since=act))
        elif step.kind == "done":
            self._finish(task, "done", act)
        else:  # "fail" (a terminal job is never "attach")
            task.reason = step.reason
            self._finish(task, "failed", act)

    def _finish(self, task: CityTask, state: TaskState, at: float) -> None:
        task.state = state
        self.on_finished(task, at)
