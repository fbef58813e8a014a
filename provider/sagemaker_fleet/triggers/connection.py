"""RunConnection: one run's way to AWS in the triggerer — its hook, the shared clients of SageMaker
(:class:`~sagemaker_fleet.triggers.client.RunClient`) and of the account's board
(:class:`~sagemaker_fleet.triggers.board_client.BoardClient`), and the sweep interval its triggers ask for.

It is made before the run's session (:mod:`sagemaker_fleet.triggers.session`), so the session's set-up can read
the endpoint's clock speed through it, and the interval is floored against AWS as soon as the client opens.
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any, TypeVar

from sagemaker_fleet.dispatch.cadence import AWS_CADENCE
from sagemaker_fleet.triggers.board_client import BoardClient
from sagemaker_fleet.triggers.client import RunClient, aws_host

if TYPE_CHECKING:
    import contextlib

    from sagemaker_fleet.hooks.fleet import SageMakerFleetHook

__all__ = ["RunConnection"]

log = logging.getLogger(__name__)

T = TypeVar("T")


class RunConnection:
    """The AWS side of one run in this triggerer (see the module docstring); ``name_contains``: what every job of
    the run's name contains; ``interval``: the sweep interval first asked for."""

    def __init__(self, hook: SageMakerFleetHook, name_contains: str, interval: float) -> None:
        self.hook = hook
        self.name_contains = name_contains
        self.interval = interval
        self.aws = RunClient(hook, on_open=self._clamp_interval)
        self.board = BoardClient(hook, name_contains)
        self._min_interval = 0.0

    def ask_interval(self, interval: float) -> None:
        """A trigger of the run asks for sweeps every ``interval`` seconds: the run sweeps as often as its most
        eager trigger asks, never more often than the AWS floor (:meth:`_clamp_interval`)."""
        self.interval = max(self._min_interval, min(self.interval, interval))

    def _clamp_interval(self, endpoint_url: str) -> None:
        """Against AWS itself, sweep no more often than every ``min_aws_poll_seconds`` of the cadence (with a
        warning)."""
        host = aws_host(endpoint_url)
        if host is None:
            return
        floor = self._min_interval = AWS_CADENCE.min_aws_poll_seconds
        if self.interval < floor:
            log.warning(
                "poll interval %.1f s is below %.0f s against %s: sweeping every %.0f s (a shorter interval "
                "spends the account's API rate and shows nothing sooner)",
                self.interval,
                floor,
                host,
                floor,
            )
            self.interval = floor

    def client(self) -> contextlib.AbstractAsyncContextManager[Any]:
        """The run's aiobotocore client, shared by its sweeps and its triggers' calls."""
        return self.aws.client()

    async def call(self, what: str, request: Callable[..., Awaitable[T]], *args: Any, patience: float) -> T:
        """``request(client, *args)`` with the run's client, sent again through an outage with the sweeps' back-off
        for ``patience`` seconds (:meth:`RunClient.call`)."""
        return await self.aws.call(what, request, *args, interval=lambda: self.interval, patience=patience)

    async def endpoint_speed(self, patience: float = AWS_CADENCE.give_up_seconds) -> float:
        """The endpoint's clock speed (1 against AWS; a simulator's own), read once per run (:meth:`RunClient.speed`)."""
        return await self.aws.speed(patience)

    async def console(self) -> tuple[str, str]:
        """(region, console domain) of the connection, for the extra links (:meth:`RunClient.console`)."""
        return await self.aws.console()

    async def close(self) -> None:
        """Close both clients unless a request is using them."""
        await self.aws.close()
        await self.board.close()
