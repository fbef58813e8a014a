"""FleetRegisterOperator: each city's model of the run through the champion gate into the model registry.

One task after every city (``trigger_rule="all_done"``), on a worker: no task instance per city, nothing in the
triggerer. It describes the run's jobs once (one listing, one DescribeTrainingJob each, as the cost report does),
then registers the cities a few at a time (:func:`sagemaker_fleet.registry.registration.register_run`: about five
registry calls a city, through the hook's client, whose retries absorb throttling). A city whose calls fail
after those retries fails the task, naming it, once every other city is done; Airflow retries the task, and the
cities registered already find their packages instead of being decided again. The return value is the run's
decisions (:class:`~sagemaker_fleet.registry.decision.RunDecisions`), which the cost report, the Fleet view and the
models asset's event show.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from sagemaker_fleet.compat import AirflowSkipException
from sagemaker_fleet.cost.collect import describe_run_jobs
from sagemaker_fleet.cost.report import RunJobIndex
from sagemaker_fleet.errors import SageMakerFleetError
from sagemaker_fleet.failures import run_spec
from sagemaker_fleet.fleetspec.errors import FleetSpecError
from sagemaker_fleet.hooks.connection import aws_template_fields
from sagemaker_fleet.jobs.record import parse_training_job
from sagemaker_fleet.operators.aws import FleetAwsOperator, task_run_key
from sagemaker_fleet.registry.decision import summary_line
from sagemaker_fleet.registry.registration import DEFAULT_REGISTER_WORKERS, CityModel, register_run

if TYPE_CHECKING:
    from collections.abc import Mapping

    from airflow.sdk import Context

    from sagemaker_fleet.fleetspec.model import FleetSpec


class RegistrationError(SageMakerFleetError, RuntimeError):
    """Some cities' registry calls failed after the client's retries: the task fails and Airflow retries it."""


class FleetRegisterOperator(FleetAwsOperator):
    """Register every city's model of the run through the gate of its ``register:`` spec.

    :param spec_path: the fleet YAML (templated).
    :param use_params: apply the run's params (cities, dry run) like the other tasks.
    :param workers: cities registered at once.

    Returns ``{"version", "counts": {approved, pending, rejected, no_metric, not_trained}, "cities": [...]}``
    (docs/formats.md, the model registry's decisions).
    """

    template_fields: Sequence[str] = aws_template_fields("spec_path")
    ui_color = "#e0ecd4"

    def __init__(
        self,
        *,
        spec_path: str,
        use_params: bool = False,
        workers: int = DEFAULT_REGISTER_WORKERS,
        **kwargs: Any,
    ) -> None:
        kwargs.setdefault("trigger_rule", "all_done")
        super().__init__(**kwargs)
        self.spec_path = spec_path
        self.use_params = use_params
        self.workers = workers

    def execute(self, context: Context) -> dict[str, Any]:
        this_run = run_spec(self.spec_path, context.get("params") or {}, use_params=self.use_params)
        if this_run.dry_run:
            raise AirflowSkipException("a dry run trains nothing: nothing to register")
        spec = this_run.fleet
        if self.use_params:
            try:
                spec = this_run.spec
            except FleetSpecError as exc:  # the plan task refused these params: nothing was launched
                raise AirflowSkipException(
                    f"nothing to register: the run's params were refused ({exc})"
                ) from exc
        run_key = task_run_key(context)
        models = self._models(spec, run_key)
        if not models:
            raise AirflowSkipException("no city of this run has register: in its spec")
        client = self.hook.conn
        registration = register_run(client, spec.fleet, run_key, models, self.workers)
        decisions = registration.decisions
        for decision in decisions.cities:
            where = f" {decision.package_arn}" if decision.package_arn else ""
            again = " (found: registered by an earlier try)" if decision.found else ""
            self.log.info("%s: %s%s%s — %s", decision.city, decision.decision, where, again, decision.reason)
        self.log.info("%s", summary_line(decisions))
        if registration.failed:
            listed = "; ".join(f"{city}: {error}" for city, error in sorted(registration.failed.items()))
            raise RegistrationError(
                f"{len(registration.failed)} of {len(models)} cities could not be registered ({listed}). The "
                "other cities' packages are registered; a retry of this task registers the rest and finds those."
            )
        return decisions.to_json()

    def _models(self, spec: FleetSpec, run_key: str) -> list[CityModel]:
        """Each city with ``register:``, and its latest job of the run (the highest attempt)."""
        registering = [city for city in spec.cities if city.register is not None]
        if not registering:
            return []
        index = RunJobIndex.for_run(spec, run_key)
        latest: dict[str, tuple[int, Mapping[str, Any]]] = {}
        for description in describe_run_jobs(self.hook, index):
            city, attempt = index.attribute(parse_training_job(description))
            if city not in latest or attempt > latest[city][0]:
                latest[city] = (attempt, description)
        return [
            CityModel(city.name, city.register, latest[city.name][1] if city.name in latest else None)
            for city in registering
            if city.register is not None
        ]
