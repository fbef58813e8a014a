"""The spot and keep-alive rules of one city: keep-alive within the API's bound, spot with a MaxWait at least its
MaxRuntime and never with a keep-alive (SageMaker keeps no warm pool of a spot job)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Protocol

from sagemaker_fleet.fleetspec.model import (
    DEFAULT_MAX_ATTEMPTS,
    DEFAULT_SPOT_FALLBACK,
    KEEP_ALIVE_API_MAX,
    KEEP_ALIVE_GUIDE_MAX,
    MAX_RUNTIME_LIMIT,
    SpotSettings,
)

if TYPE_CHECKING:
    from sagemaker_fleet.fleetspec.resolve import Resolved


class Checks(Protocol):
    """Where the rules report: an error at a path, a warning, and whether a path already has a structural error."""

    def error(self, path: str, message: str) -> None: ...

    def warn(self, message: str) -> None: ...

    def under_poisoned(self, path: str) -> bool: ...


def keep_alive_of(checks: Checks, resolved: Resolved) -> int | str | None:
    """The city's keep-alive, refused above the API's maximum and warned about above the guide's."""
    keep_alive: int | str | None = resolved.value("keep_alive")
    path = resolved.path("keep_alive")
    if isinstance(keep_alive, int):
        if keep_alive > KEEP_ALIVE_API_MAX:
            checks.error(
                path,
                f"{keep_alive} s is over the API maximum of {KEEP_ALIVE_API_MAX} s; "
                f"use `auto` or at most {KEEP_ALIVE_API_MAX}",
            )
        elif keep_alive > KEEP_ALIVE_GUIDE_MAX:
            warning = (
                f"{path}: {keep_alive} s is above the {KEEP_ALIVE_GUIDE_MAX} s the developer "
                "guide documents; the API accepts it, your account may not"
            )
            checks.warn(warning)  # a default shared by many cities warns once
    return keep_alive


def spot_of(
    checks: Checks, resolved: Resolved, max_runtime: int, keep_alive: int | str | None
) -> SpotSettings | None:
    """The city's spot settings, merged key by key, with MaxWait and keep-alive checked against them."""
    spot = resolved.spot()
    if spot is None:
        return None
    max_wait, wait_path = spot.get("max_wait_seconds", (None, ""))
    base = resolved.path("spot")
    if max_wait is None:
        checks.error(
            f"{base}.max_wait_seconds",
            f"spot needs max_wait_seconds (total time incl. waiting for capacity); set it ≥ {max_runtime}",
        )
        return None
    _check_max_wait(checks, resolved, max_wait, wait_path, max_runtime)
    if isinstance(keep_alive, int) and keep_alive > 0:
        path = resolved.path("keep_alive")
        if path.startswith("defaults."):
            checks.error(
                base,
                f"this spot city inherits keep_alive {keep_alive} from defaults.keep_alive, but warm "
                "pools do not work with managed spot training; set `keep_alive: 0` on the city",
            )
        else:
            checks.error(
                path,
                "warm pools do not work with managed spot training; remove keep_alive "
                "(or set 0/auto) or turn spot off for this city",
            )
    attempts = spot.get("max_attempts", (None, ""))[0]
    fallback = spot.get("fallback", (None, ""))[0]
    return SpotSettings(
        max_wait_seconds=max_wait,
        max_attempts=attempts if attempts is not None else DEFAULT_MAX_ATTEMPTS,
        fallback=fallback if fallback is not None else DEFAULT_SPOT_FALLBACK,
    )


def _check_max_wait(
    checks: Checks, resolved: Resolved, max_wait: int, wait_path: str, max_runtime: int
) -> None:
    runtime_path = resolved.path("max_runtime_seconds")
    if max_wait < max_runtime and not checks.under_poisoned(runtime_path):
        # a default max_wait can be too short for one city only: name the city's own runtime then
        own = f" (set at {runtime_path})" if runtime_path.split(".")[0] != wait_path.split(".")[0] else ""
        checks.error(
            wait_path,
            f"max_wait_seconds {max_wait} is below max_runtime_seconds {max_runtime}{own}; "
            f"SageMaker requires MaxWaitTimeInSeconds ≥ MaxRuntimeInSeconds: raise it to ≥ {max_runtime}",
        )
    if max_wait > MAX_RUNTIME_LIMIT:
        checks.error(wait_path, f"{max_wait} s is over the 28-day limit ({MAX_RUNTIME_LIMIT} s); lower it")
