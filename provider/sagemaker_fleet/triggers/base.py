"""FleetAwsTrigger: the base of every fleet trigger; it carries the AWS connection and serialises it once.
RunPollerTrigger: the base of those that watch a run's jobs through its session in the triggerer.

A trigger is stored in Airflow's database as its classpath and the keyword arguments :meth:`serialize` returns, and
rebuilt from them in the triggerer. The base serialises every keyword its class's constructors take (each kept under
an attribute of the same name) and the AWS connection (:class:`~sagemaker_fleet.hooks.connection.AwsConnection`,
its fields under their own names), so no trigger can drop one of them and talk to AWS differently in the triggerer
than its task did on a worker.
"""

from __future__ import annotations

import inspect
import json
from collections.abc import Awaitable, Callable
from typing import Any, ClassVar

from airflow.triggers.base import BaseTrigger

from sagemaker_fleet.hooks.connection import AwsConnection
from sagemaker_fleet.hooks.fleet import SageMakerFleetHook
from sagemaker_fleet.triggers.client import TRIGGERER_RETRIES
from sagemaker_fleet.triggers.connection import RunConnection
from sagemaker_fleet.triggers.session import RunSession, SessionSetup


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
    """A fleet trigger that watches its run's jobs through the run's shared :class:`RunSession`."""

    def fleet_hook(self) -> SageMakerFleetHook:
        """The hook of the run's session. Its client retries throttled calls in botocore's standard mode unless the
        trigger's config sets a retry mode: adaptive mode's client-side rate limiter, shared by a whole run's
        sweeps and creates, held hand-offs back ~10 s under 20 % throttling (docs/performance.md)."""
        return self.hook({"retries": TRIGGERER_RETRIES})

    def _session_key(self, name_contains: str, fleet: str) -> tuple[str, str, str]:
        """One session per AWS connection, run (its jobs' names contain ``name_contains``) and fleet: two fleets'
        runs with the same run key (two daily DAGs) share a name filter but never a plan."""
        return json.dumps(self.aws_kwargs(), sort_keys=True, default=str), name_contains, fleet

    def _connect(self, name_contains: str, interval: float) -> Callable[[], RunConnection]:
        return lambda: RunConnection(self.fleet_hook(), name_contains, interval)

    def shared_poller(self, name_contains: str, interval: float) -> RunSession:
        """The session that watches the run's jobs in this triggerer (it dispatches nothing)."""
        session = RunSession.shared(
            self._session_key(name_contains, ""), self._connect(name_contains, interval)
        )
        session.connection.ask_interval(interval)
        return session

    async def open_session(
        self,
        name_contains: str,
        interval: float,
        fleet: str,
        setup: Callable[[RunConnection], Awaitable[SessionSetup]],
    ) -> RunSession:
        """The session that dispatches ``fleet``'s run in this triggerer: the first trigger of the run opens it with
        ``setup`` (:meth:`RunSession.open`), the others join it."""
        key = self._session_key(name_contains, fleet)
        session = await RunSession.open(key, self._connect(name_contains, interval), setup)
        session.connection.ask_interval(interval)
        return session
