"""The simulated SageMaker training control plane: one engine behind ``sim serve`` and the ``simulate`` driver.

State is advanced lazily: every call first processes the timed events up to ``clock.now()``, then acts at that
instant. With a :class:`~sagemaker_fleet.sim.clock.WallClock` that is the live endpoint; with a
:class:`~sagemaker_fleet.sim.clock.VirtualClock` a driver jumps from event to event (``next_event_time`` /
``run_until``) and simulates a fleet in a fraction of a second. One re-entrant lock makes every call atomic.
"""

from __future__ import annotations

import copy
import threading
from collections.abc import Callable, Mapping
from dataclasses import replace
from typing import TYPE_CHECKING, Any

from sagemaker_fleet.fleetspec.model import KEEP_ALIVE_API_MAX
from sagemaker_fleet.sim import spot
from sagemaker_fleet.sim.clock import AdjustableClock, Clock, VirtualClock, WallClock
from sagemaker_fleet.sim.config import SimConfig
from sagemaker_fleet.sim.errors import (
    SimApiError,
    internal_failure,
    job_not_found_for_describe,
    resource_in_use,
    resource_not_found,
    throttled,
    validation_error,
)
from sagemaker_fleet.sim.job import TrainingJob
from sagemaker_fleet.sim.lifecycle import Lifecycle
from sagemaker_fleet.sim.listing import list_training_jobs
from sagemaker_fleet.sim.pool_rules import claim_pool, update_keep_alive
from sagemaker_fleet.sim.render import describe
from sagemaker_fleet.sim.request import check_job_name, parse_training_request
from sagemaker_fleet.sim.snapshot import JobFacts, job_facts, state_json
from sagemaker_fleet.sim.state import JobListener, SimState

if TYPE_CHECKING:
    from sagemaker_fleet.sim.checkpoints import CheckpointStore
    from sagemaker_fleet.sim.counters import ApiCounters

#: The Model Registry calls the gate makes (``sim/registry.py``).
REGISTRY_OPERATIONS = (
    "CreateModelPackageGroup",
    "DescribeModelPackageGroup",
    "CreateModelPackage",
    "DescribeModelPackage",
    "ListModelPackages",
    "UpdateModelPackage",
)
OPERATIONS = (
    "CreateTrainingJob",
    "DescribeTrainingJob",
    "ListTrainingJobs",
    "StopTrainingJob",
    "UpdateTrainingJob",
    "ListTags",
    "AddTags",
    *REGISTRY_OPERATIONS,
)
Precheck = Callable[[Mapping[str, Any]], None]


class SimEngine:
    """SageMaker's training-job control plane and model registry, simulated: the API calls, admin actions, a
    driver API.

    API methods take and return the botocore JSON shapes (dicts) and raise :class:`SimApiError`. Without a clock
    the engine runs on a :class:`VirtualClock`.
    """

    def __init__(
        self,
        config: SimConfig | None = None,
        clock: Clock | None = None,
        checkpoints: CheckpointStore | None = None,
    ) -> None:
        self._lock = threading.RLock()
        self._clock: Clock = clock if clock is not None else VirtualClock()
        self._state = self._fresh(config or SimConfig(), checkpoints)
        self._lifecycle = Lifecycle(self._state)

    @staticmethod
    def _fresh(config: SimConfig, checkpoints: CheckpointStore | None) -> SimState:
        return SimState(config) if checkpoints is None else SimState(config, checkpoints)

    # ------------------------------------------------------------------------------------------ properties

    @property
    def clock(self) -> Clock:
        return self._clock

    @property
    def config(self) -> SimConfig:
        return self._state.config

    def now(self) -> float:
        return self._clock.now()

    # -------------------------------------------------------------------------------------------- the API

    def call(
        self,
        operation: str,
        request: Mapping[str, Any],
        precheck: Precheck | None = None,
        *,
        tally: ApiCounters | None = None,
    ) -> dict[str, Any]:
        """One API call as the endpoint serves it: counted, maybe throttled, prechecked, then dispatched.
        ``tally``: the caller's own counters, counted alike besides the account's (``simulate`` keeps each fleet
        run's calls apart on one engine)."""
        with self._lock:
            tallies = (self._state.counters,) if tally is None else (self._state.counters, tally)
            for counters in tallies:
                counters.calls[operation] += 1
            config = self._state.config
            if self._state.throttle.should_throttle(
                operation, config.throttle_share, config.throttle_operations
            ):
                for counters in tallies:
                    counters.throttled[operation] += 1
                raise throttled()
            errors = config.api_errors
            failing = self._state.api_errors.should_fail(operation, errors.share, errors.operations)
            try:
                if precheck is not None:
                    precheck(request)
                if failing and not errors.after_commit:
                    raise internal_failure()
                answer = self._dispatch(operation, request)
                if failing:  # it took effect; only the answer is lost
                    raise internal_failure()
                return answer
            except SimApiError as exc:
                for counters in tallies:
                    counters.errors[f"{operation}:{exc.code}"] += 1
                raise

    def create_training_job(self, request: Mapping[str, Any]) -> dict[str, Any]:
        return self.call("CreateTrainingJob", request)

    def describe_training_job(self, name: str) -> dict[str, Any]:
        return self.call("DescribeTrainingJob", {"TrainingJobName": name})

    def list_training_jobs(self, request: Mapping[str, Any] | None = None) -> dict[str, Any]:
        return self.call("ListTrainingJobs", request or {})

    def stop_training_job(self, name: str) -> dict[str, Any]:
        return self.call("StopTrainingJob", {"TrainingJobName": name})

    def update_training_job(self, request: Mapping[str, Any]) -> dict[str, Any]:
        return self.call("UpdateTrainingJob", request)

    def _dispatch(self, operation: str, request: Mapping[str, Any]) -> dict[str, Any]:
        now = self._sync()
        if not isinstance(request, Mapping):
            raise validation_error("The request body must be a JSON object.")
        if operation == "CreateTrainingJob":
            return self._create(request, now)
        if operation == "ListTrainingJobs":
            return list_training_jobs(self._state.jobs.values(), request, now)
        if operation == "DescribeTrainingJob":
            return self._describe(request, now)
        if operation == "StopTrainingJob":
            return self._stop(self._job(request), now)
        if operation == "UpdateTrainingJob":
            return self._update(self._job(request), request, now)
        if operation in ("ListTags", "AddTags"):
            return self._tags(request) if operation == "ListTags" else self._add_tags(request)
        if operation in REGISTRY_OPERATIONS:
            return self._registry(operation, request, now)
        raise validation_error(f"The simulator does not serve {operation}.")

    def _describe(self, request: Mapping[str, Any], now: float) -> dict[str, Any]:
        name = check_job_name(request.get("TrainingJobName"))
        job = self._state.jobs.get(name)
        if job is None:
            raise job_not_found_for_describe()
        config = self._state.config
        return describe(job, now, seed=config.seed, metrics=config.metrics)

    def _create(self, request: Mapping[str, Any], now: float) -> dict[str, Any]:
        parsed = parse_training_request(request)
        state = self._state
        if parsed.name in state.jobs:
            raise resource_in_use(
                "Training job names must be unique within an AWS account and region, and a training job with "
                f"this name already exists ({state.jobs[parsed.name].arn})"
            )
        config = state.config
        work = config.work.estimate(parsed.name, parsed.tags, config.seed)
        job = TrainingJob(
            request=parsed,
            raw=copy.deepcopy(dict(request)),
            arn=f"arn:aws:sagemaker:{config.region}:{config.account_id}:training-job/{parsed.name}",
            created_at=now,
            work_seconds=work.seconds,
            work_source=work.source,
            keep_alive=parsed.keep_alive,
            discount=spot.discount(config.spot, config.seed, parsed.name) if parsed.spot else 0.0,
        )
        if parsed.spot:
            state.quotas.admit_spot(parsed.instance_type, parsed.instance_count)
        elif state.pools.find_available(parsed.key, now) is None:
            state.quotas.admit_on_demand(parsed.instance_type, parsed.instance_count)
        state.jobs[job.name] = job
        claim_pool(state, job, now)
        self._lifecycle.start(job, now)
        return {"TrainingJobArn": job.arn}

    def _registry(self, operation: str, request: Mapping[str, Any], now: float) -> dict[str, Any]:
        registry = self._state.registry
        if operation == "CreateModelPackageGroup":
            return registry.create_group(request, now)
        if operation == "DescribeModelPackageGroup":
            return registry.describe_group(request)
        if operation == "CreateModelPackage":
            return registry.create_package(request, now)
        if operation == "DescribeModelPackage":
            return registry.describe_package(request)
        if operation == "ListModelPackages":
            return registry.list_packages(request)
        return registry.update_package(request, now)

    def _tags(self, request: Mapping[str, Any]) -> dict[str, Any]:
        """ListTags of a training job, a model package group or a model package, by its ARN."""
        tags = self._tags_of(request)
        return {"Tags": [{"Key": k, "Value": v} for k, v in tags.items()]}

    def _tags_of(self, request: Mapping[str, Any]) -> dict[str, str]:
        registered = self._state.registry.tags_of(str(request.get("ResourceArn", "")))
        if registered is not None:
            return registered
        job = self._job_by_arn(request)
        return {**job.request.tags, **job.added_tags}

    def _add_tags(self, request: Mapping[str, Any]) -> dict[str, Any]:
        """AddTags to a training job, group or package by its ARN (at most 50 tags in all, as SageMaker allows)."""
        target = self._state.registry.tags_of(str(request.get("ResourceArn", "")))
        if target is None:
            job = self._job_by_arn(request)
            target, current = job.added_tags, {**job.request.tags, **job.added_tags}
        else:
            current = dict(target)
        tags = request.get("Tags")
        if not isinstance(tags, list) or not tags:
            raise validation_error(
                "1 validation error detected: Value at 'tags' failed to satisfy constraint."
            )
        added: dict[str, str] = {}
        for tag in tags:
            if not (
                isinstance(tag, Mapping)
                and isinstance(tag.get("Key"), str)
                and tag["Key"]
                and isinstance(tag.get("Value", ""), str)
            ):
                raise validation_error("Each tag needs a non-empty Key and a string Value.")
            added[tag["Key"]] = str(tag.get("Value", ""))
        if len({**current, **added}) > 50:
            raise validation_error("A resource can have at most 50 tags.")
        target.update(added)
        return {"Tags": [{"Key": k, "Value": v} for k, v in added.items()]}

    def _job_by_arn(self, request: Mapping[str, Any]) -> TrainingJob:
        arn = str(request.get("ResourceArn", ""))
        for job in self._state.jobs.values():
            if job.arn == arn:
                return job
        raise validation_error(f"Could not find resource {arn}.")

    def _job(self, request: Mapping[str, Any]) -> TrainingJob:
        name = check_job_name(request.get("TrainingJobName"))
        job = self._state.jobs.get(name)
        if job is None:
            raise resource_not_found(f"Training job {name} does not exist.")
        return job

    def _stop(self, job: TrainingJob, now: float) -> dict[str, Any]:
        if job.status == "Stopping":
            return {}
        if job.status != "InProgress":
            raise validation_error(
                f"The request was rejected because the training job is in status {job.status}."
            )
        self._lifecycle.stop(job, now)
        return {}

    def _update(self, job: TrainingJob, request: Mapping[str, Any], now: float) -> dict[str, Any]:
        resources = request.get("ResourceConfig")
        if resources is None:
            return {"TrainingJobArn": job.arn}  # profiler/debug updates: accepted, not simulated
        if not isinstance(resources, Mapping) or "KeepAlivePeriodInSeconds" not in resources:
            raise validation_error("ResourceConfig must set KeepAlivePeriodInSeconds.")
        seconds = resources["KeepAlivePeriodInSeconds"]
        if (
            isinstance(seconds, bool)
            or not isinstance(seconds, int)
            or not 0 <= seconds <= KEEP_ALIVE_API_MAX
        ):
            raise validation_error(
                f"Value '{seconds}' at 'resourceConfig.keepAlivePeriodInSeconds' failed to satisfy constraint: "
                f"Member must have value between 0 and {KEEP_ALIVE_API_MAX}"
            )
        update_keep_alive(self._state, job, seconds, now)
        return {"TrainingJobArn": job.arn}

    # ----------------------------------------------------------------------------------------- time & driver

    def _sync(self) -> float:
        """Process every event due by now; returns now."""
        now = self._clock.now()
        self._process_until(now)
        return now

    def _process_until(self, until: float) -> None:
        queue = self._state.queue
        virtual = self._clock if isinstance(self._clock, VirtualClock) else None
        while (event := queue.pop_due(until)) is not None:
            if virtual is not None and event.time > virtual.now():
                virtual.set(event.time)  # a listener acting on the event acts at the event's time
            self._lifecycle.handle(event)

    def next_event_time(self) -> float | None:
        """When the state next changes by itself; None when nothing will happen until someone calls the API."""
        with self._lock:
            queue = self._state.queue
            queue.drop_stale_head(self._lifecycle.is_stale)
            return queue.next_time()

    def run_until(self, when: float) -> float:
        """Move a :class:`VirtualClock` to ``when`` and process everything due; returns the new time."""
        with self._lock:
            if not isinstance(self._clock, VirtualClock):
                raise TypeError("run_until needs a VirtualClock; a WallClock runs by itself (see advance)")
            self._process_until(when)
            return self._clock.set(max(when, self._clock.now()))

    def advance(self, seconds: float) -> float:
        """Jump the simulated clock ahead (admin); everything due in between happens."""
        with self._lock:
            if not isinstance(self._clock, AdjustableClock):
                raise TypeError("this clock cannot be moved")
            self._clock.advance(seconds)
            return self._sync()

    def set_speed(self, speed: float) -> None:
        with self._lock:
            if not isinstance(self._clock, WallClock):
                raise TypeError("only a WallClock has a speed")
            self._sync()
            self._clock.set_speed(speed)

    def subscribe(self, listener: JobListener) -> None:
        """Call ``listener`` on every status change (EventBridge-like; under the engine's lock, keep it quick)."""
        with self._lock:
            self._state.listeners.append(listener)

    # ------------------------------------------------------------------------------------------------ admin

    def reset(
        self,
        config: SimConfig | None = None,
        clock: Clock | None = None,
        checkpoints: CheckpointStore | None = None,
    ) -> None:
        """Forget every job, pool and counter; keep listeners. Defaults: the current config and clock."""
        with self._lock:
            listeners = self._state.listeners
            self._clock = clock if clock is not None else self._clock
            self._state = self._fresh(config or self._state.config, checkpoints)
            self._state.listeners.extend(listeners)
            self._lifecycle = Lifecycle(self._state)

    def configure(self, **changes: Any) -> SimConfig:
        """Replace fields of the configuration (``dataclasses.replace`` semantics); returns the new one."""
        with self._lock:
            self._sync()
            self._state.config = replace(self._state.config, **changes)
            return self._state.config

    def interrupt(self, name: str) -> None:
        """Reclaim a running spot job's instances now (fault injection)."""
        with self._lock:
            now = self._sync()
            job = self._admin_job(name)
            if not job.request.spot or job.status != "InProgress" or job.secondary == "Interrupted":
                raise validation_error(
                    f"Only an in-progress managed spot training job can be interrupted; {name} is "
                    f"{'spot' if job.request.spot else 'on-demand'} and {job.status}/{job.secondary}."
                )
            self._lifecycle.interrupt(job, now)

    def fail(self, name: str, reason: str = "AlgorithmError: failed by the simulator administrator") -> None:
        """Fail an in-progress job now with ``reason`` (fault injection)."""
        with self._lock:
            now = self._sync()
            job = self._admin_job(name)
            if job.status not in ("InProgress", "Stopping"):
                raise validation_error(f"Training job {name} is {job.status}; only a running job can fail.")
            self._lifecycle.fail(job, now, reason)

    def _admin_job(self, name: str) -> TrainingJob:
        job = self._state.jobs.get(name)
        if job is None:
            raise resource_not_found(f"Training job {name} does not exist.")
        return job

    def facts(self, name: str) -> JobFacts:
        """What only the simulator knows about a job (warm or cold start, start-up, work, attempts)."""
        with self._lock:
            now = self._sync()
            return job_facts(self._admin_job(name), now)

    def snapshot(self) -> dict[str, Any]:
        """The whole state as JSON-ready data (admin ``GET /_sim/state``)."""
        with self._lock:
            now = self._sync()
            return state_json(self._state, self._clock, now)

    def registry(self) -> dict[str, Any]:
        """The model registry's groups and packages as JSON-ready data (admin ``GET /_sim/registry``)."""
        with self._lock:
            return self._state.registry.snapshot()

    def api_calls(self) -> dict[str, dict[str, int]]:
        with self._lock:
            return self._state.counters.to_json()
