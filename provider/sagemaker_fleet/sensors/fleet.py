"""Sensors over a fleet: a run being finished, and a warm pool being ready for a key."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import timedelta
from typing import TYPE_CHECKING, Any

from airflow.providers.amazon.aws.sensors.base_aws import AwsBaseSensor
from airflow.providers.amazon.aws.utils.mixins import aws_template_fields

from sagemaker_fleet.compat import AirflowException
from sagemaker_fleet.failures import FleetFailure, fleet_city, fleet_spec
from sagemaker_fleet.hooks.connection import AwsConnection
from sagemaker_fleet.hooks.fleet import SageMakerFleetHook
from sagemaker_fleet.jobs.keys import city_key
from sagemaker_fleet.jobs.pools import matching_pool
from sagemaker_fleet.jobs.progress import run_progress
from sagemaker_fleet.jobs.statuses import POOL_AVAILABLE
from sagemaker_fleet.triggers.conditions import FleetRunTrigger, WarmPoolTrigger

if TYPE_CHECKING:
    from airflow.sdk import Context


class _DeferrableSensor(AwsBaseSensor[SageMakerFleetHook]):
    aws_hook_class = SageMakerFleetHook

    def __init__(
        self,
        *,
        deferrable: bool = True,
        **kwargs: Any,
    ) -> None:
        super().__init__(**kwargs)
        self.deferrable = deferrable

    def _trigger(self) -> Any:
        raise NotImplementedError

    def execute(self, context: Context) -> Any:
        if not self.deferrable:
            return super().execute(context)
        if self.poke(context):
            return None
        self.defer(
            trigger=self._trigger(),
            method_name="execute_complete",
            timeout=timedelta(seconds=self.timeout) if self.timeout else None,
        )
        return None

    def execute_complete(self, context: Context, event: dict[str, Any] | None = None) -> dict[str, Any]:
        if event and event.get("retry") is False:  # the trigger met a failure a retry would meet again
            raise FleetFailure(f"{self.task_id}: {event.get('message')}")
        if not event or event.get("status") != "success":
            raise AirflowException(f"{self.task_id}: {event}")
        return event

    def _common(self) -> dict[str, Any]:
        return {"poll_interval": self.poke_interval, **AwsConnection.of(self).to_json()}


class FleetRunSensor(_DeferrableSensor):
    """Waits until the latest submission of every city of a run is terminal (Completed, Failed or Stopped)."""

    template_fields: Sequence[str] = aws_template_fields("spec_path", "run_key")

    def __init__(self, *, spec_path: str, run_key: str, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.spec_path = spec_path
        self.run_key = run_key

    def poke(self, context: Context) -> bool:
        spec = fleet_spec(self.spec_path)
        progress = run_progress(spec, self.run_key, self.hook.list_jobs(self.run_key))
        self.log.info(
            "run %s: %d/%d cities terminal (%d completed, %d failed), %d running",
            self.run_key,
            progress.completed + progress.failed,
            len(spec.cities),
            progress.completed,
            progress.failed,
            progress.running,
        )
        return progress.all_terminal

    def _trigger(self) -> FleetRunTrigger:
        return FleetRunTrigger(spec_path=self.spec_path, run_key=self.run_key, **self._common())


class WarmPoolAvailableSensor(_DeferrableSensor):
    """Waits until a warm pool that ``city`` of the fleet would reuse is ``Available``."""

    template_fields: Sequence[str] = aws_template_fields("spec_path", "city", "name_contains")

    def __init__(self, *, spec_path: str, city: str, name_contains: str = "", **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.spec_path = spec_path
        self.city = city
        self.name_contains = name_contains

    def _key(self) -> Any:
        return city_key(fleet_city(fleet_spec(self.spec_path), self.city))

    def poke(self, context: Context) -> bool:
        key = self._key()
        summaries = self.hook.list_jobs(self.name_contains, warm_pool_status_equals=POOL_AVAILABLE)
        described = (self.hook.describe(s["TrainingJobName"]) for s in summaries)
        name = matching_pool(key, (d for d in described if d is not None))
        if name:
            self.log.info("warm pool of %s is Available for %s", name, self.city)
        return name is not None

    def _trigger(self) -> WarmPoolTrigger:
        return WarmPoolTrigger(key=self._key().to_json(), name_contains=self.name_contains, **self._common())
