"""FleetAwsTrigger: the base of every fleet trigger; it carries the AWS connection and serialises it once.
RunPollerTrigger: the base of those that watch a run's jobs through its session in the triggerer.

A trigger is stored in Airflow's database as its classpath and the keyword arguments :meth:`serialize` returns, and
rebuilt from them in the triggerer. The base serialises every keyword its class's constructors take (each kept under
an attribute of the same name): the AWS connection (``aws_conn_id``, ``region_name``, ``verify``,
``botocore_config``), which it takes itself, and the subclass's own fields, so no trigger can drop one of them and
talk to AWS differently in the triggerer than its task did on a worker.
"""

from __future__ import annotations

import inspect
import json
from collections.abc import Awaitable, Callable
from typing import Any, ClassVar

from airflow.triggers.base import BaseTrigger

from sagemaker_fleet.hooks.fleet import SageMakerFleetHook
from sagemaker_fleet.triggers.client import TRIGGERER_RETRIES
from sagemaker_fleet.triggers.connection import RunConnection
from sagemaker_fleet.triggers.defaults import AWS_CONNECTION_FIELDS, aws_connection
from sagemaker_fleet.triggers.session import RunSession, SessionSetup


class FleetAwsTrigger(BaseTrigger):
    """A trigger that talks to SageMaker through :class:`SageMakerFleetHook`.

    :param aws_conn_id: the Airflow AWS connection.
    :param region_name: the region (default: the connection's).
    :param verify: whether to verify SSL certificates, or the CA bundle to verify them with.
    :param botocore_config: botocore client configuration (``botocore.config.Config`` keyword arguments).
    """

    #: The subclass's own constructor arguments, serialised with the AWS connection's (set for each subclass from
    #: its constructors' keywords).
    serialized_fields: ClassVar[tuple[str, ...]] = ()

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        cls.serialized_fields = tuple(
            name for name in cls.constructor_parameters() if name not in AWS_CONNECTION_FIELDS
        )

    @classmethod
    def constructor_parameters(cls) -> dict[str, inspect.Parameter]:
        """The keywords the class's constructor takes, its own and those it hands on to its bases' (``**kwargs``)
        down to this one."""
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

    def __init__(
        self,
        *,
        aws_conn_id: str | None = "aws_default",
        region_name: str | None = None,
        verify: bool | str | None = None,
        botocore_config: dict[str, Any] | None = None,
    ) -> None:
        super().__init__()
        self.aws_conn_id = aws_conn_id
        self.region_name = region_name
        self.verify = verify
        self.botocore_config = botocore_config

    def aws_kwargs(self) -> dict[str, Any]:
        """The AWS connection as keyword arguments (JSON-safe)."""
        return aws_connection(self)

    def serialize(self) -> tuple[str, dict[str, Any]]:
        fields = {name: getattr(self, name) for name in self.serialized_fields}
        return f"{type(self).__module__}.{type(self).__qualname__}", {**fields, **self.aws_kwargs()}

    def hook(self, config: dict[str, Any] | None = None) -> SageMakerFleetHook:
        """A hook on the trigger's connection; ``config``: botocore settings the trigger's own config does not
        set (its own win)."""
        return SageMakerFleetHook(
            aws_conn_id=self.aws_conn_id,
            region_name=self.region_name,
            verify=self.verify,
            config={**(config or {}), **(self.botocore_config or {})} if config else self.botocore_config,
        )


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
