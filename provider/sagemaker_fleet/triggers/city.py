"""FleetCityTrigger: one city of a fleet run, from its turn to its result, entirely in the triggerer.

The training task defers here at once from its worker, and no worker process runs for a city after that.
The trigger waits for the city's turn in its warm-pool group (the run's shared poller admits it in the sweep that
saw a predecessor end), creates its job (the name is the idempotency key: a job that exists is attached to),
watches it through the same poller, re-submits spot jobs from the same checkpoint or falls back to on-demand as the
spec says, backs off while the instance quota is in use, and ends the task: ``TaskSuccessEvent`` with the result as
its XCom, ``TaskFailedEvent`` (Airflow's retries and callbacks apply) or ``TaskSkippedEvent``. With
``end_from_trigger=False`` (a synchronous wait, tests) it fires one ordinary event that the operator's
``execute_complete`` turns into the same outcome.

Every decision about a terminal job is :func:`sagemaker_fleet.jobs.attempts.next_step`; every decision about who
starts is :class:`sagemaker_fleet.dispatch.RunTracker`. A restarted trigger rebuilds everything from AWS: the run's
listing says which cities have jobs, a job's ``sagemaker-fleet:airflow-try`` tag says which task try made it.
"""

from __future__ import annotations

import asyncio
import datetime as dt
import random
import time
from collections.abc import AsyncIterator, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from airflow.triggers.base import (
    TaskFailedEvent,
    TaskSkippedEvent,
    TaskSuccessEvent,
    TriggerEvent,
)

from sagemaker_fleet.dispatch import DispatchBook, RunTracker, Wait
from sagemaker_fleet.fleetspec.load import load_fleet_spec
from sagemaker_fleet.fleetspec.names import run_key_floor, run_name_contains
from sagemaker_fleet.fleetspec.overrides import FleetOverrides, apply_overrides
from sagemaker_fleet.hooks.fleet import Attachment, CapacityUnavailableError
from sagemaker_fleet.jobs.attempts import NextStep, capacity_delay, next_step, stopped_by_someone
from sagemaker_fleet.jobs.describe import summarize
from sagemaker_fleet.jobs.progress import run_job_names
from sagemaker_fleet.jobs.request import (
    FORCED_TAG,
    STOPPED_BY_TAG,
    TRY_TAG,
    Submission,
    compile_training_request,
)
from sagemaker_fleet.jobs.statuses import TERMINAL_STATUSES
from sagemaker_fleet.links.fleet import SageMakerTrainingJobLink, TrainingJobLogsLink
from sagemaker_fleet.plan.errors import PlanFormatError
from sagemaker_fleet.triggers.base import RunPollerTrigger
from sagemaker_fleet.triggers.defaults import (
    CAPACITY_RETRY_SECONDS,
    CAPACITY_TIMEOUT_SECONDS,
    PLAN_XCOM_KEY,
    POLL_INTERVAL,
)
from sagemaker_fleet.triggers.errors import TriggerContextError, UnfitPlanError, retry_cannot_help
from sagemaker_fleet.triggers.poller import FleetPoller, watch_deadline, watch_until_terminal

if TYPE_CHECKING:
    from mypy_boto3_sagemaker.type_defs import CreateTrainingJobRequestTypeDef

    from sagemaker_fleet.fleetspec.model import CitySpec, FleetSpec
    from sagemaker_fleet.jobs.record import Description

#: Seconds between the task log's "still waiting" lines.
WAIT_LOG_EVERY = 300.0
#: A city that waits this long for its turn says why (not at once: hundreds of cities wait at a run's start).
WAIT_LOG_FIRST = 30.0


@dataclass(frozen=True)
class RunInfo:
    """Which Airflow run and task try the trigger works for."""

    run_key: str
    params: Mapping[str, Any] | None
    try_id: str | None  # ``{run_id}/{try_number}``
    dag_id: str | None
    run_id: str | None


@dataclass(frozen=True)
class Outcome:
    """How the city ended: ``success`` (with the result), ``failed`` (with the reason) or ``skipped``;
    ``links``: the extra links' XComs (console page, logs) of its latest job; ``retry``: whether a retry of the
    task may end otherwise (not for a failure whose cause a retry meets again, :func:`retry_cannot_help`)."""

    status: str
    result: dict[str, Any] | None = None
    message: str = ""
    links: dict[str, Any] | None = None
    retry: bool = True


_SPECS: dict[str, tuple[float, FleetSpec]] = {}


def _spec(path: str) -> FleetSpec:
    """The fleet spec, read once per file version per triggerer (hundreds of cities share it)."""
    import os

    mtime = os.path.getmtime(path)
    cached = _SPECS.get(path)
    if cached is None or cached[0] != mtime:
        _SPECS[path] = cached = (mtime, load_fleet_spec(path))
    return cached[1]


def _keep_alive_at_create(
    tracker: RunTracker, city: str, request: CreateTrainingJobRequestTypeDef, planned: int
) -> int:
    """Keep-alive 0 in ``request`` when the tracker says no city of the group is left to take the pool over
    (:meth:`RunTracker.keep_alive_at_create`); the keep-alive the job is created with."""
    keep_alive = tracker.keep_alive_at_create(city, planned)
    if keep_alive == 0:
        request["ResourceConfig"].pop("KeepAlivePeriodInSeconds", None)
    return keep_alive


def job_link_xcoms(region: str | None, domain: str | None, job_name: str) -> dict[str, Any]:
    """The XComs of a city task's two extra links: each link's parameters under its ``key`` (what ``get_link`` reads
    on a worker) and its URL under its ``xcom_key``, which is all Airflow's UI and REST API read. A task runner writes
    the URLs when a task ends on a worker; a task ended from the triggerer has none unless its event carries them."""
    value = {"region_name": region, "aws_domain": domain, "job_name": job_name}
    links = (SageMakerTrainingJobLink(), TrainingJobLogsLink())
    return {**{link.key: value for link in links}, **{link.xcom_key: link.format_link(**value) for link in links}}


class FleetCityTrigger(RunPollerTrigger):
    """Train one city of a fleet run (see the module docstring).

    :param spec_path: the fleet YAML.
    :param city: the city to train.
    :param run_key, params, try_id, dag_id, run_id: the run, as the operator took it from its task's context.
    :param use_params: apply the run's params (cities, spot, instance_type, dry_run).
    :param plan_task_id: the task whose ``plan`` XCom orders the run; without it the city starts at once.
    :param keep_alive_seconds: keep-alive when there is no plan (the plan's turn decides otherwise).
    :param force_retrain: train again even when the city's job of this run completed (once per run: a
        retry or a clear of the task attaches to the forced job).
    :param end_from_trigger: end the task from here (the operator's default: no second worker start).
    :param carry_pools: the run's pools are kept for the next run: its poller ends none early.
    :param aws_conn_id, region_name, verify, botocore_config: the AWS connection (:class:`FleetAwsTrigger`).
    """

    def __init__(
        self,
        *,
        spec_path: str,
        city: str,
        run_key: str | None = None,
        params: dict[str, Any] | None = None,
        try_id: str | None = None,
        dag_id: str | None = None,
        run_id: str | None = None,
        use_params: bool = False,
        plan_task_id: str | None = None,
        keep_alive_seconds: int | str = 0,
        force_retrain: bool = False,
        end_from_trigger: bool = True,
        carry_pools: bool = False,
        poll_interval: float = POLL_INTERVAL,
        capacity_retry_seconds: float = CAPACITY_RETRY_SECONDS,
        capacity_timeout_seconds: float = CAPACITY_TIMEOUT_SECONDS,
        **connection: Any,
    ) -> None:
        super().__init__(**connection)
        self.spec_path = spec_path
        self.city = city
        self.run_key = run_key
        self.params = params
        self.try_id = try_id
        self.dag_id = dag_id
        self.run_id = run_id
        self.use_params = use_params
        self.plan_task_id = plan_task_id
        self.keep_alive_seconds = keep_alive_seconds
        self.force_retrain = force_retrain
        self.end_from_trigger = end_from_trigger
        self.carry_pools = carry_pools
        self.poll_interval = float(poll_interval)
        self.capacity_retry_seconds = float(capacity_retry_seconds)
        self.capacity_timeout_seconds = float(capacity_timeout_seconds)
        self._watching: str | None = None  # the job this trigger waits on, for on_kill

    # ------------------------------------------------------------------------------------------ set-up

    def _run_info(self) -> RunInfo:
        if not self.run_key:
            raise TriggerContextError(f"{self.city}: no run_key given (the operator takes it from its task's context)")
        return RunInfo(self.run_key, self.params, self.try_id, self.dag_id, self.run_id)

    async def _plan_json(self, run: RunInfo) -> Any:
        """The plan task's ``plan`` XCom, read through the triggerer's API connection (off the event loop)."""
        from airflow.sdk.execution_time.xcom import XCom

        if not (self.plan_task_id and run.dag_id and run.run_id):
            raise UnfitPlanError(f"{self.city}: the plan's task, DAG and run must be known to read the plan")
        return await asyncio.to_thread(
            XCom.get_one, key=PLAN_XCOM_KEY, dag_id=run.dag_id, task_id=self.plan_task_id, run_id=run.run_id
        )

    async def _load_tracker(self, spec: FleetSpec, run: RunInfo) -> RunTracker:
        names = run_job_names(spec, run.run_key)
        if not self.plan_task_id:
            return RunTracker(DispatchBook.empty(), names)
        from sagemaker_fleet.plan import FleetPlan

        data = await self._plan_json(run)
        if data is None:
            raise UnfitPlanError(f"task {self.plan_task_id} published no plan for run {run.run_id}")
        try:
            plan = FleetPlan.from_json(data)
            if plan.fleet != spec.fleet:
                raise UnfitPlanError(f"the plan is for fleet {plan.fleet!r}, not {spec.fleet!r}")
            book = DispatchBook.from_plan(plan, spec)
        except (PlanFormatError, KeyError) as exc:  # KeyError: a city or group the fleet file no longer has
            raise UnfitPlanError(
                f"the plan of task {self.plan_task_id} does not fit {self.spec_path}: {exc}; the fleet file "
                "changed since the plan was made: clear the plan task to plan the run again"
            ) from exc
        self.log.info(
            "dispatching run %s by plan %s (%d jobs)", run.run_key, self.plan_task_id, len(plan.jobs)
        )
        return RunTracker(book, names, carry_pools=self.carry_pools)

    # ------------------------------------------------------------------------------------------ running

    async def run(self) -> AsyncIterator[TriggerEvent]:
        try:
            outcome = await self._train()
        except Exception as exc:  # noqa: BLE001 - the task fails with the reason instead of the trigger dying
            self.log.exception("%s: %s", self.city, exc)
            outcome = Outcome(
                "failed", message=f"{type(exc).__name__}: {exc}", retry=not retry_cannot_help(exc)
            )
        yield self._event(outcome)

    def _event(self, outcome: Outcome) -> TriggerEvent:
        # a failure no retry mends ends on a worker even from here: the task's execute_complete fails it without
        # its retries (Airflow retries a TaskFailedEvent while tries are left)
        if not self.end_from_trigger or not outcome.retry:
            return TriggerEvent(
                {
                    "status": outcome.status,
                    "result": outcome.result,
                    "message": outcome.message,
                    "links": outcome.links,
                    "retry": outcome.retry,
                }
            )
        if outcome.status == "success":
            return TaskSuccessEvent(xcoms={"return_value": outcome.result, **(outcome.links or {})})
        if outcome.status == "skipped":
            self.log.info("%s: skipped: %s", self.city, outcome.message)
            return TaskSkippedEvent()
        self.log.error("%s: failed: %s", self.city, outcome.message)
        return TaskFailedEvent(xcoms=outcome.links or None)

    async def _train(self) -> Outcome:
        run = self._run_info()
        spec = _spec(self.spec_path)
        overrides = FleetOverrides.from_params(run.params) if self.use_params else FleetOverrides()
        if self.use_params and (run.params or {}).get("dry_run"):
            return Outcome("skipped", message="dry run: nothing launched")
        spec = apply_overrides(spec, overrides)
        if self.city not in {c.name for c in spec.cities}:
            return Outcome("skipped", message="not among this run's cities")
        city = spec.city(self.city)
        poller = self.shared_poller(run_name_contains(run.run_key), self.poll_interval)
        poller.floor = run_key_floor(run.run_key)
        tracker = await poller.track(lambda: self._load_tracker(spec, run))
        history = await self._history(poller, tracker, spec, run)
        step = await self._decide(poller, city, run, history)
        while True:
            if step.reason:
                self.log.info("%s: %s", self.city, step.reason)
            if step.kind in ("done", "fail"):  # with the console and log links of the city's latest job
                links = await self._links(poller, str(history[-1]["TrainingJobName"])) if history else {}
                if step.kind == "fail":
                    return Outcome("failed", message=step.reason, links=links)
                return Outcome("success", result=self._result(spec, run, history), links=links)
            if step.kind == "submit":
                attachment = await self._submit(poller, tracker, spec, city, run, step, first=not history)
                if attachment is None:
                    return Outcome(
                        "failed",
                        message=(
                            f"no {city.instance_type} capacity for {self.capacity_timeout_seconds:.0f} s "
                            "(ResourceLimitExceeded)"
                        ),
                    )
                history = [*history, attachment.description]
                if not attachment.created and attachment.status in TERMINAL_STATUSES:
                    # a submission that had ended already: the run's listing did not show it yet when this try
                    # read the city's history (an earlier try made it). It is history: decide again from it, as
                    # if the listing had shown it, rather than end this try with that job's outcome.
                    step = await self._decide(poller, city, run, history)
                    continue
            latest = history[-1]
            created_at = latest.get("CreationTime")
            after = created_at - dt.timedelta(seconds=1) if isinstance(created_at, dt.datetime) else None
            self._watching = str(latest["TrainingJobName"])
            history[-1] = await watch_until_terminal(
                poller, self._watching, after, self.log, deadline_seconds=watch_deadline(latest)
            )
            self._watching = None
            step = next_step(city, history, new_try=False)

    async def _decide(
        self, poller: FleetPoller, city: CitySpec, run: RunInfo, history: list[Description]
    ) -> NextStep:
        """This try's next step from the city's submissions so far (the latest one's tags say which try made it,
        who stopped it and whether it was forced)."""
        tags = await self._ended_job_tags(poller, history)
        # made by this very try (the trigger restarted after it ended): its outcome stands; made by an earlier
        # try, it is this try's to retry (or, forced, to retrain)
        mine = tags is not None and bool(run.try_id) and tags.get(TRY_TAG) == run.try_id
        # stopped outside Airflow (the console, the CLI): Airflow-made stops (on_kill) carry the stopped-by tag
        stopped_outside = tags is not None and stopped_by_someone(history[-1]) and STOPPED_BY_TAG not in tags
        force = self.force_retrain and not mine and not await self._forced_before(poller, history, tags)
        return next_step(city, history, force=force, new_try=not mine, stopped_outside=stopped_outside)

    async def _history(
        self, poller: FleetPoller, tracker: RunTracker, spec: FleetSpec, run: RunInfo
    ) -> list[Description]:
        """Descriptions of the city's submissions in this run, oldest first. The run's listing says how many
        there are, so a city with none (the usual start) costs no call."""
        latest = tracker.latest.get(self.city)
        if latest is None:
            return []
        from sagemaker_fleet.fleetspec.names import job_name

        history: list[Description] = []
        for attempt in range(1, latest.attempt + 1):
            name = job_name(spec.fleet, self.city, run.run_key, attempt)
            described = await poller.call(f"describing {name}", poller.hook.adescribe, name)
            if described is None:
                break
            history.append(described)
        return history

    async def _ended_job_tags(self, poller: FleetPoller, history: list[Description]) -> dict[str, str] | None:
        """The tags of the city's latest submission once it has ended (one ListTags says which try made it, who
        stopped it and whether it was forced); None while it runs (it is attached to whoever made it) or when
        there is none."""
        if not history or history[-1].get("TrainingJobStatus") not in TERMINAL_STATUSES:
            return None
        arn = history[-1].get("TrainingJobArn")
        if not arn:
            return None
        return await poller.call(f"reading the tags of {arn}", poller.hook.atags, str(arn))

    async def on_kill(self) -> None:
        """A user acted on the task (marked it failed or success, or cleared it): Airflow calls this then, and not
        when a triggerer shuts down or hands its triggers over, so a restart never stops training. The job the
        city waits on stops billing: it is tagged ``sagemaker-fleet:stopped-by`` with the task try (a retry or
        clear then trains the city again; a job stopped outside Airflow is final) and stopped."""
        name = self._watching
        if name is None:
            return
        run = self._run_info()
        hook = self.fleet_hook()
        async with await hook.get_async_conn() as client:
            stopped = await hook.astop(
                client, name, {STOPPED_BY_TAG: f"airflow:{run.try_id or 'unknown'}"[:256]}
            )
        self.log.warning(
            "%s: %s after a user acted on the task",
            self.city,
            f"stopped {name}" if stopped else f"{name} had ended already; nothing to stop",
        )

    async def _forced_before(
        self, poller: FleetPoller, history: list[Description], latest_tags: dict[str, str] | None
    ) -> bool:
        """Whether an earlier submission of the city in this run was a forced retrain: a retry or a clear of the
        task then attaches to it (or retries it if it failed) rather than training once more. ``latest_tags``:
        the latest submission's tags when already read."""
        if latest_tags is not None and latest_tags.get(FORCED_TAG) == "true":
            return True
        earlier = history[:-1] if latest_tags is not None else history
        for described in reversed(earlier):
            arn = described.get("TrainingJobArn")
            if not arn:
                continue
            tags = await poller.call(f"reading the tags of {arn}", poller.hook.atags, str(arn))
            if tags.get(FORCED_TAG) == "true":
                return True
        return False

    async def _submit(
        self,
        poller: FleetPoller,
        tracker: RunTracker,
        spec: FleetSpec,
        city: CitySpec,
        run: RunInfo,
        step: NextStep,
        first: bool,
    ) -> Attachment | None:
        """Wait for the city's turn and room, then create its job (or attach to the one of that name); None when
        the quota stayed in use past the capacity timeout."""
        turn = tracker.book.turns.get(self.city)
        keep_alive = (
            0
            if step.spot
            else (turn.keep_alive_seconds if turn is not None else int(self.keep_alive_seconds or 0))
        )
        request = compile_training_request(
            spec,
            city,
            Submission(
                self.city,
                run.run_key,
                step.attempt,
                spot=step.spot,
                keep_alive_seconds=keep_alive,
                airflow_try=run.try_id,
                forced=step.forced,
            ),
        )
        deadline: float | None = (
            None  # counted from the first refusal: the wait for a turn is not a capacity wait
        )
        retries = 0
        while True:
            await self._wait_turn(
                poller, Wait(self.city, step.attempt, first=first, since=asyncio.get_running_loop().time())
            )
            keep_alive = _keep_alive_at_create(tracker, self.city, request, keep_alive)
            try:
                attachment = await poller.call(
                    f"creating {request['TrainingJobName']}", poller.hook.acreate_or_attach, request
                )
            except CapacityUnavailableError:
                poller.release(self.city)
                delay = capacity_delay(retries, self.capacity_retry_seconds) * random.uniform(0.5, 1.5)
                deadline = deadline or time.monotonic() + self.capacity_timeout_seconds
                if time.monotonic() + delay > deadline:
                    return None
                self.log.warning(
                    "%s: instance quota in use (ResourceLimitExceeded); retrying in %.0f s", self.city, delay
                )
                await asyncio.sleep(delay)
                retries, first = retries + 1, False
                continue
            except BaseException:
                poller.release(self.city)
                raise
            verb = "created" if attachment.created else "attached to existing"
            self.log.info(
                "%s: %s %s (%s, keep-alive %d s)",
                self.city,
                verb,
                attachment.job_name,
                "spot" if step.spot else "on-demand",
                keep_alive,
            )
            tracker.observe([attachment.description], listed=False)
            return attachment

    async def _wait_turn(self, poller: FleetPoller, wait: Wait) -> None:
        """Wait for the turn, saying why in the task log (after half a minute, then every few minutes; the run's
        waiting lines share a budget, :meth:`FleetPoller.take_wait_line`, so hundreds of cities never write at
        once)."""
        turn = asyncio.ensure_future(poller.wait_turn(wait))
        try:
            await asyncio.wait({turn}, timeout=WAIT_LOG_FIRST)
            while not turn.done():
                if poller.take_wait_line():
                    self.log.info("%s %s", self.city, poller.waiting_reason(self.city))
                    timeout = WAIT_LOG_EVERY
                else:
                    timeout = random.uniform(WAIT_LOG_FIRST / 2, WAIT_LOG_FIRST * 2)
                await asyncio.wait({turn}, timeout=timeout)
            turn.result()
        finally:
            if not turn.done():
                turn.cancel()

    async def _links(self, poller: FleetPoller, job_name: str) -> dict[str, Any]:
        """The extra links' XComs for ``job_name`` (region and partition read once per run and triggerer)."""
        try:
            region, domain = await poller.console()
        except Exception as exc:  # noqa: BLE001 - links are a convenience; the result stands without them
            self.log.warning("%s: no console links (%s)", self.city, exc)
            return {}
        return job_link_xcoms(region, domain, job_name)

    def _result(self, spec: FleetSpec, run: RunInfo, history: list[Description]) -> dict[str, Any]:
        return {
            "fleet": spec.fleet,
            "city": self.city,
            "run_key": run.run_key,
            "job_name": history[-1].get("TrainingJobName"),
            "attempts": len(history),
            "submissions": [str(d["TrainingJobName"]) for d in history],
            "job": summarize(history[-1]),
        }
