"""What a worker needs to know of the city trigger to defer to it, without importing it.

A fleet's city task instance runs on a worker only to defer: that task process should not import the trigger's
module (it brings in boto3, aiobotocore and the dispatch core: half a second of CPU per city on a worker, for a
class the worker never runs). This module holds the trigger's classpath, the three groups of
its settings with their defaults (:class:`TaskTry`, :class:`CityOptions`, :class:`CityTiming`: defined here once,
for the trigger and for the operator that defers to it), the trigger's row built from them
(:func:`city_trigger_kwargs`), and a :class:`TriggerHandle` that serialises to the real trigger.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Mapping
from dataclasses import dataclass, fields
from typing import Any, Self

from airflow.triggers.base import BaseTrigger, TriggerEvent

from sagemaker_fleet.contract import CAPACITY_RETRY_SECONDS, CAPACITY_TIMEOUT_SECONDS
from sagemaker_fleet.hooks.connection import AwsConnection

#: The city trigger's classpath, as the triggerer imports it.
CITY_TRIGGER_CLASSPATH = "sagemaker_fleet.triggers.city.FleetCityTrigger"


@dataclass(frozen=True)
class TriggerSettings:
    """A group of the city trigger's settings. In the trigger's row (Airflow's trigger table, JSON) it is the dict of
    the fields that differ from their defaults, so the row stays small and the defaults live here only."""

    @classmethod
    def of(cls, value: Self | Mapping[str, Any] | None) -> Self:
        """The group from itself, from its row's dict (as the triggerer rebuilds the trigger) or None (defaults)."""
        if value is None:
            return cls()
        if isinstance(value, cls):
            return value
        if isinstance(value, Mapping):
            return cls(**value)
        raise TypeError(f"{cls.__name__}: a {cls.__name__} or its dict, not {value!r}")

    def to_json(self) -> dict[str, Any]:
        """The fields that differ from their defaults."""
        return {
            field.name: getattr(self, field.name)
            for field in fields(self)
            if getattr(self, field.name) != field.default
        }


@dataclass(frozen=True)
class TaskTry(TriggerSettings):
    """Which run and task try the trigger works for, and how the try started: what the operator takes from its
    task's context on the worker when it defers.

    :param run_key: the run's key (the job names'); the trigger refuses to start without one.
    :param params: the run's conf as it travels (``RunConf.to_json``: its known keys that differ from their
        defaults, the cities only where no plan names them), when the city task reads it.
    :param try_id: ``{run_id}/{try_number}``, the tag a city's jobs carry.
    :param dag_id, run_id: the run, for reading the plan task's XCom.
    :param end_from_trigger: end the task from the trigger (no second worker start); False: a synchronous wait,
        or a task that ends on a worker (``execute_complete``).
    :param one_at_a_time: the run's task instances run one after the other, in an order of their own (``airflow dags
        test``): the city starts at once instead of waiting for its turn, and SIGTERM stops the test.
    :param plan: the run's plan when the operator read it already (under ``dag.test()`` on Airflow 3.0 a trigger
        that runs in line cannot read XComs).
    :param lineage: the OpenLineage ids of the task's try, when OpenLineage is on: the trigger that ends the task
        closes its lineage run.
    """

    run_key: str | None = None
    params: dict[str, Any] | None = None
    try_id: str | None = None
    dag_id: str | None = None
    run_id: str | None = None
    end_from_trigger: bool = True
    one_at_a_time: bool = False
    plan: dict[str, Any] | None = None
    lineage: dict[str, Any] | None = None


@dataclass(frozen=True)
class CityOptions(TriggerSettings):
    """How the city takes its turn and its warm pool: the training task's own settings.

    :param use_params: read the run's conf (cities, spot, instance_type, dry_run), as every fleet DAG does.
    :param plan_task_id: the task whose ``plan`` XCom orders the run; without it the city starts at once.
    :param keep_alive_seconds: the warm pool's keep-alive when no plan orders the run (the plan's turn decides
        otherwise); templated on the operator, so it may arrive as text.
    :param force_retrain: train again even when the city's job of this run completed (once per run: a retry or a
        clear of the task attaches to the forced job).
    :param carry_pools: the run's pools are kept for the next run: its poller ends none early.
    """

    use_params: bool = False
    plan_task_id: str | None = None
    keep_alive_seconds: int | str = 0
    force_retrain: bool = False
    carry_pools: bool = False


@dataclass(frozen=True)
class CityTiming(TriggerSettings):
    """The city's clocks.

    :param poll_interval: real seconds between status sweeps of the run's jobs (at most 10 s while a city waits);
        0: 30 s of the endpoint's clock (:meth:`~sagemaker_fleet.dispatch.cadence.Cadence.endpoint_poll_interval`).
    :param capacity_retry_seconds: the base back-off while the instance quota is in use (ResourceLimitExceeded).
    :param capacity_timeout_seconds: give up waiting for capacity after this long.
    """

    poll_interval: float = 0.0
    capacity_retry_seconds: float = CAPACITY_RETRY_SECONDS
    capacity_timeout_seconds: float = CAPACITY_TIMEOUT_SECONDS

    def __post_init__(self) -> None:
        # a row's JSON or a templated value may carry ints or text: the clocks are floats
        for field in fields(self):
            object.__setattr__(self, field.name, float(getattr(self, field.name)))


#: The city trigger's settings groups, by the keyword its constructor and its row name each.
CITY_TRIGGER_GROUPS: Mapping[str, type[TriggerSettings]] = {
    "task_try": TaskTry,
    "options": CityOptions,
    "timing": CityTiming,
}


def city_trigger_kwargs(
    spec_path: str,
    city: str,
    *,
    task_try: TaskTry,
    options: CityOptions,
    timing: CityTiming,
    connection: Mapping[str, Any],
) -> dict[str, Any]:
    """The city trigger's row: its keyword arguments as Airflow stores them (JSON) and the triggerer passes them
    back: the city, each group's fields that differ from their defaults (a group at its defaults left out), and the
    whole AWS connection. What the operator defers with and what the trigger's ``serialize`` returns."""
    groups = {"task_try": task_try, "options": options, "timing": timing}
    kwargs: dict[str, Any] = {"spec_path": spec_path, "city": city}
    kwargs.update({name: values for name, group in groups.items() if (values := group.to_json())})
    kwargs.update(AwsConnection(**connection).to_json())
    return kwargs


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
