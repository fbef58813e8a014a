"""Run a blocking call of a trigger off the triggerer's event loop, where Airflow's Task SDK calls may run.

A trigger's blocking calls that reach the triggerer's supervisor (an XCom, a connection: the AWS hook's session
reads it) go through asgiref's ``sync_to_async``, as Airflow's own providers' triggers do, never through a plain
thread (``asyncio.to_thread``): on Airflow 3.0 such a thread's call ran the runner's request on an event loop of
its own, beside the runner's calls on the main one, their replies came back out of order, and the trigger runner
died ("Response read out of order") with every trigger of the triggerer.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeVar

T = TypeVar("T")


async def off_loop(call: Callable[..., T], *args: Any, **kwargs: Any) -> T:
    """``call(*args, **kwargs)`` in asgiref's thread for blocking calls, awaited."""
    from asgiref.sync import sync_to_async

    result: T = await sync_to_async(call)(*args, **kwargs)
    return result
