"""RunClient: the one aiobotocore client a run's poller and its triggers share, and requests sent again through an
outage of the endpoint.

A client per call costs more CPU than the call, so the poller opens one and its sweeps and its triggers' own
requests (create, describe, tags) use it; it closes when the poller stops. A request that fails for a reason that
says nothing about the request (:func:`is_transient`) is sent again with the sweeps' back-off
(:class:`~sagemaker_fleet.dispatch.sweep.Backoff`) for as long as the sweeps themselves would keep trying.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import AsyncIterator, Awaitable, Callable, Mapping
from typing import TYPE_CHECKING, Any, TypeVar

from botocore.exceptions import ClientError, HTTPClientError
from botocore.exceptions import ConnectionError as BotocoreConnectionError

from sagemaker_fleet.dispatch.shell import Backoff
from sagemaker_fleet.jobs.endpoint import endpoint_speed
from sagemaker_fleet.jobs.errors import error_code
from sagemaker_fleet.jobs.statuses import THROTTLING_CODES
from sagemaker_fleet.triggers.offloop import off_loop

if TYPE_CHECKING:
    from sagemaker_fleet.hooks.fleet import SageMakerFleetHook

log = logging.getLogger(__name__)

#: Retries of the triggerer's shared client: jittered exponential back-off on throttles, no client-side rate limit.
TRIGGERER_RETRIES: dict[str, Any] = {"mode": "standard", "max_attempts": 10}

T = TypeVar("T")


def is_transient(exc: BaseException) -> bool:
    """An error that says the endpoint could not answer now (unreachable, connection dropped, timed out,
    throttled past botocore's retries, a 5xx), not that the request was wrong: the same request may be sent again.
    Every call a trigger makes is safe to repeat (reads, and a create whose name is its idempotency key)."""
    if isinstance(exc, ClientError):
        metadata: Mapping[str, Any] = exc.response.get("ResponseMetadata") or {}
        status = int(metadata.get("HTTPStatusCode") or 0)
        return error_code(exc) in THROTTLING_CODES or status >= 500
    return isinstance(exc, BotocoreConnectionError | HTTPClientError | OSError | TimeoutError)


def aws_host(endpoint_url: str) -> str | None:
    """The host of ``endpoint_url`` when it is AWS itself (``amazonaws.com``, ``amazonaws.com.cn``), else None."""
    host = endpoint_url.split("://", 1)[-1].split("/", 1)[0].split(":", 1)[0]
    return host if host.endswith(".amazonaws.com") or host.endswith(".amazonaws.com.cn") else None


class RunClient:
    """The shared client of one run's poller (see the module docstring). ``on_open(endpoint_url)`` is called each
    time the client is opened."""

    def __init__(self, hook: SageMakerFleetHook, on_open: Callable[[str], None] | None = None) -> None:
        self.hook = hook
        self.on_open = on_open
        self.users = 0
        self._client: Any = None
        self._client_cm: Any = None
        self._console: asyncio.Future[tuple[str, str]] | None = None
        self._speed: float | None = None

    @contextlib.asynccontextmanager
    async def client(self) -> AsyncIterator[Any]:
        """The aiobotocore client, opened on first use and kept until :meth:`close`."""
        self.users += 1
        try:
            if self._client is None:
                self._client_cm = await self.hook.get_async_conn()
                self._client = await self._client_cm.__aenter__()
                if self.on_open is not None:
                    self.on_open(str(getattr(getattr(self._client, "meta", None), "endpoint_url", "") or ""))
            yield self._client
        finally:
            self.users -= 1

    async def close(self) -> None:
        """Close the client unless a request is using it."""
        if self._client_cm is not None and self.users == 0:
            cm, self._client_cm, self._client = self._client_cm, None, None
            await cm.__aexit__(None, None, None)

    async def call(
        self,
        what: str,
        request: Callable[..., Awaitable[T]],
        *args: Any,
        interval: Callable[[], float],
        patience: float,
    ) -> T:
        """``request(client, *args)``, sent again after a transient error (:func:`is_transient`) after ``interval()``
        seconds (at least 1; the poller's sweep interval), doubled each time up to the sweeps' longest back-off, for
        ``patience`` seconds: a city whose turn comes while the endpoint is down waits for it instead of failing its
        task. Any other error, or one that outlasts that, is raised."""
        loop = asyncio.get_running_loop()
        started, backoff = loop.time(), Backoff()
        while True:
            try:
                async with self.client() as client:
                    return await request(client, *args)
            except Exception as exc:
                if not is_transient(exc) or loop.time() - started >= patience:
                    raise
                delay = max(interval(), 1.0) * backoff.factor
                log.warning(
                    "%s failed (%s: %s); sending it again in %.0f s", what, type(exc).__name__, exc, delay
                )
                await asyncio.sleep(delay)
                backoff.failed()

    async def speed(self, patience: float) -> float:
        """The clock speed of the endpoint (:func:`~sagemaker_fleet.jobs.endpoint.endpoint_speed`): 1 against AWS
        itself, without a call; elsewhere read once from the headers of a one-job ListTrainingJobs (the simulator
        announces its speed; another endpoint in front of AWS announces nothing: 1). An endpoint that cannot say
        (credentials refused, no region) counts as AWS: the run's own calls then fail with the reason."""
        if self._speed is None:

            async def read(client: Any) -> float:
                if aws_host(str(getattr(client.meta, "endpoint_url", "") or "")) is not None:
                    return 1.0
                response = await client.list_training_jobs(MaxResults=1)
                return endpoint_speed((response.get("ResponseMetadata") or {}).get("HTTPHeaders"))

            try:
                self._speed = await self.call(
                    "ListTrainingJobs", read, interval=lambda: 1.0, patience=patience
                )
            except Exception as exc:  # noqa: BLE001 - the speed only tunes intervals; AWS's clock is the safe guess
                log.warning(
                    "the endpoint's clock speed is unknown (%s: %s): counting it as AWS's",
                    type(exc).__name__,
                    exc,
                )
                self._speed = 1.0
        return self._speed

    async def console(self) -> tuple[str, str]:
        """(region, console domain) of the connection, for the extra links; the hook builds a boto3 client to
        learn them (hundreds of ms of CPU), so once per run, off the event loop."""
        if self._console is None:
            from airflow.providers.amazon.aws.links.base_aws import BaseAwsLink

            def read() -> tuple[str, str]:
                return self.hook.conn_region_name, BaseAwsLink.get_aws_domain(self.hook.conn_partition) or ""

            self._console = asyncio.ensure_future(off_loop(read))
        return await asyncio.shield(self._console)
