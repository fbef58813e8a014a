"""A small client for a running simulator: its URL, AWS clients pointed at it, and the ``/_sim/`` admin calls.

Standard library only (urllib); boto3 and aiobotocore are imported when a client is asked for.
"""

from __future__ import annotations

import json
import urllib.error
import urllib.request
from collections.abc import Callable, Iterable, Mapping
from typing import Any, NamedTuple

from sagemaker_fleet.errors import SageMakerFleetError

#: Credentials and region the simulator accepts (anything does; these are explicit so nothing reads ~/.aws).
FAKE_CREDENTIALS = {
    "region_name": "us-east-1",
    "aws_access_key_id": "testing",
    "aws_secret_access_key": "testing",
}


class BilledCost(NamedTuple):
    total_usd: float
    retained_usd: float


def billed_cost(jobs: Iterable[Mapping[str, Any]], usd_per_hour: Callable[[str], float]) -> BilledCost:
    """What the simulator has billed for ``jobs`` (``state()["jobs"]`` entries), in the whole seconds
    DescribeTrainingJob reports: BillableTimeInSeconds plus ResourceRetainedBillableTimeInSeconds (rounded from
    the simulator's float, as the API renders it), times instance count and the hourly price of the type."""
    total = retained = 0.0
    for job in jobs:
        rate = usd_per_hour(job["instance_type"]) * job["instance_count"] / 3600
        idle = round(job["retained_seconds"] or 0)
        total += ((job["billable_seconds"] or 0) + idle) * rate
        retained += idle * rate
    return BilledCost(total, retained)


class SimAdminError(SageMakerFleetError, RuntimeError):
    def __init__(self, status: int, message: str) -> None:
        super().__init__(f"HTTP {status}: {message}")
        self.status = status


class SimClient:
    def __init__(self, url: str, timeout: float = 30.0) -> None:
        self.url = url.rstrip("/")
        self.timeout = timeout

    # ------------------------------------------------------------------------------------------ AWS clients

    def boto3_client(self, service: str, **kwargs: Any) -> Any:
        import boto3

        factory: Any = boto3.client  # any service name, so not the stubs' per-service overloads
        return factory(service, endpoint_url=self.url, **{**FAKE_CREDENTIALS, **kwargs})

    def aio_client(self, service: str, **kwargs: Any) -> Any:
        """An aiobotocore client context manager: ``async with sim.aio_client("sagemaker") as client``."""
        from aiobotocore.session import get_session

        return get_session().create_client(service, endpoint_url=self.url, **{**FAKE_CREDENTIALS, **kwargs})

    # -------------------------------------------------------------------------------------------------- admin

    def state(self) -> dict[str, Any]:
        return self._call("GET", "state")

    def calls(self) -> dict[str, dict[str, int]]:
        return {key: dict(value) for key, value in self._call("GET", "calls").items()}

    def job(self, name: str) -> dict[str, Any]:
        """Simulator-only facts of a job: warm/cold start, start-up seconds, work, attempts."""
        return self._call("GET", f"jobs/{name}")

    def now(self) -> float:
        return float(self._call("POST", "clock", {})["now"])

    def reset(self, *, seed: int | None = None, speed: float | None = None, moto: bool = True) -> None:
        self._call("POST", "reset", {"seed": seed, "speed": speed, "moto": moto})

    def advance(self, seconds: float) -> float:
        return float(self._call("POST", "clock", {"advance": seconds})["now"])

    def set_speed(self, speed: float) -> None:
        self._call("POST", "clock", {"speed": speed})

    def interrupt(self, job: str) -> None:
        self._call("POST", "faults/interrupt", {"job": job})

    def fail(self, job: str, reason: str | None = None) -> None:
        self._call("POST", "faults/fail", {"job": job, "reason": reason})

    def throttle(self, share: float, operations: list[str] | None = None) -> None:
        self._call("POST", "faults/throttle", {"share": share, "operations": operations or []})

    def spot(self, **settings: Any) -> dict[str, Any]:
        """interruptions_per_hour, capacity_wait_mean_seconds, discount, discount_spread, no_capacity_types."""
        return self._call("POST", "faults/spot", settings)

    def failures(
        self,
        probability: float | None = None,
        *,
        cities: list[str] | None = None,
        first_cities: list[str] | None = None,
    ) -> dict[str, Any]:
        """Jobs failing with an AlgorithmError: a share of all jobs (at a random point of training), every job of
        the given ``cities``, and/or the first submission of each of ``first_cities`` (``city`` or ``fleet/city``;
        ``[]`` clears a list)."""
        body: dict[str, Any] = {}
        if probability is not None:
            body["probability"] = probability
        if cities is not None:
            body["cities"] = cities
        if first_cities is not None:
            body["first_cities"] = first_cities
        return self._call("POST", "faults/failures", body)

    def refuse_keep_alive_while_running(self, refuse: bool = True) -> bool:
        """Whether UpdateTrainingJob's keep-alive change of a running job answers ValidationException (True) or is
        accepted (False, the simulator's default); returns the setting now in force."""
        return bool(
            self._call("POST", "faults/keep-alive", {"refuse_while_running": refuse})["refuse_while_running"]
        )

    def api_errors(
        self, share: float, operations: list[str] | None = None, *, after_commit: bool = False
    ) -> dict[str, Any]:
        """A seeded ``share`` of the calls to ``operations`` (None: all) answered InternalFailure (HTTP 500, which
        SDKs retry); ``after_commit``: the call takes effect first and only its answer is lost."""
        body = {"share": share, "operations": operations or [], "after_commit": after_commit}
        return self._call("POST", "faults/errors", body)

    def metrics_missing(self, cities: list[str]) -> list[str]:
        """Cities (``city`` or ``fleet/city``) whose jobs report no final metrics; ``[]`` clears the list."""
        return list(self._call("POST", "metrics", {"missing": cities})["missing"])

    def registry(self) -> dict[str, Any]:
        """The model registry: ``{"groups": [...], "packages": [...]}`` (approval, metadata, client token)."""
        return self._call("GET", "registry")

    def set_quota(
        self, instance_type: str, instances: int, warm_pools: int = 0, spot_instances: int | None = None
    ) -> None:
        quota = {"instances": instances, "warm_pools": warm_pools, "spot_instances": spot_instances}
        self._call("POST", "quotas", {instance_type: quota})

    def set_work(
        self, seconds: float, *, job: str | None = None, city: str | None = None, fleet: str | None = None
    ) -> None:
        """Override the training work of one job name, or of a city (optionally of one fleet)."""
        if (job is None) == (city is None):
            raise ValueError("give exactly one of job= or city=")
        body: dict[str, Any] = {"seconds": seconds}
        body.update({"job": job} if job is not None else {"city": city, "fleet": fleet})
        self._call("POST", "work", body)

    def _call(self, method: str, path: str, body: dict[str, Any] | None = None) -> dict[str, Any]:
        data = None if body is None else json.dumps(body).encode()
        request = urllib.request.Request(
            f"{self.url}/_sim/{path}", data=data, method=method, headers={"Content-Type": "application/json"}
        )
        try:
            with urllib.request.urlopen(request, timeout=self.timeout) as response:
                result: dict[str, Any] = json.loads(response.read() or b"{}")
                return result
        except urllib.error.HTTPError as exc:
            detail = exc.read().decode(errors="replace")
            try:
                detail = json.loads(detail)["error"]
            except (ValueError, KeyError, TypeError):
                pass
            raise SimAdminError(exc.code, detail) from exc
