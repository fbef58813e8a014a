"""FleetAwsTrigger: the base of every fleet trigger; it carries the AWS connection and serialises it once.
RunPollerTrigger: the base of those that watch a run's jobs through its shared poller.

A trigger is stored in Airflow's database as its classpath and the keyword arguments :meth:`serialize` returns, and
rebuilt from them in the triggerer. The base serialises every keyword its class's constructors take (each kept under
an attribute of the same name) and the AWS connection (:class:`~sagemaker_fleet.hooks.connection.AwsConnection`,
its fields under their own names), so no trigger can drop one of them and talk to AWS differently in the triggerer
than its task did on a worker.
"""

from __future__ import annotations

import inspect
from typing import Any, ClassVar

from airflow.triggers.base import BaseTrigger

from sagemaker_fleet.hooks.connection import AwsConnection
from sagemaker_fleet.hooks.fleet import SageMakerFleetHook
from sagemaker_fleet.triggers.client import TRIGGERER_RETRIES
from sagemaker_fleet.triggers.poller import FleetPoller, run_poller


class FleetAwsTrigger(BaseTrigger):
    """A trigger that talks to SageMaker through :class:`SageMakerFleetHook`.

    :param connection: the AWS connection's fields as keywords (``aws_conn_id``, ``region_name``, ``verify``,
        ``botocore_config``: :class:`~sagemaker_fleet.hooks.connection.AwsConnection`); any other keyword is
        refused.
    """

    #: The subclass's own constructor arguments, serialised with the AWS connection's (set for each subclass from
    #: its constructors' keywords).
    serialized_fields: ClassVar[tuple[str, ...]] = ()

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        cls.serialized_fields = tuple(cls.constructor_parameters())

    @classmethod
    def constructor_parameters(cls) -> dict[str, inspect.Parameter]:
        """The keywords the class's constructor takes, its own and those it hands on to its bases' (``**kwargs``)
        down to this one (whose ``**connection`` is the AWS connection's)."""
        found: dict[str, inspect.Parameter] = {}
        for klass in cls.__mro__:
            if "__init__" in vars(klass):
                for name, parameter in inspect.signature(vars(klass)["__init__"]).parameters.items():
                    if name != "self" and parameter.kind not in (
                        parameter.VAR_KEYWORD,
                        parameter.VAR_POSITIONAL,
                    ):
                        found.setdefault(name, parameter)
            if klass is FleetAwsTrigger:
                break
        return found

    def __init__(self, **connection: Any) -> None:
        super().__init__()
        self.connection = AwsConnection(**connection)

    def aws_kwargs(self) -> dict[str, Any]:
        """The AWS connection as keyword arguments (JSON-safe)."""
        return self.connection.to_json()

    def serialize(self) -> tuple[str, dict[str, Any]]:
        fields = {name: getattr(self, name) for name in self.serialized_fields}
        return f"{type(self).__module__}.{type(self).__qualname__}", {**fields, **self.aws_kwargs()}

    def hook(self, config: dict[str, Any] | None = None) -> SageMakerFleetHook:
        """A hook on the trigger's connection; ``config``: botocore settings the trigger's own config does not
        set (its own win)."""
        return SageMakerFleetHook(**self.connection.with_defaults(config).hook_kwargs())


class RunPollerTrigger(FleetAwsTrigger):
    """A fleet trigger that watches its run's jobs through the run's shared :class:`FleetPoller`."""

    def fleet_hook(self) -> SageMakerFleetHook:
        """The hook of the run's poller. Its client retries throttled calls in botocore's standard mode unless the
        trigger's config sets a retry mode: adaptive mode's client-side rate limiter, shared by a whole run's
        sweeps and creates, held hand-offs back ~10 s under 20 % throttling (docs/performance.md)."""
        return self.hook({"retries": TRIGGERER_RETRIES})

    def shared_poller(self, name_contains: str, interval: float, fleet: str = "") -> FleetPoller:
        """The run's poller in this triggerer (``fleet``: one that dispatches the fleet's run, :func:`run_poller`)."""
        return run_poller(self.fleet_hook(), self.aws_kwargs(), name_contains, interval, fleet)
