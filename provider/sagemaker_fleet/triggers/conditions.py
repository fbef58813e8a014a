"""Deferrable halves of the fleet sensors: poll a condition over the run's jobs every ``poll_interval``."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from functools import cached_property
from typing import TYPE_CHECKING, Any

from airflow.triggers.base import TriggerEvent
from botocore.exceptions import ClientError

from sagemaker_fleet.contract import POLL_INTERVAL
from sagemaker_fleet.failures import retry_cannot_help
from sagemaker_fleet.fleetspec.runspec import load_run_spec
from sagemaker_fleet.jobs.errors import error_code
from sagemaker_fleet.jobs.pools import matching_pool
from sagemaker_fleet.jobs.progress import run_progress
from sagemaker_fleet.jobs.statuses import POOL_AVAILABLE, THROTTLING_CODES
from sagemaker_fleet.plan.jsonread import JsonObject
from sagemaker_fleet.plan.model import key_from_json
from sagemaker_fleet.triggers.base import FleetAwsTrigger

if TYPE_CHECKING:
    from sagemaker_fleet.fleetspec.model import FleetSpec
    from sagemaker_fleet.hooks.fleet import SageMakerFleetHook


class _PollingTrigger(FleetAwsTrigger):
    def __init__(self, *, poll_interval: float = POLL_INTERVAL, **connection: Any) -> None:
        super().__init__(**connection)
        self.poll_interval = float(poll_interval)

    async def check(self, hook: SageMakerFleetHook, client: Any) -> dict[str, Any] | None:
        raise NotImplementedError

    async def run(self) -> AsyncIterator[TriggerEvent]:
        hook = self.hook()
        while True:
            try:
                async with await hook.get_async_conn() as client:
                    found = await self.check(hook, client)
            except ClientError as exc:
                if error_code(exc) not in THROTTLING_CODES:
                    yield TriggerEvent({"status": "error", "message": str(exc)})
                    return
                found = None
            except Exception as exc:
                if not retry_cannot_help(exc):
                    raise
                # the fleet file went bad since the sensor read it: its task fails without retries
                message = f"{type(exc).__name__}: {exc}"
                yield TriggerEvent({"status": "error", "message": message, "retry": False})
                return
            if found is not None:
                yield TriggerEvent({"status": "success", **found})
                return
            await asyncio.sleep(self.poll_interval)


class FleetRunTrigger(_PollingTrigger):
    """Fires when the latest submission of every city of the run is terminal."""

    def __init__(self, *, spec_path: str, run_key: str, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.spec_path = spec_path
        self.run_key = run_key

    @cached_property
    def spec(self) -> FleetSpec:
        """Read once per trigger run, not on every poll."""
        return load_run_spec(self.spec_path, use_params=False).fleet

    async def check(self, hook: SageMakerFleetHook, client: Any) -> dict[str, Any] | None:
        spec = self.spec
        summaries = [s async for s in hook.alist_jobs(client, self.run_key)]
        progress = run_progress(spec, self.run_key, summaries)
        if not progress.all_terminal:
            return None
        return {
            "completed": progress.completed,
            "failed": progress.failed,
            "submissions": progress.submissions,
        }


class WarmPoolTrigger(_PollingTrigger):
    """Fires when some job's warm pool is Available for the given matching key."""

    def __init__(self, *, key: dict[str, Any], name_contains: str = "", **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.key = key
        self.name_contains = name_contains

    async def check(self, hook: SageMakerFleetHook, client: Any) -> dict[str, Any] | None:
        key = key_from_json(JsonObject(self.key, "key"))
        summaries = [
            s
            async for s in hook.alist_jobs(client, self.name_contains, warm_pool_status_equals=POOL_AVAILABLE)
        ]
        described = [await hook.adescribe(client, s["TrainingJobName"]) for s in summaries]
        name = matching_pool(key, [d for d in described if d is not None])
        return None if name is None else {"job_name": name}
