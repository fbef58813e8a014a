"""FleetTrainingOperator: train one city of a fleet, exactly once per run, deferring while SageMaker works."""

from __future__ import annotations

import datetime as dt
import random
import time
from collections.abc import Sequence
from functools import cached_property
from typing import TYPE_CHECKING, Any

from airflow.providers.amazon.aws.operators.base_aws import AwsBaseOperator
from airflow.providers.amazon.aws.utils.mixins import aws_template_fields
from airflow.providers.common.compat.sdk import AirflowException, AirflowSkipException

from sagemaker_fleet.aws.attempts import NextStep, next_step
from sagemaker_fleet.aws.describe import from_json_safe, summarize
from sagemaker_fleet.aws.request import Submission, compile_training_request
from sagemaker_fleet.hooks.fleet import (
    TERMINAL_STATUSES,
    Attachment,
    CapacityUnavailableError,
    SageMakerFleetHook,
)
from sagemaker_fleet.links.fleet import SageMakerTrainingJobLink, TrainingJobLogsLink
from sagemaker_fleet.spec.load import load_fleet_spec
from sagemaker_fleet.spec.names import job_name, run_key_for
from sagemaker_fleet.spec.overrides import FleetOverrides, apply_overrides

if TYPE_CHECKING:
    from airflow.sdk import Context

    from sagemaker_fleet.spec.model import CitySpec, FleetSpec

#: Upper bound on attempts scanned per city (re-submissions are few; this only bounds a pathological loop).
MAX_ATTEMPTS_SCANNED = 50


def context_run_key(context: Context) -> str:
    """The run key of the running DAG run: its logical date for scheduled runs, else a hash of the run id."""
    dag_run = context.get("dag_run")
    run_id = str(getattr(dag_run, "run_id", "") or context.get("run_id", ""))
    logical = context.get("logical_date")
    day = logical.strftime("%Y%m%d") if logical is not None else None
    return run_key_for(day, run_id)


class FleetTrainingOperator(AwsBaseOperator[SageMakerFleetHook]):
    """Train one city of a fleet spec on SageMaker.

    The job name is deterministic (CONTRACT §2), so a retry, a crashed worker or a restarted triggerer attaches to
    the job already running instead of launching a duplicate. Re-running a task whose city already completed in
    this run returns the existing result without training again; pass ``force_retrain=True`` to train anew
    (the new submission is named ``…-r{n}``).

    :param spec_path: path of the fleet YAML (templated).
    :param city: the city to train (templated).
    :param run_key: the run key; default: from the DAG run (logical date ``YYYYMMDD`` or a hash of the run id).
    :param keep_alive_seconds: warm-pool keep-alive from the plan (on-demand only; spot never keeps a pool).
    :param force_retrain: submit a new job even when the city's job of this run already completed.
    :param deferrable: wait in the triggerer instead of occupying a worker slot. Unlike the stock operators
        (``[operators] default_deferrable``, false by default) this defaults to True: at fleet scale a synchronous
        wait would hold hundreds of worker slots for hours.
    :param poll_interval: seconds between status sweeps of the run's jobs.
    :param capacity_retry_seconds: base back-off when the instance quota is in use (ResourceLimitExceeded).
    :param capacity_timeout_seconds: give up waiting for capacity after this long.
    :param use_params: apply the run's params (cities, spot, instance_type, dry_run) — the manual DAG's form.
    """

    aws_hook_class = SageMakerFleetHook
    template_fields: Sequence[str] = aws_template_fields("spec_path", "city", "run_key", "keep_alive_seconds")
    operator_extra_links = (SageMakerTrainingJobLink(), TrainingJobLogsLink())
    ui_color = "#f0ede4"

    def __init__(
        self,
        *,
        spec_path: str,
        city: str,
        run_key: str | None = None,
        keep_alive_seconds: int | str = 0,
        force_retrain: bool = False,
        deferrable: bool = True,
        poll_interval: float = 30.0,
        capacity_retry_seconds: float = 60.0,
        capacity_timeout_seconds: float = 6 * 3600.0,
        use_params: bool = False,
        **kwargs: Any,
    ) -> None:
        super().__init__(**kwargs)
        self.spec_path = spec_path
        self.city = city
        self.run_key = run_key
        self.keep_alive_seconds = keep_alive_seconds
        self.force_retrain = force_retrain
        self.deferrable = deferrable
        self.poll_interval = poll_interval
        self.capacity_retry_seconds = capacity_retry_seconds
        self.capacity_timeout_seconds = capacity_timeout_seconds
        self.use_params = use_params
        self._overrides = FleetOverrides()

    # ------------------------------------------------------------------------------------------ set-up

    @cached_property
    def fleet(self) -> FleetSpec:
        return apply_overrides(load_fleet_spec(self.spec_path), self._overrides)

    @cached_property
    def city_spec(self) -> CitySpec:
        try:
            return self.fleet.city(self.city)
        except KeyError as exc:
            raise AirflowException(f"city {self.city!r} is not in {self.spec_path}") from exc

    def _prepare(self, context: Context) -> str:
        """Fix this task's run key and overrides from the context; every entry point calls it first."""
        if self.use_params:
            self._overrides = FleetOverrides.from_params(context.get("params"))
            self.__dict__.pop("fleet", None)
            self.__dict__.pop("city_spec", None)
        if not self.run_key:
            self.run_key = context_run_key(context)
        return self.run_key

    def _run_key(self, context: Context) -> str:
        return self.run_key or self._prepare(context)

    def _history(
        self, run_key: str, upto: int = MAX_ATTEMPTS_SCANNED, known: Sequence[dict[str, Any]] = ()
    ) -> list[dict[str, Any]]:
        """Descriptions of this city's submissions in this run, oldest first (attempts 1..``upto`` at most);
        ``known``: attempts 1..k already described, so the scan goes on from k + 1."""
        history: list[dict[str, Any]] = list(known)
        for attempt in range(len(history) + 1, upto + 1):
            described = self.hook.describe(job_name(self.fleet.fleet, self.city, run_key, attempt))
            if described is None:
                break
            history.append(described)
        return history

    # ------------------------------------------------------------------------------------------ execute

    def execute(self, context: Context) -> dict[str, Any]:
        run_key = self._prepare(context)
        if self.use_params and (context.get("params") or {}).get("dry_run"):
            raise AirflowSkipException(f"{self.city}: dry run — nothing launched")
        if not self.force_retrain:
            # Create attempt 1 straight away, with no describe first: the name is the idempotency key. If the job
            # exists (a retry, a rerun, a crashed worker's earlier try) CreateTrainingJob refuses the duplicate
            # name, and the city's submissions are read to decide, exactly as below.
            first = next_step(self.city_spec, [], new_try=True)
            attachment = self._submit(context, first)
            if attachment is None:
                return {}  # deferred while waiting for capacity
            if attachment.created:
                return self._wait(context, [attachment.description])
            history = self._history(run_key, known=[attachment.description])  # attempt 1 is described already
        else:
            history = self._history(run_key)
        step = next_step(self.city_spec, history, force=self.force_retrain, new_try=True)
        return self._apply(context, step, history)

    def _apply(self, context: Context, step: NextStep, history: list[dict[str, Any]]) -> dict[str, Any]:
        run_key = self._run_key(context)
        if step.reason:
            self.log.info("%s: %s", self.city, step.reason)
        if step.kind == "done":
            self.log.info("%s already completed in run %s; returning its result", self.city, run_key)
            return self._result(history)
        if step.kind == "fail":
            raise AirflowException(f"{self.city}: {step.reason}")
        if step.kind == "submit":
            attachment = self._submit(context, step)
            if attachment is None:
                return {}  # deferred while waiting for capacity
            history = [*history, attachment.description]
        return self._wait(context, history)

    def _submit(self, context: Context, step: NextStep) -> Attachment | None:
        run_key = self._run_key(context)
        keep_alive = 0 if step.spot else int(self.keep_alive_seconds or 0)
        submission = Submission(self.city, run_key, step.attempt, spot=step.spot, keep_alive_seconds=keep_alive)
        request = compile_training_request(self.fleet, self.city_spec, submission)
        deadline = time.time() + self.capacity_timeout_seconds if step.deadline is None else step.deadline
        delay = step.delay or self.capacity_retry_seconds
        first_try = step.deadline is None  # not after a capacity wait, when time has passed
        while True:
            try:
                # no describe first: a job of this name that exists already is found through the duplicate-name
                # answer (after a capacity wait, when time has passed, the name is described first all the same)
                attachment = self.hook.create_or_attach(request, known_absent=first_try, describe_created=False)
                break
            except CapacityUnavailableError:
                if time.time() + delay > deadline:
                    raise AirflowException(
                        f"{self.city}: no {self.city_spec.instance_type} capacity for "
                        f"{self.capacity_timeout_seconds:.0f} s (ResourceLimitExceeded)"
                    ) from None
                wait = delay * random.uniform(0.5, 1.5)
                self.log.warning("%s: instance quota in use; retrying in %.0f s", self.city, wait)
                if self.deferrable:
                    self._defer_for_capacity(wait, step, deadline, min(delay * 2, 900.0))
                    return None
                time.sleep(wait)
                first_try = False
                delay = min(delay * 2, 900.0)
        verb = "created" if attachment.created else "attached to existing"
        self.log.info("%s: %s %s (%s)", self.city, verb, attachment.job_name, "spot" if step.spot else "on-demand")
        self._persist_links(context, attachment.job_name)
        return attachment

    def _defer_for_capacity(self, wait: float, step: NextStep, deadline: float, delay: float) -> None:
        from airflow.providers.standard.triggers.temporal import TimeDeltaTrigger

        self.defer(
            trigger=TimeDeltaTrigger(dt.timedelta(seconds=wait)),
            method_name="resume_after_capacity_wait",
            kwargs={"attempt": step.attempt, "spot": step.spot, "deadline": deadline, "delay": delay},
        )

    def resume_after_capacity_wait(
        self,
        context: Context,
        event: Any = None,
        attempt: int = 1,
        spot: bool = False,
        deadline: float | None = None,
        delay: float | None = None,
    ) -> dict[str, Any]:
        """Back from a capacity wait: the deadline and the grown back-off travel with the deferral."""
        run_key = self._prepare(context)
        history = self._history(run_key)
        if len(history) >= attempt:  # someone else created it meanwhile: attach
            return self._wait(context, history)
        step = NextStep("submit", attempt, spot=spot, deadline=deadline, delay=delay)
        return self._apply(context, step, history)

    def _persist_links(self, context: Context, name: str) -> None:
        region = self.hook.conn_region_name
        partition = self.hook.conn_partition
        SageMakerTrainingJobLink.persist(context, self, region_name=region, aws_partition=partition, job_name=name)
        TrainingJobLogsLink.persist(context, self, region_name=region, aws_partition=partition, job_name=name)

    # ------------------------------------------------------------------------------------------ waiting

    def _wait(self, context: Context, history: list[dict[str, Any]]) -> dict[str, Any]:
        latest = history[-1]
        name = str(latest["TrainingJobName"])
        if latest["TrainingJobStatus"] in TERMINAL_STATUSES:
            return self._on_terminal(context, history)
        if self.deferrable:
            from sagemaker_fleet.triggers.fleet import FleetJobTrigger

            created = latest.get("CreationTime")
            self.defer(
                trigger=FleetJobTrigger(
                    job_name=name,
                    name_contains=f"-{self._run_key(context)}",
                    poll_interval=self.poll_interval,
                    created_after=created.isoformat() if isinstance(created, dt.datetime) else None,
                    aws_conn_id=self.aws_conn_id,
                    region_name=self.region_name,
                    verify=self.verify,
                    botocore_config=self.botocore_config,
                ),
                method_name="execute_complete",
            )
        while True:
            time.sleep(self.poll_interval)
            described = self.hook.describe(name)
            if described is not None and described["TrainingJobStatus"] in TERMINAL_STATUSES:
                return self._on_terminal(context, [*history[:-1], described])

    def execute_complete(self, context: Context, event: dict[str, Any] | None = None) -> dict[str, Any]:
        if not event or event.get("status") != "terminal":
            message = (event or {}).get("message", "no event")
            raise AirflowException(f"{self.city}: waiting for the training job failed: {message}")
        run_key = self._prepare(context)
        return self._on_terminal(context, self._terminal_history(run_key, event))

    def _terminal_history(self, run_key: str, event: dict[str, Any]) -> list[dict[str, Any]]:
        """The city's submissions once the watched one ended. The trigger's event carries that one's description,
        so only earlier attempts (spot chains) are described again; no later attempt can exist, as only this task
        instance submits the next one. Without a usable event, scan AWS as ``execute`` does."""
        description = event.get("description")
        if isinstance(description, dict):
            names = [job_name(self.fleet.fleet, self.city, run_key, n) for n in range(1, MAX_ATTEMPTS_SCANNED + 1)]
            watched = description.get("TrainingJobName")
            if watched in names:
                attempt = names.index(watched) + 1
                earlier = self._history(run_key, upto=attempt - 1)
                if len(earlier) == attempt - 1:
                    return [*earlier, from_json_safe(description)]
        return self._history(run_key)

    def _on_terminal(self, context: Context, history: list[dict[str, Any]]) -> dict[str, Any]:
        step = next_step(self.city_spec, history, force=False, new_try=False)
        if step.kind == "done":
            return self._result(history)
        return self._apply(context, step, history)

    def _result(self, history: list[dict[str, Any]]) -> dict[str, Any]:
        latest = summarize(history[-1])
        return {
            "fleet": self.fleet.fleet,
            "city": self.city,
            "run_key": self.run_key,
            "job_name": latest["job_name"],
            "attempts": len(history),
            "submissions": [str(d["TrainingJobName"]) for d in history],
            "job": latest,
        }
