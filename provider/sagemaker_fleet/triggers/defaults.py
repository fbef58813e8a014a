"""What a worker needs to know of the city trigger to defer to it, without importing it.

A fleet's city task instance runs on a worker only to defer: that task process should not import the trigger's
module (it brings in boto3, aiobotocore and the dispatch core: half a second of CPU per city on a worker, for a
class the worker never runs). This module holds the trigger's classpath, defaults and connection fields, and a
:class:`TriggerHandle` that serialises to the real trigger; ``triggers/city.py`` takes its defaults from here, and a
test checks that the two agree.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Mapping
from typing import Any

from airflow.triggers.base import BaseTrigger, TriggerEvent

from sagemaker_fleet.contract import CAPACITY_RETRY_SECONDS, CAPACITY_TIMEOUT_SECONDS, POLL_INTERVAL

#: The city trigger's classpath, as the triggerer imports it.
CITY_TRIGGER_CLASSPATH = "sagemaker_fleet.triggers.city.FleetCityTrigger"
#: The AWS connection parameters a fleet trigger carries, as its constructor and ``AwsBaseOperator`` name them.
AWS_CONNECTION_FIELDS = ("aws_conn_id", "region_name", "verify", "botocore_config")
#: The city trigger's keyword defaults (what an operator leaves out of the trigger's row).
CITY_TRIGGER_DEFAULTS: Mapping[str, Any] = {
    "run_key": None,
    "params": None,
    "try_id": None,
    "dag_id": None,
    "run_id": None,
    "use_params": False,
    "plan_task_id": None,
    "keep_alive_seconds": 0,
    "force_retrain": False,
    "end_from_trigger": True,
    "carry_pools": False,
    "one_at_a_time": False,
    "plan": None,
    "lineage": None,
    "poll_interval": POLL_INTERVAL,
    "capacity_retry_seconds": CAPACITY_RETRY_SECONDS,
    "capacity_timeout_seconds": CAPACITY_TIMEOUT_SECONDS,
}


def aws_connection(source: Any) -> dict[str, Any]:
    """The AWS connection parameters of ``source`` (a fleet trigger, or an operator or sensor that defers to one),
    as a trigger's keyword arguments."""
    return {name: getattr(source, name) for name in AWS_CONNECTION_FIELDS}


class TriggerHandle(BaseTrigger):
    """A trigger named by classpath and keyword arguments: what ``self.defer`` serialises and the triggerer
    rebuilds as the real class. It never runs where it is made."""

    def __init__(self, classpath: str, kwargs: Mapping[str, Any]) -> None:
        super().__init__()
        self.classpath = classpath
        self.kwargs = dict(kwargs)

    def serialize(self) -> tuple[str, dict[str, Any]]:
        return self.classpath, dict(self.kwargs)

    async def run(
        self,
    ) -> AsyncIterator[TriggerEvent]:  # pragma: no cover - the triggerer runs the real class
        raise NotImplementedError(f"{self.classpath} runs in the triggerer, not from this handle")
        yield  # an async generator, as BaseTrigger.run is
