"""FleetCityTrigger: one city of a fleet run, from its turn to its result, entirely in the triggerer.

The training task defers here at once from its worker, and no worker process runs for a city after that.
The trigger is the Airflow adapter of a :class:`~sagemaker_fleet.dispatch.city_run.CityRun`, which owns the city's
state and its steps (wait for its turn in its warm-pool group — the run's session admits it in the sweep that
saw a predecessor end —, create its job, watch it, re-submit spot jobs from the same checkpoint or fall back to
on-demand as the spec says, back off while the instance quota is in use); its I/O goes through the run's session
(:class:`~sagemaker_fleet.triggers.city_io.SessionCityIO`). The trigger serialises, reads the fleet file and the
run's plan, and ends the task: ``TaskSuccessEvent`` with the result as its XCom, ``TaskFailedEvent`` (Airflow's
retries and callbacks apply) or ``TaskSkippedEvent``. With ``end_from_trigger=False`` (a synchronous wait, tests) it
fires one ordinary event that the operator's ``execute_complete`` turns into the same outcome.

Every decision about a terminal job is :func:`sagemaker_fleet.jobs.attempts.next_step`; every decision about who
starts is :class:`sagemaker_fleet.dispatch.RunTracker`. A restarted trigger rebuilds everything from AWS: the run's
listing says which cities have jobs, a job's ``sagemaker-fleet:airflow-try`` tag says which task try made it.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from airflow.triggers.base import (
    TaskFailedEvent,
    TaskSkippedEvent,
    TaskSuccessEvent,
    TriggerEvent,
)

from sagemaker_fleet.contract import PLAN_XCOM_KEY, POLL_INTERVAL
from sagemaker_fleet.dispatch import RunOptions, dispatch_from_plan
from sagemaker_fleet.dispatch.cadence import Cadence, inline_keep_alive
from sagemaker_fleet.dispatch.city_run import CityEnd, CityRun
from sagemaker_fleet.failures import TriggerContextError, UnfitPlanError, retry_cannot_help
from sagemaker_fleet.fleetspec.names import STOPPED_BY_TAG, run_key_floor, run_name_contains
from sagemaker_fleet.fleetspec.runspec import load_run_spec
from sagemaker_fleet.jobs.describe import summarize
from sagemaker_fleet.links.fleet import SageMakerTrainingJobLink, TrainingJobLogsLink
from sagemaker_fleet.observability import lineage as ol
from sagemaker_fleet.observability.facets import JOB_FACET, job_facet_fields, model_artifact, training_inputs
from sagemaker_fleet.observability.metrics import job_end_measurements, refusal_measurement
from sagemaker_fleet.observability.stats import RunSignals, send
from sagemaker_fleet.plan.errors import ForeignPlanError, PlanFormatError
from sagemaker_fleet.triggers.base import RunPollerTrigger
from sagemaker_fleet.triggers.city_io import SessionCityIO
from sagemaker_fleet.triggers.defaults import (
    CityOptions,
    CityTiming,
    TaskTry,
    city_trigger_kwargs,
)
from sagemaker_fleet.triggers.inline import GAPS, dags_test_task_gap, one_at_a_time_line, stop_on_sigterm
from sagemaker_fleet.triggers.offloop import off_loop
from sagemaker_fleet.triggers.session import SessionSetup

if TYPE_CHECKING:
    from sagemaker_fleet.dispatch.sweep import RunSweeps
    from sagemaker_fleet.fleetspec.model import FleetSpec
    from sagemaker_fleet.triggers.connection import RunConnection
    from sagemaker_fleet.triggers.session import RunSession


@dataclass(frozen=True)
class EndpointClock:
    """The endpoint's clock speed (simulated seconds per real second; 1 against AWS) and the city's poll interval
    in real seconds."""

    speed: float
    poll_interval: float


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


def job_link_xcoms(region: str | None, domain: str | None, job_name: str) -> dict[str, Any]:
    """The XComs of a city task's two extra links: each link's parameters under its ``key`` (what ``get_link`` reads
    on a worker) and its URL under its ``xcom_key``, which is all Airflow's UI and REST API read. A task runner writes
    the URLs when a task ends on a worker; a task ended from the triggerer has none unless its event carries them."""
    value = {"region_name": region, "aws_domain": domain, "job_name": job_name}
    links = (SageMakerTrainingJobLink(), TrainingJobLogsLink())
    return {
        **{link.key: value for link in links},
        **{link.xcom_key: link.format_link(**value) for link in links},
    }


class FleetCityTrigger(RunPollerTrigger):
    """Train one city of a fleet run (see the module docstring).

    :param spec_path: the fleet YAML.
    :param city: the city to train.
    :param task_try: the run and task try, as the operator took them from its task's context, and how the try
        started (:class:`~sagemaker_fleet.triggers.defaults.TaskTry`).
    :param options: how the city takes its turn and its pool, the training task's settings
        (:class:`~sagemaker_fleet.triggers.defaults.CityOptions`).
    :param timing: the city's clocks (:class:`~sagemaker_fleet.triggers.defaults.CityTiming`).
    :param aws_conn_id, region_name, verify, botocore_config: the AWS connection (:class:`FleetAwsTrigger`).

    Each group is given as itself or as its row's dict (the fields that differ from its defaults), which is how
    :meth:`serialize` stores it and the triggerer passes it back.
    """

    def __init__(
        self,
        *,
        spec_path: str,
        city: str,
        task_try: TaskTry | Mapping[str, Any] | None = None,
        options: CityOptions | Mapping[str, Any] | None = None,
        timing: CityTiming | Mapping[str, Any] | None = None,
        **connection: Any,
    ) -> None:
        self.task_try = TaskTry.of(task_try)
        self.options = CityOptions.of(options)
        self.timing = CityTiming.of(timing)
        super().__init__(**connection)  # anything else: the base refuses it
        self.spec_path = spec_path
        self.city = city
        #: The city's run once it has begun (its state: submissions so far, the job it waits on).
        self.city_run: CityRun | None = None
        #: The run's metrics in this triggerer (shared through the run's session).
        self.signals: RunSignals | None = None

    def serialize(self) -> tuple[str, dict[str, Any]]:
        return f"{type(self).__module__}.{type(self).__qualname__}", city_trigger_kwargs(
            self.spec_path,
            self.city,
            task_try=self.task_try,
            options=self.options,
            timing=self.timing,
            connection=self.aws_kwargs(),
        )

    # ------------------------------------------------------------------------------------------ set-up

    @property
    def cadence(self) -> Cadence:
        """The run's intervals, with this task's settings (the poll interval, the capacity back-off)."""
        timing = self.timing
        return Cadence(
            timing.poll_interval or POLL_INTERVAL,
            capacity_retry_seconds=timing.capacity_retry_seconds,
            capacity_timeout_seconds=timing.capacity_timeout_seconds,
        )

    def _run_key(self) -> str:
        """The task try's run key, which every job name of the city carries."""
        if not self.task_try.run_key:
            raise TriggerContextError(
                f"{self.city}: no run_key given (the operator takes it from its task's context)"
            )
        return self.task_try.run_key

    async def _plan_json(self) -> Any:
        """The plan task's ``plan`` XCom, read through the triggerer's API connection, off the event loop
        (:func:`~sagemaker_fleet.triggers.offloop.off_loop`: a plain thread's read killed Airflow 3.0's runner)."""
        from airflow.sdk.execution_time.xcom import XCom

        run = self.task_try
        if run.plan is not None:
            return run.plan
        if not (self.options.plan_task_id and run.dag_id and run.run_id):
            raise UnfitPlanError(f"{self.city}: the plan's task, DAG and run must be known to read the plan")
        return await off_loop(
            XCom.get_one,
            key=PLAN_XCOM_KEY,
            dag_id=run.dag_id,
            task_id=self.options.plan_task_id,
            run_id=run.run_id,
        )

    async def _build_dispatch(self, spec: FleetSpec, run_key: str, clock: EndpointClock) -> RunSweeps:
        """The run's dispatch by its plan (none: every city starts at once), its listings from the day before a
        dated run key. With a plan the run's cities are the plan's: the task's conf carries none
        (:meth:`FleetTrainingOperator._conf`)."""
        floor = run_key_floor(run_key)
        if not self.options.plan_task_id:
            return dispatch_from_plan(None, spec, run_key, self.cadence, floor=floor)
        from sagemaker_fleet.plan import FleetPlan

        data = await self._plan_json()
        if data is None:
            raise UnfitPlanError(
                f"task {self.options.plan_task_id} published no plan for run {self.task_try.run_id}"
            )
        options = RunOptions(carry_pools=self.options.carry_pools)
        if self.task_try.one_at_a_time:
            keep = inline_keep_alive(clock.poll_interval, dags_test_task_gap(), clock.speed)
            options = RunOptions(
                carry_pools=self.options.carry_pools, one_at_a_time=True, inline_keep_alive=keep
            )
        try:
            plan = FleetPlan.from_json(data)
            sweeps = dispatch_from_plan(plan, spec, run_key, self.cadence, options=options, floor=floor)
        except ForeignPlanError as exc:
            raise UnfitPlanError(str(exc)) from exc
        except (PlanFormatError, KeyError) as exc:  # KeyError: a city or group the fleet file no longer has
            raise UnfitPlanError(
                f"the plan of task {self.options.plan_task_id} does not fit {self.spec_path}: {exc}; the fleet file "
                "changed since the plan was made: clear the plan task to plan the run again"
            ) from exc
        self.log.info(
            "dispatching run %s by plan %s (%d jobs)", run_key, self.options.plan_task_id, len(plan.jobs)
        )
        if self.task_try.one_at_a_time:
            GAPS.city_started()
            turns = sweeps.tracker.book.turns if sweeps.tracker is not None else {}
            self.log.info(
                "%s",
                one_at_a_time_line(
                    self.city, turns.get(self.city), len(turns), options.inline_keep_alive, clock.speed
                ),
            )
        return sweeps

    # ------------------------------------------------------------------------------------------ running

    async def run(self) -> AsyncIterator[TriggerEvent]:
        try:
            if self.task_try.one_at_a_time:
                outcome = await stop_on_sigterm(self._train(), self._stopped_by_sigterm)
            else:
                outcome = await self._train()
        except Exception as exc:  # noqa: BLE001 - the task fails with the reason instead of the trigger dying
            self.log.exception("%s: %s", self.city, exc)
            outcome = Outcome(
                "failed", message=f"{type(exc).__name__}: {exc}", retry=not retry_cannot_help(exc)
            )
        await self._observe(outcome)
        yield self._event(outcome)

    def _stopped_by_sigterm(self) -> None:
        """What SIGTERM leaves behind in ``airflow dags test``: the job the city waits on trains on in SageMaker
        (a stop would lose its work), and a new test of the same logical date attaches to it by its name."""
        name = self.city_run.watching if self.city_run is not None else None
        self.log.warning(
            "%s: SIGTERM: airflow dags test stops here.%s",
            self.city,
            f" {name} keeps training in SageMaker: the next `airflow dags test` of this date attaches to it, or "
            f"stop it with `aws sagemaker stop-training-job --training-job-name {name}`"
            if name
            else " No job of this city is running.",
        )

    def _job_ended(self, city_run: CityRun, description: Any) -> None:
        """Metrics of a job whose end the city's run sees (its start, re-submission, hand-off), sent at once."""
        if self.signals is not None:
            try:
                send(job_end_measurements(city_run, description, self.signals.ledger))
            except Exception as exc:  # noqa: BLE001 - metrics never change how a city ends
                self.log.debug("%s: metrics not sent: %s", self.city, exc)

    @staticmethod
    def _refused(city_run: CityRun) -> None:
        send([refusal_measurement(city_run)])

    async def _observe(self, outcome: Outcome) -> None:
        """When this trigger ends the task: the close of the task's lineage run (the worker's listener closes it
        otherwise). The city's metrics went as its jobs ended."""
        if self.task_try.lineage and self.task_try.end_from_trigger and outcome.retry and ol.enabled():
            values = self._safe_lineage()
            lineage = None
            if values:
                lineage = ol.operator_lineage(
                    values["inputs"], values["outputs"], {JOB_FACET: values["facet"]}
                )
            await ol.emit_city_end(self.task_try.lineage, outcome.status, lineage, outcome.message)

    def _lineage(self) -> dict[str, Any] | None:
        """The city's datasets and facet as JSON values (its latest job's channels in, its model artifact out once
        completed, the ``sagemakerFleetJob`` facet), or None before any job. They travel in the event when the task
        ends on a worker, where the lineage listener asks the operator for them."""
        city_run, signals = self.city_run, self.signals
        if city_run is None or not city_run.history or signals is None:
            return None
        latest = city_run.history[-1]
        output = model_artifact(latest) if latest.get("TrainingJobStatus") == "Completed" else None
        return {
            "inputs": training_inputs(latest, city_run.city.train_s3_uri),
            "outputs": [output] if output else [],
            "facet": job_facet_fields(
                city_run.spec,
                self.city,
                city_run.run_key,
                latest,
                len(city_run.history),
                signals.ledger.reused,
            ),
        }

    def _safe_lineage(self) -> dict[str, Any] | None:
        try:
            return self._lineage()
        except Exception as exc:  # noqa: BLE001 - an event without lineage still ends the task
            self.log.warning("%s: no lineage datasets: %s", self.city, exc)
            return None

    def _event(self, outcome: Outcome) -> TriggerEvent:
        # a failure no retry mends ends on a worker even from here: the task's execute_complete fails it without
        # its retries (Airflow retries a TaskFailedEvent while tries are left)
        if not self.task_try.end_from_trigger or not outcome.retry:
            return TriggerEvent(
                {
                    "status": outcome.status,
                    "result": outcome.result,
                    "message": outcome.message,
                    "links": outcome.links,
                    "retry": outcome.retry,
                    "lineage": self._safe_lineage(),
                    # the try it answers: a task resumed with an earlier try's event starts again instead
                    "try_id": self.task_try.try_id,
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
        run, run_key = self.task_try, self._run_key()
        # read once per file version per triggerer (hundreds of cities share it)
        this_run = load_run_spec(self.spec_path, run.params, use_params=self.options.use_params, cached=True)
        if this_run.dry_run:
            return Outcome("skipped", message="dry run: nothing launched")
        spec = this_run.spec
        if self.city not in {c.name for c in spec.cities}:
            return Outcome("skipped", message="not among this run's cities")
        session = await self.open_session(
            run_name_contains(run_key),
            self.timing.poll_interval or POLL_INTERVAL,
            spec.fleet,
            lambda connection: self._session_setup(spec, run_key, connection),
        )
        self.signals = session.signals
        await self._endpoint_clock(session.connection)  # the interval this city asks of the run's sweeps
        tracker = await session.first_listing()
        if tracker.book.turns and self.city not in tracker.book.turns:
            return Outcome("skipped", message="not among this run's cities (the run's plan)")
        self.city_run = city_run = CityRun(
            spec,
            spec.city(self.city),
            run_key,
            SessionCityIO(session, self.city, self.log),
            self.log,
            tracker,
            try_id=run.try_id,
            force_retrain=self.options.force_retrain,
            keep_alive_seconds=int(self.options.keep_alive_seconds or 0),
            cadence=self.cadence,
            on_job_end=self._job_ended,
            on_refusal=self._refused,
        )
        end = await city_run.train()
        if self.task_try.one_at_a_time:
            GAPS.job_ended()  # from here to the next city's start is Airflow's own gap
        return await self._outcome(end, city_run, session, spec)

    async def _session_setup(self, spec: FleetSpec, run_key: str, connection: RunConnection) -> SessionSetup:
        """What the run's session in this triggerer is opened with, by the run's first city trigger here: the run's
        dispatch (its plan read, its cadence and listing floor) and its metrics."""
        clock = await self._endpoint_clock(connection)
        return SessionSetup(await self._build_dispatch(spec, run_key, clock), RunSignals(spec.fleet, run_key))

    async def _endpoint_clock(self, connection: RunConnection) -> EndpointClock:
        """The endpoint's speed (1 against AWS) and the poll interval the city asks of the run's sweeps: its own,
        or 30 s of the endpoint's clock when it sets none."""
        speed = await connection.endpoint_speed()
        interval = self.cadence.endpoint_poll_interval(self.timing.poll_interval, speed)
        connection.ask_interval(interval)
        return EndpointClock(speed, interval)

    async def _outcome(
        self, end: CityEnd, city_run: CityRun, session: RunSession, spec: FleetSpec
    ) -> Outcome:
        """The task's outcome, with the console and log links of the city's latest job (none when the quota
        stayed in use)."""
        if end.kind == "no_capacity":
            return Outcome("failed", message=end.reason)
        history = city_run.history
        links = await self._links(session, str(history[-1]["TrainingJobName"])) if history else {}
        if end.kind == "fail":
            return Outcome("failed", message=end.reason, links=links)
        return Outcome("success", result=self._result(spec, city_run), links=links)

    async def on_kill(self) -> None:
        """A user acted on the task (marked it failed or success, or cleared it): Airflow calls this then, and not
        when a triggerer shuts down or hands its triggers over, so a restart never stops training. The job the
        city waits on stops billing: it is tagged ``sagemaker-fleet:stopped-by`` with the task try (a retry or
        clear then trains the city again; a job stopped outside Airflow is final) and stopped."""
        name = self.city_run.watching if self.city_run is not None else None
        if name is None:
            return
        hook = self.fleet_hook()
        async with await hook.get_async_conn() as client:
            stopped = await hook.astop(
                client, name, {STOPPED_BY_TAG: f"airflow:{self.task_try.try_id or 'unknown'}"[:256]}
            )
        self.log.warning(
            "%s: %s after a user acted on the task",
            self.city,
            f"stopped {name}" if stopped else f"{name} had ended already; nothing to stop",
        )

    async def _links(self, session: RunSession, job_name: str) -> dict[str, Any]:
        """The extra links' XComs for ``job_name`` (region and partition read once per run and triggerer)."""
        try:
            region, domain = await session.console()
        except Exception as exc:  # noqa: BLE001 - links are a convenience; the result stands without them
            self.log.warning("%s: no console links (%s)", self.city, exc)
            return {}
        return job_link_xcoms(region, domain, job_name)

    def _result(self, spec: FleetSpec, city_run: CityRun) -> dict[str, Any]:
        history = city_run.history
        return {
            "fleet": spec.fleet,
            "city": self.city,
            "run_key": city_run.run_key,
            "job_name": history[-1].get("TrainingJobName"),
            "attempts": len(history),
            "submissions": [str(d["TrainingJobName"]) for d in history],
            "job": summarize(history[-1]),
        }
