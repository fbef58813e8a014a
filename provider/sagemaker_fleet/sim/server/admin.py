"""``/_sim/…``: the administrator's side of the endpoint — state, reset, clock, quotas, work and fault injection.

JSON in, JSON out. Errors: 400 ``{"error": …}`` for a bad request, 404 for an unknown path or job.

    GET  /_sim/state                 clock, jobs (with simulator-only facts), pools, quotas and usage, config, calls
    GET  /_sim/calls                 per-operation API counters: calls, throttled, errors ("Op:Code")
    GET  /_sim/jobs/NAME             one job's facts: start warm|cold, startup_seconds, work, attempts, billing
    GET  /_sim/registry              the model registry: every group and package (approval, metadata, token)
    POST /_sim/reset                 {"seed"?, "speed"?, "moto"?: true}  back to the start-up settings
    POST /_sim/clock                 {"advance"?: seconds, "speed"?: x}  returns {"now", "speed"}
    POST /_sim/quotas                {"ml.m5.xlarge": {"instances", "warm_pools", "spot_instances"?} | null,
                                      "default"?: {...} | null}
    POST /_sim/work                  {"job": NAME, "seconds"} | {"city", "fleet"?, "seconds"}
                                      | {"default_seconds"?, "spread"?}
    POST /_sim/faults/interrupt      {"job": NAME}  reclaim a running spot job's instances now
    POST /_sim/faults/fail           {"job": NAME, "reason"?}  fail a running job now
    POST /_sim/faults/throttle       {"share": 0..1, "operations"?: [...]}  ThrottlingException "Rate exceeded"
    POST /_sim/faults/spot           {"interruptions_per_hour"?, "capacity_wait_mean_seconds"?, "discount"?,
                                      "discount_spread"?, "no_capacity_types"?: [...]}
    POST /_sim/faults/failures       {"probability"?: 0..1, "cities"?: [...], "first_cities"?: [...]}  seeded
                                      AlgorithmError during training; every job of a city; a city's first job
    POST /_sim/faults/keep-alive     {"refuse_while_running": true|false}  UpdateTrainingJob(KeepAlivePeriod…)
                                      on a running job: ValidationException, or accepted (the default)
    POST /_sim/faults/errors         {"share": 0..1, "operations"?: [...], "after_commit"?: false}  seeded
                                      InternalFailure (HTTP 500), before the call acts or after (its answer lost)
    POST /_sim/metrics               {"missing": ["city" | "fleet/city", ...]}  cities whose jobs report no final
                                      metrics (replaces the list; [] clears it)
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from dataclasses import asdict, replace
from types import MappingProxyType
from typing import Any

from sagemaker_fleet.fleetspec.model import InstanceQuota
from sagemaker_fleet.sim.config import ApiErrorConfig
from sagemaker_fleet.sim.errors import SimApiError
from sagemaker_fleet.sim.metrics import MetricModel
from sagemaker_fleet.sim.server.control import SimulatorControl

Handler = Callable[[SimulatorControl, Mapping[str, Any]], Any]


class AdminError(Exception):
    def __init__(self, status: int, message: str) -> None:
        super().__init__(message)
        self.status = status


def handle_admin(control: SimulatorControl, method: str, path: str, body: Mapping[str, Any]) -> Any:
    route = path.removeprefix("/_sim").strip("/")
    if method == "GET":
        if route == "state":
            return control.engine.snapshot()
        if route == "calls":
            return control.engine.api_calls()
        if route == "registry":
            return control.engine.registry()
        if route.startswith("jobs/"):
            return _facts(control, route.removeprefix("jobs/"))
        raise AdminError(404, f"no admin resource GET /_sim/{route}")
    handler = _POST.get(route)
    if method != "POST" or handler is None:
        raise AdminError(404, f"no admin action {method} /_sim/{route}; see GET /_sim/state")
    try:
        return handler(control, body)
    except SimApiError as exc:
        raise AdminError(404 if exc.code == "ResourceNotFound" else 400, exc.message) from exc
    except (TypeError, ValueError, KeyError) as exc:
        raise AdminError(400, f"bad admin request for /_sim/{route}: {exc}") from exc


def _facts(control: SimulatorControl, name: str) -> dict[str, Any]:
    try:
        return asdict(control.engine.facts(name))
    except SimApiError as exc:
        raise AdminError(404, exc.message) from exc


def number(body: Mapping[str, Any], key: str, *, low: float, low_open: bool = False) -> float:
    """``body[key]`` as a finite float ≥ ``low`` (> ``low`` when ``low_open``): NaN, infinities, strings and
    booleans are refused with the field's name."""
    value = body[key]
    if isinstance(value, bool) or not isinstance(value, int | float) or not math.isfinite(value):
        raise ValueError(f"{key} must be a finite number, got {value!r}")
    if value < low or (low_open and value == low):
        raise ValueError(f"{key} must be {'>' if low_open else '≥'} {low:g}, got {value!r}")
    return float(value)


def _reset(control: SimulatorControl, body: Mapping[str, Any]) -> dict[str, Any]:
    seed = body.get("seed")
    control.reset(
        seed=None if seed is None else int(seed),
        speed=None if body.get("speed") is None else number(body, "speed", low=0.0, low_open=True),
        moto=bool(body.get("moto", True)),
    )
    return _clock(control)


def _clock_action(control: SimulatorControl, body: Mapping[str, Any]) -> dict[str, Any]:
    if "speed" in body:
        control.engine.set_speed(number(body, "speed", low=0.0, low_open=True))
    if "advance" in body:
        control.engine.advance(number(body, "advance", low=0.0))
    return _clock(control)


def _clock(control: SimulatorControl) -> dict[str, Any]:
    clock = control.engine.clock
    return {"now": control.engine.now(), "speed": getattr(clock, "speed", None)}


def _interrupt(control: SimulatorControl, body: Mapping[str, Any]) -> dict[str, Any]:
    control.engine.interrupt(str(body["job"]))
    return {"interrupted": body["job"]}


def _fail(control: SimulatorControl, body: Mapping[str, Any]) -> dict[str, Any]:
    reason = str(body.get("reason") or "AlgorithmError: failed by the simulator administrator")
    control.engine.fail(str(body["job"]), reason)
    return {"failed": body["job"], "reason": reason}


def _throttle(control: SimulatorControl, body: Mapping[str, Any]) -> dict[str, Any]:
    share = number(body, "share", low=0.0) if "share" in body else 0.0
    if not 0.0 <= share <= 1.0:
        raise ValueError("share is a fraction between 0 and 1")
    operations = frozenset(str(op) for op in body.get("operations") or ())
    config = control.engine.configure(throttle_share=share, throttle_operations=operations)
    return {"share": config.throttle_share, "operations": sorted(config.throttle_operations)}


def _spot(control: SimulatorControl, body: Mapping[str, Any]) -> dict[str, Any]:
    changes: dict[str, Any] = {}
    for key in ("interruptions_per_hour", "capacity_wait_mean_seconds", "discount", "discount_spread"):
        if key in body:
            changes[key] = number(body, key, low=0.0)
    if "no_capacity_types" in body:
        changes["no_capacity_types"] = frozenset(str(t) for t in body["no_capacity_types"])
    unknown = set(body) - set(changes)
    if unknown:
        raise ValueError(f"unknown spot settings: {sorted(unknown)}")
    current = control.engine.config.spot
    config = control.engine.configure(spot=replace(current, **changes))
    return {**asdict(config.spot), "no_capacity_types": sorted(config.spot.no_capacity_types)}


def _quotas(control: SimulatorControl, body: Mapping[str, Any]) -> dict[str, Any]:
    quotas = dict(control.engine.config.quotas)
    default = control.engine.config.default_quota
    for instance_type, raw in body.items():
        quota = None if raw is None else parse_quota_json(raw)
        if instance_type == "default":
            default = quota
        elif quota is None:
            quotas.pop(instance_type, None)
        else:
            quotas[instance_type] = quota
    config = control.engine.configure(quotas=MappingProxyType(quotas), default_quota=default)
    return {
        "quotas": {t: asdict(q) for t, q in sorted(config.quotas.items())},
        "default": asdict(config.default_quota) if config.default_quota else None,
    }


def parse_quota_json(raw: Mapping[str, Any]) -> InstanceQuota:
    spot = raw.get("spot_instances")
    return InstanceQuota(
        instances=int(raw["instances"]),
        warm_pools=int(raw.get("warm_pools", 0)),
        spot_instances=None if spot is None else int(spot),
    )


def _work(control: SimulatorControl, body: Mapping[str, Any]) -> dict[str, Any]:
    work = control.engine.config.work
    if "job" in body:
        work = work.with_job_override(str(body["job"]), float(body["seconds"]))
    elif "city" in body:
        fleet = body.get("fleet")
        work = work.with_city_override(
            str(body["city"]), float(body["seconds"]), None if fleet is None else str(fleet)
        )
    if "default_seconds" in body:
        work = replace(work, default_seconds=float(body["default_seconds"]))
    if "spread" in body:
        work = replace(work, spread=float(body["spread"]))
    control.engine.configure(work=work)
    return {"default_seconds": work.default_seconds, "spread": work.spread}


def _failures(control: SimulatorControl, body: Mapping[str, Any]) -> dict[str, Any]:
    """``probability``: share of jobs failing at a random point of training; ``cities``: ``city`` or
    ``fleet/city`` entries whose every job fails; ``first_cities``: the same, whose first submission fails and
    later ones train (each replaces its list; ``[]`` clears it)."""
    unknown = set(body) - {"probability", "cities", "first_cities"}
    if unknown:
        raise ValueError(f"unknown failure settings: {sorted(unknown)}")
    changes: dict[str, Any] = {}
    if "probability" in body:
        probability = number(body, "probability", low=0.0)
        if probability > 1.0:
            raise ValueError("probability is between 0 and 1")
        changes["failure_probability"] = probability
    for key, setting in (("cities", "failing_cities"), ("first_cities", "failing_first_cities")):
        if key in body:
            cities = body[key]
            if not isinstance(cities, list) or not all(isinstance(c, str) and c for c in cities):
                raise ValueError(f"{key} is a list of 'city' or 'fleet/city' names")
            changes[setting] = frozenset(cities)
    config = control.engine.configure(**changes)
    return {
        "probability": config.failure_probability,
        "cities": sorted(config.failing_cities),
        "first_cities": sorted(config.failing_first_cities),
    }


def _keep_alive(control: SimulatorControl, body: Mapping[str, Any]) -> dict[str, Any]:
    """``refuse_while_running``: whether UpdateTrainingJob's keep-alive change of a running job is refused."""
    unknown = set(body) - {"refuse_while_running"}
    if unknown:
        raise ValueError(f"unknown keep-alive settings: {sorted(unknown)}")
    refuse = body.get("refuse_while_running")
    if not isinstance(refuse, bool):
        raise ValueError(f"refuse_while_running must be true or false, got {refuse!r}")
    config = control.engine.configure(refuse_keep_alive_while_running=refuse)
    return {"refuse_while_running": config.refuse_keep_alive_while_running}


def _errors(control: SimulatorControl, body: Mapping[str, Any]) -> dict[str, Any]:
    """``share`` of the calls to ``operations`` (empty: all) answered InternalFailure; ``after_commit``: after the
    call took effect (its answer lost), else instead of it."""
    unknown = set(body) - {"share", "operations", "after_commit"}
    if unknown:
        raise ValueError(f"unknown error settings: {sorted(unknown)}")
    share = number(body, "share", low=0.0) if "share" in body else 0.0
    if share > 1.0:
        raise ValueError("share is a fraction between 0 and 1")
    after = body.get("after_commit", False)
    if not isinstance(after, bool):
        raise ValueError(f"after_commit must be true or false, got {after!r}")
    operations = body.get("operations") or []
    if not isinstance(operations, list) or not all(isinstance(op, str) and op for op in operations):
        raise ValueError("operations is a list of API operation names")
    config = control.engine.configure(
        api_errors=ApiErrorConfig(share=share, operations=frozenset(operations), after_commit=after)
    )
    errors = config.api_errors
    return {
        "share": errors.share,
        "operations": sorted(errors.operations),
        "after_commit": errors.after_commit,
    }


def _metrics(control: SimulatorControl, body: Mapping[str, Any]) -> dict[str, Any]:
    """``missing``: the cities (``city`` or ``fleet/city``) whose jobs report no final metrics."""
    unknown = set(body) - {"missing"}
    if unknown:
        raise ValueError(f"unknown metric settings: {sorted(unknown)}")
    missing = body.get("missing", [])
    if not isinstance(missing, list) or not all(isinstance(c, str) and c for c in missing):
        raise ValueError("missing is a list of 'city' or 'fleet/city' names")
    config = control.engine.configure(metrics=MetricModel(missing=frozenset(missing)))
    return {"missing": sorted(config.metrics.missing)}


_POST: dict[str, Handler] = {
    "reset": _reset,
    "clock": _clock_action,
    "quotas": _quotas,
    "work": _work,
    "faults/interrupt": _interrupt,
    "faults/fail": _fail,
    "faults/throttle": _throttle,
    "faults/spot": _spot,
    "faults/failures": _failures,
    "faults/keep-alive": _keep_alive,
    "faults/errors": _errors,
    "metrics": _metrics,
}
