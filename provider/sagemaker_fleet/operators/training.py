"""FleetTrainingOperator: train one city of a fleet, exactly once per run, waiting and ending in the triggerer."""

from __future__ import annotations

import asyncio
import dataclasses
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from sagemaker_fleet.compat import AirflowException, AirflowSkipException
from sagemaker_fleet.contract import PLAN_XCOM_KEY, task_try_id
from sagemaker_fleet.hooks.connection import aws_template_fields
from sagemaker_fleet.links.fleet import SageMakerTrainingJobLink, TrainingJobLogsLink
from sagemaker_fleet.observability.lineage import lineage_ids
from sagemaker_fleet.operators.aws import FleetAwsOperator, task_conf, task_run_key
from sagemaker_fleet.triggers.defaults import (
    CITY_TRIGGER_CLASSPATH,
    CityOptions,
    CityTiming,
    TaskTry,
    TriggerHandle,
    city_trigger_kwargs,
)

if TYPE_CHECKING:
    from airflow.sdk import Context

    from sagemaker_fleet.observability.lineage import Lineage
    from sagemaker_fleet.triggers.city import FleetCityTrigger

__all__ = ["FleetTrainingOperator"]


class FleetTrainingOperator(FleetAwsOperator):
    """Train one city of a fleet spec on SageMaker.

    The task defers at once to :class:`FleetCityTrigger`, which waits, trains and ends it from the triggerer, so no
    worker is held per city; in a fleet DAG it is mapped over the run's cities. The job name is deterministic
    (docs/formats.md, job names), so a retry, a restarted triggerer or a cleared task attaches to the running job,
    and a city that completed in this run returns its result; ``CityOptions(force_retrain=True)`` trains anew once
    per run (the submission ``…-r{n}``, tagged ``sagemaker-fleet:forced``, which later tries attach to).

    :param spec_path: path of the fleet YAML (templated).
    :param city: the city to train (templated).
    :param run_key: the run key; default: from the DAG run (logical date ``YYYYMMDD``, or a hash of the DAG and the
        run id; of the DAG and the logical date under ``airflow dags test``).
    :param options: how the city takes its turn and its warm pool
        (:class:`~sagemaker_fleet.triggers.defaults.CityOptions`, which documents and defaults each field); its
        ``keep_alive_seconds`` is templated, as the operator's ``keep_alive_seconds``.
    :param timing: the city's clocks (:class:`~sagemaker_fleet.triggers.defaults.CityTiming`).
    :param deferrable: wait in the triggerer (default) instead of holding a worker slot; a synchronous wait does
        not read the plan, so the city starts at once.
    :param kwargs: the AWS connection (``aws_conn_id``, ``region_name``, ``verify``, ``botocore_config``:
        :class:`~sagemaker_fleet.operators.aws.FleetAwsOperator`'s) and ``BaseOperator``'s arguments.

    Its module imports neither boto3 nor the trigger (:mod:`sagemaker_fleet.triggers.defaults`): a worker runs it
    once per city only to defer, and should import nothing it does not use.
    """

    template_fields: Sequence[str] = aws_template_fields("city", "keep_alive_seconds", "run_key", "spec_path")
    operator_extra_links = (SageMakerTrainingJobLink(), TrainingJobLogsLink())
    ui_color = "#f0ede4"

    def __init__(
        self,
        *,
        spec_path: str,
        city: str,
        run_key: str | None = None,
        options: CityOptions | None = None,
        timing: CityTiming | None = None,
        deferrable: bool = True,
        **kwargs: Any,
    ) -> None:
        super().__init__(**kwargs)
        self.spec_path = spec_path
        self.city = city
        self.run_key = run_key
        self.options = options or CityOptions()
        self.timing = timing or CityTiming()
        self.deferrable = deferrable
        #: The trigger's outcome when the task ends here (:meth:`execute_complete`), for the lineage listener.
        self._outcome: dict[str, Any] | None = None

    @property
    def keep_alive_seconds(self) -> int | str:
        """``options.keep_alive_seconds``, a template field of the operator: Airflow renders it here and sets it
        back (the options are frozen, so setting it replaces them)."""
        return self.options.keep_alive_seconds

    @keep_alive_seconds.setter
    def keep_alive_seconds(self, value: int | str) -> None:
        self.options = dataclasses.replace(self.options, keep_alive_seconds=value)

    def _trigger_kwargs(self, task_try: TaskTry) -> dict[str, Any]:
        """The trigger's row: this task's settings and ``task_try`` (:func:`city_trigger_kwargs`)."""
        return city_trigger_kwargs(
            self.spec_path,
            self.city,
            task_try=task_try,
            options=self.options,
            timing=self.timing,
            connection=self.connection.to_json(),
        )

    # ------------------------------------------------------------------------------------------ on a worker

    def execute(self, context: Context) -> Any:
        """Hand the city to its trigger at once; the trigger ends the task from the triggerer (a failure that no
        retry mends comes back here, to :meth:`execute_complete`). Under ``airflow dags test`` Airflow runs the
        trigger in line; with ``deferrable=False`` it runs here."""
        ti = context["ti"]
        inline = _under_dag_test()
        task_try = TaskTry(
            run_key=self.run_key or task_run_key(context),
            params=self._conf(context),
            try_id=task_try_id(ti.run_id, ti.try_number),
            dag_id=ti.dag_id,
            run_id=ti.run_id,
            end_from_trigger=self.deferrable and not inline,
            one_at_a_time=inline,
            # dag.test() runs the trigger in line, where Airflow 3.0 gives it no way to read XComs: hand it the plan
            plan=self._plan(context) if inline and self.deferrable else None,
            # OpenLineage on: the trigger that ends the task closes the lineage run the listener opened here
            lineage=lineage_ids(context, self) if self.deferrable and not inline else None,
        )
        kwargs = self._trigger_kwargs(task_try)
        if self.deferrable and not inline:  # the triggerer imports the trigger; this process need not
            self.defer(trigger=TriggerHandle(CITY_TRIGGER_CLASSPATH, kwargs), method_name="execute_complete")
        from sagemaker_fleet.triggers.city import FleetCityTrigger

        trigger = FleetCityTrigger(**kwargs)
        if self.deferrable:
            # dag.test() runs this very object in line, outside the task: SIGTERM there ends the command (raised in
            # the task, the task runner would only fail the task and the test would go on), at the cost of a second
            # task start to resume it — Airflow's own gap between two cities, which the city's keep-alive covers
            self.defer(trigger=trigger, method_name="execute_complete")
        # a synchronous wait cannot read the plan: start at once
        trigger.options = dataclasses.replace(trigger.options, plan_task_id=None)
        return self.execute_complete(context, asyncio.run(_first_event(trigger)))

    def _conf(self, context: Context) -> dict[str, Any] | None:
        """What of the run's conf travels to the trigger (with ``use_params``): its known keys that differ from
        their defaults, never the conf as sent; the cities not at all where the run's plan names them (a deferred
        city reads the plan), so a city's trigger row stays the same size however many cities the run has. A conf
        that breaks the fleet DAG's contract fails the task without retries."""
        if not self.options.use_params:
            return None
        from sagemaker_fleet.fleetspec.errors import RunConfError
        from sagemaker_fleet.fleetspec.runconf import parse_run_conf

        try:
            conf = parse_run_conf(task_conf(context)).to_json()
        except RunConfError as exc:
            from sagemaker_fleet.failures import refused

            raise refused(exc) from None
        if self.deferrable and self.options.plan_task_id:
            conf.pop("cities", None)
        return conf or None

    def _plan(self, context: Context) -> Any:
        """The run's plan (the plan task's ``plan`` XCom), or None without a plan task."""
        if not self.options.plan_task_id:
            return None
        return context["ti"].xcom_pull(task_ids=self.options.plan_task_id, key=PLAN_XCOM_KEY)

    def execute_complete(self, context: Context, event: Any = None) -> Any:
        """The trigger's outcome when it did not end the task itself (a synchronous wait, or a failure no retry
        mends: :class:`CityCannotTrainError`): the result, a skip or the failure."""
        if not isinstance(event, dict):
            raise AirflowException(f"{self.city}: the training trigger ended without an outcome ({event!r})")
        ti = context["ti"]
        if event.get("try_id") and event["try_id"] != (this_try := task_try_id(ti.run_id, ti.try_number)):
            # Airflow 3.0's dag.test() resumes a retried task with its earlier try's event (it keeps the task's
            # next method and arguments across the retry): that outcome is not this try's, so the city starts again
            self.log.info(
                "%s: the event is of try %s, this is try %s: starting the city again",
                self.city,
                event["try_id"],
                this_try,
            )
            return self.execute(context)
        self._outcome = event
        status = event.get("status")
        self._push_links(context, event.get("links") or {})
        if status == "success":
            return event.get("result")
        if status == "skipped":
            raise AirflowSkipException(f"{self.city}: {event.get('message', 'skipped')}")
        message = f"{self.city}: {event.get('message') or 'training failed'}"
        if event.get("retry") is False:  # its cause is in the fleet file, the plan or the task: no retry
            from sagemaker_fleet.failures import CityCannotTrainError

            raise CityCannotTrainError(message)
        raise AirflowException(message)

    @staticmethod
    def _push_links(context: Context, links: dict[str, Any]) -> None:
        """The job's links, whatever the outcome (a failed job's console page and logs are what a person opens
        first); with no job, an empty value under each link's key. The task runner reads every extra link as the
        task ends, and a key never written logs an ``[error] XCom not found`` line per link."""
        ti = context["ti"]
        for key in (SageMakerTrainingJobLink.key, TrainingJobLogsLink.key):
            if key not in links:
                ti.xcom_push(key=key, value=None)
        for key, value in links.items():
            ti.xcom_push(key=key, value=value)

    # ------------------------------------------------------------------------------------------ lineage

    def get_openlineage_facets_on_complete(self, task_instance: Any) -> Lineage:
        """Lineage of a city task that ended on a worker (a synchronous wait, or a failure handed back by the trigger):
        the city's training channels in, its model artifact out, and the ``sagemakerFleetJob`` facet. A task ended
        from the triggerer is reported by its trigger (:mod:`sagemaker_fleet.observability.lineage`)."""
        from sagemaker_fleet.observability.facets import JOB_FACET
        from sagemaker_fleet.observability.lineage import operator_lineage

        event = self._outcome or {}
        lineage = event.get("lineage") or {}
        facets = {JOB_FACET: lineage["facet"]} if lineage.get("facet") else {}
        return operator_lineage(lineage.get("inputs") or (), lineage.get("outputs") or (), facets)

    def get_openlineage_facets_on_failure(self, task_instance: Any) -> Lineage:
        return self.get_openlineage_facets_on_complete(task_instance)


def _under_dag_test() -> bool:
    """Whether the task runs under ``dag.test()`` (``airflow dags test``), which runs a run's task instances one
    after the other and a deferred task's trigger in line, and resumes the task with the event's payload even when
    the trigger ended the task itself: a ``TaskSuccessEvent`` would come back as the string ``"success"``, its
    XComs (the result, the links) lost. The trigger then fires an ordinary event."""
    from sagemaker_fleet.compat import under_dag_test

    return under_dag_test()


async def _first_event(trigger: FleetCityTrigger) -> Any:
    async for event in trigger.run():
        return event.payload
    return None
