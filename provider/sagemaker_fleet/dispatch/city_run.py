"""CityRun: one city of a fleet run, from its turn to its outcome (pure: its I/O is its shell's, a :class:`CityIO`).

The city trigger (``triggers/city.py``: asyncio, the run's poller, AWS) and ``simulate``'s tasks
(``simulate/tasks.py``: virtual time, the simulator's engine) run the same code. The city's submissions so far
(the run's listing says how many there are; a restarted trigger describes them) decide the next step
(:func:`~sagemaker_fleet.jobs.attempts.next_step`). To submit, the city waits for its turn (the run's
:class:`~sagemaker_fleet.dispatch.RunTracker` admits it), creates its job (the name is the idempotency key: a job
that exists is attached to) and backs off while the instance quota is in use; then it waits for the job's end and
decides again: done, re-submit (spot from the same checkpoint, or on-demand as the spec says), or fail.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Literal, Protocol

from sagemaker_fleet.dispatch.cadence import AWS_CADENCE, Cadence
from sagemaker_fleet.dispatch.state import Wait
from sagemaker_fleet.fleetspec.names import FORCED_TAG, STOPPED_BY_TAG, TRY_TAG, job_name
from sagemaker_fleet.jobs.attempts import (
    NextStep,
    capacity_delay,
    next_step,
    stopped_by_someone,
)
from sagemaker_fleet.jobs.request import Submission, compile_training_request
from sagemaker_fleet.jobs.statuses import TERMINAL_STATUSES

if TYPE_CHECKING:
    from mypy_boto3_sagemaker.type_defs import CreateTrainingJobRequestTypeDef

    from sagemaker_fleet.dispatch.tracker import RunTracker
    from sagemaker_fleet.fleetspec.model import CitySpec, FleetSpec
    from sagemaker_fleet.jobs.attachment import Attachment
    from sagemaker_fleet.jobs.record import Description


class CityIO(Protocol):
    """What a city's run asks of its shell. Its clock (:meth:`now`) is the one the run's dispatch counts waits on."""

    def now(self) -> float: ...

    def jitter(self, job_name: str, retries: int) -> float:
        """A factor in [0.5, 1.5] for the ``retries``-th capacity back-off of ``job_name``."""
        ...

    async def sleep(self, seconds: float) -> None: ...

    async def wait_turn(self, wait: Wait) -> None:
        """Return once the run's dispatch admits ``wait``."""
        ...

    def release(self, city: str) -> None:
        """``city`` was admitted but made no job: its place goes to the next."""
        ...

    async def create(self, request: CreateTrainingJobRequestTypeDef) -> Attachment | None:
        """Create the job, or attach to the one of that name; None when the quota is in use (ResourceLimitExceeded)."""
        ...

    async def watch(self, job: Description, created_after: dt.datetime | None) -> Description:
        """``job``'s description once it has ended; ``created_after``: a time before its creation (None: unknown)."""
        ...

    async def describe(self, job_name: str) -> Description | None: ...

    async def tags(self, arn: str) -> dict[str, str]: ...


class CityLog(Protocol):
    """The city's task log (a logger's ``info`` and ``warning``)."""

    def info(self, msg: str, /, *args: Any) -> Any: ...

    def warning(self, msg: str, /, *args: Any) -> Any: ...


@dataclass(frozen=True)
class CityEnd:
    """How the city's run ended: ``done`` (its latest job completed), ``fail`` (the reason says why) or
    ``no_capacity`` (the quota stayed in use past the capacity timeout)."""

    kind: Literal["done", "fail", "no_capacity"]
    reason: str = ""


class CityRun:
    """One city of a run and its state: its submissions so far (:attr:`history`, oldest first), the job it waits on.

    :param tracker: the run's tracker (None: no dispatch, the city starts at once — ``simulate``'s stock pattern).
    :param try_id: the task try (``{run_id}/{try_number}``, :func:`sagemaker_fleet.contract.task_try_id`) its jobs are tagged with.
    :param force_retrain: train again even when the city's job of this run completed (once per run).
    :param keep_alive_seconds: keep-alive of an on-demand job when the tracker's book has no turn for the city.
    :param cadence: the run's intervals; its ``capacity_retry_seconds``, ``capacity_retry_max_seconds`` and
        ``capacity_timeout_seconds`` are the back-off while the instance quota is in use (ResourceLimitExceeded):
        its base, doubling up to its cap, jittered; the city fails once it has waited that long for room.
    """

    def __init__(
        self,
        spec: FleetSpec,
        city: CitySpec,
        run_key: str,
        io: CityIO,
        log: CityLog,
        tracker: RunTracker | None = None,
        *,
        try_id: str | None = None,
        force_retrain: bool = False,
        keep_alive_seconds: int = 0,
        cadence: Cadence = AWS_CADENCE,
        on_job_end: Callable[[CityRun, Description], None] | None = None,
        on_refusal: Callable[[CityRun], None] | None = None,
    ) -> None:
        self.spec = spec
        self.city = city
        self.run_key = run_key
        self.io = io
        self.log = log
        self.tracker = tracker
        self.try_id = try_id
        self.force_retrain = force_retrain
        self.keep_alive_seconds = keep_alive_seconds
        self.cadence = cadence
        #: Told of each job whose end this run saw (the trigger's metrics), and of each refusal of the quota.
        self.on_job_end = on_job_end
        self.on_refusal = on_refusal
        self.history: list[Description] = []
        #: The job the city waits on now (a trigger stops it when a user acts on the task).
        self.watching: str | None = None
        #: Creates the quota refused (ResourceLimitExceeded).
        self.refusals = 0
        #: The jobs whose end this run saw: watched to their end, or found ended when it began and made by this
        #: very try (its trigger restarted while no triggerer ran it): each is counted once, as it is seen ended.
        self.ended: list[Description] = []

    @property
    def name(self) -> str:
        return self.city.name

    async def train(self) -> CityEnd:
        """Run the city to its end (see the module docstring)."""
        self.history = await self.load_history()
        step = await self.decide()
        while True:
            if step.reason:
                self.log.info("%s: %s", self.name, step.reason)
            if step.kind in ("done", "fail"):
                return CityEnd("done" if step.kind == "done" else "fail", step.reason)
            if step.kind == "submit":
                attachment = await self.submit(step, first=not self.history)
                if attachment is None:
                    return CityEnd(
                        "no_capacity",
                        f"no {self.city.instance_type} capacity for {self.cadence.capacity_timeout_seconds:.0f} s "
                        "(ResourceLimitExceeded)",
                    )
                self.history = [*self.history, attachment.description]
                if not attachment.created and attachment.status in TERMINAL_STATUSES:
                    # a submission that had ended already: the run's listing did not show it yet when this try
                    # read the city's history (an earlier try made it). It is history: decide again from it, as
                    # if the listing had shown it, rather than end this try with that job's outcome.
                    step = await self.decide()
                    continue
            latest = self.history[-1]
            created_at = latest.get("CreationTime")
            after = created_at - dt.timedelta(seconds=1) if isinstance(created_at, dt.datetime) else None
            self.watching = str(latest["TrainingJobName"])
            self.history[-1] = await self.io.watch(latest, after)
            self.watching = None
            self._seen_end(self.history[-1])
            step = next_step(self.city, self.history, new_try=False)

    def _seen_end(self, description: Description) -> None:
        name = description.get("TrainingJobName")
        if any(d.get("TrainingJobName") == name for d in self.ended):
            return
        self.ended.append(description)
        if self.on_job_end is not None:
            self.on_job_end(self, description)

    async def load_history(self) -> list[Description]:
        """Descriptions of the city's submissions in this run, oldest first. The run's listing says how many
        there are, so a city with none (the usual start) costs no call."""
        latest = self.tracker.latest.get(self.name) if self.tracker is not None else None
        if latest is None:
            return []
        history: list[Description] = []
        for attempt in range(1, latest.attempt + 1):
            described = await self.io.describe(job_name(self.spec.fleet, self.name, self.run_key, attempt))
            if described is None:
                break
            history.append(described)
        return history

    async def decide(self) -> NextStep:
        """This try's next step from the city's submissions so far (the latest one's tags say which try made it,
        who stopped it and whether it was forced)."""
        tags = await self._ended_job_tags()
        # made by this very try (the trigger restarted after it ended): its outcome stands; made by an earlier
        # try, it is this try's to retry (or, forced, to retrain)
        mine = tags is not None and bool(self.try_id) and tags.get(TRY_TAG) == self.try_id
        if mine:  # this try's job, which ended while no trigger of the try watched it
            self.log.info(
                "%s: %s ended while no trigger watched it (the triggerer restarted); its metrics are sent now",
                self.name,
                self.history[-1].get("TrainingJobName"),
            )
            self._seen_end(self.history[-1])
        # stopped outside Airflow (the console, the CLI): Airflow-made stops (on_kill) carry the stopped-by tag
        stopped_outside = (
            tags is not None and stopped_by_someone(self.history[-1]) and STOPPED_BY_TAG not in tags
        )
        force = self.force_retrain and not mine and not await self._forced_before(tags)
        return next_step(
            self.city, self.history, force=force, new_try=not mine, stopped_outside=stopped_outside
        )

    async def _ended_job_tags(self) -> dict[str, str] | None:
        """The tags of the city's latest submission once it has ended (one ListTags says which try made it, who
        stopped it and whether it was forced); None while it runs (it is attached to whoever made it) or when
        there is none."""
        if not self.history or self.history[-1].get("TrainingJobStatus") not in TERMINAL_STATUSES:
            return None
        arn = self.history[-1].get("TrainingJobArn")
        return await self.io.tags(str(arn)) if arn else None

    async def _forced_before(self, latest_tags: dict[str, str] | None) -> bool:
        """Whether an earlier submission of the city in this run was a forced retrain: a retry or a clear of the
        task then attaches to it (or retries it if it failed) rather than training once more. ``latest_tags``:
        the latest submission's tags when already read."""
        if latest_tags is not None and latest_tags.get(FORCED_TAG) == "true":
            return True
        earlier = self.history[:-1] if latest_tags is not None else self.history
        for described in reversed(earlier):
            arn = described.get("TrainingJobArn")
            if arn and (await self.io.tags(str(arn))).get(FORCED_TAG) == "true":
                return True
        return False

    def _request(self, step: NextStep) -> tuple[CreateTrainingJobRequestTypeDef, int]:
        """The CreateTrainingJob request of ``step``, and its keep-alive (the plan's turn says, else the default;
        spot jobs keep no pool)."""
        turn = self.tracker.book.turns.get(self.name) if self.tracker is not None else None
        planned = turn.keep_alive_seconds if turn is not None else int(self.keep_alive_seconds or 0)
        keep_alive = 0 if step.spot else planned
        submission = Submission(
            self.name,
            self.run_key,
            step.attempt,
            spot=step.spot,
            keep_alive_seconds=keep_alive,
            airflow_try=self.try_id,
            forced=step.forced,
        )
        return compile_training_request(self.spec, self.city, submission), keep_alive

    async def submit(self, step: NextStep, first: bool) -> Attachment | None:
        """Wait for the city's turn and room, then create its job (or attach to the one of that name); None when
        the quota stayed in use past the capacity timeout (counted from the first refusal: the wait for a turn is
        not a capacity wait)."""
        request, keep_alive = self._request(step)
        name = str(request["TrainingJobName"])
        deadline: float | None = None
        retries = 0
        while True:
            await self.io.wait_turn(Wait(self.name, step.attempt, first=first, since=self.io.now()))
            keep_alive = self._keep_alive_at_create(request, keep_alive)
            tail = self._tail_at_create(step, keep_alive)
            self._mark_tail(
                name, tail is not None
            )  # before the create: a sweep meanwhile must not end its pool
            try:
                attachment = await self.io.create(request)
            except BaseException:
                self._mark_tail(name, False)
                self.io.release(self.name)
                raise
            if attachment is None or not attachment.created:
                self._mark_tail(
                    name, False
                )  # no job, or one created earlier: the sweep's rules decide its pool
            if attachment is None:
                self.refusals += 1
                self._refused(step.attempt)
                if self.on_refusal is not None:
                    self.on_refusal(self)
                self.io.release(self.name)
                cadence = self.cadence
                delay = capacity_delay(
                    retries, cadence.capacity_retry_seconds, cadence.capacity_retry_max_seconds
                )
                delay *= self.io.jitter(name, retries)
                deadline = deadline or self.io.now() + cadence.capacity_timeout_seconds
                if self.io.now() + delay > deadline:
                    return None
                self.log.warning(
                    "%s: instance quota in use (ResourceLimitExceeded); retrying in %.0f s", self.name, delay
                )
                await self.io.sleep(delay)
                retries, first = retries + 1, False
                continue
            if attachment.status not in TERMINAL_STATUSES:
                self.watching = attachment.job_name  # from its creation on: a stop (on_kill) must find it
            self._created(attachment, step, keep_alive, tail)
            if self.tracker is not None:
                self.tracker.observe([attachment.description], listed=False)
            return attachment

    def _refused(self, attempt: int) -> None:
        """The quota refused this city's create: the run's view of the account missed something, so the quota
        counts as full until the next listing (:meth:`AccountView.refused`) — before the city's place is given
        back, which would otherwise go to the next city only to be refused as well."""
        tracker = self.tracker
        turn = tracker.book.turns.get(self.name) if tracker is not None else None
        if tracker is not None and tracker.account is not None and turn is not None:
            tracker.account.refused(turn.quota_for(attempt))

    def _tail_at_create(self, step: NextStep, keep_alive: int) -> str | None:
        """The city's group when its job is created on-demand with keep-alive 0 although its turn planned one (no
        city of the group is left to take its pool), else None."""
        turn = self.tracker.book.turns.get(self.name) if self.tracker is not None else None
        if step.spot or keep_alive or turn is None or not (turn.warm_pool and turn.keep_alive_seconds > 0):
            return None
        return turn.group

    def _mark_tail(self, name: str, tail: bool) -> None:
        """Record job ``name`` as a tail already given keep-alive 0 (:meth:`RunTracker.release_tail`), or not: a
        job created with keep-alive 0 needs no UpdateTrainingJob to end a pool it never asked for."""
        if self.tracker is not None:
            self.tracker.release_tail(name, made=tail)

    def _created(self, attachment: Attachment, step: NextStep, keep_alive: int, tail: str | None) -> None:
        """Say how the job was created as to its pool, and why it keeps none when its turn planned one (``tail``:
        its group, no city of which is left to take the pool); for a job created earlier, the keep-alive it has."""
        if step.spot:
            pool = "spot: no warm pool"
        elif not attachment.created:
            resources = attachment.description.get("ResourceConfig") or {}
            pool = f"on-demand, keep-alive {int(resources.get('KeepAlivePeriodInSeconds') or 0)} s"
        elif tail is not None:
            pool = f"on-demand, keep-alive 0 s: no city of group {tail} is left to take its pool"
        else:
            pool = f"on-demand, keep-alive {keep_alive} s"
        verb = "created" if attachment.created else "attached to existing"
        self.log.info("%s: %s %s (%s)", self.name, verb, attachment.job_name, pool)

    def _keep_alive_at_create(self, request: CreateTrainingJobRequestTypeDef, planned: int) -> int:
        """The keep-alive the job is created with, written into ``request``: the tracker's
        (:meth:`RunTracker.keep_alive_at_create`) — 0 when no city of the group is left to take the pool over, more
        than planned when the run's cities start one at a time."""
        if self.tracker is None:
            return planned
        keep_alive = self.tracker.keep_alive_at_create(self.name, planned)
        resources = request["ResourceConfig"]
        if keep_alive == 0:
            resources.pop("KeepAlivePeriodInSeconds", None)
        elif keep_alive != planned:
            resources["KeepAlivePeriodInSeconds"] = keep_alive
        return keep_alive
