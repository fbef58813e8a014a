"""Every AWS call of a pilot: the ones its dry run lists (:func:`planned_calls`, in order, with when each is made)
and the ones a run made (:class:`CallRecorder`, from botocore's events), named alike (:func:`resource_of`) so that
the two lists can be laid side by side.

A planned call is made ``once``, ``repeated`` (page after page, sweep after sweep: at least once) or only ``if``
something happens (Ctrl-C, a pool left idle). The dispatch's calls are those of the fleet's triggerer: one
ListTrainingJobs per sweep of the run, a CreateTrainingJob per store when its turn comes, a DescribeTrainingJob of a
job once a listing shows it ended, and UpdateTrainingJob when the run sees a pool no store will take.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Literal

from sagemaker_fleet.dispatch.cadence import AWS_CADENCE
from sagemaker_fleet.fleetspec.names import run_name_contains

if TYPE_CHECKING:
    from sagemaker_fleet.cli.pilot.fleet import PilotFleet

Times = Literal["once", "repeated", "if"]
#: The phases of a pilot, in order.
Phase = Literal["check", "data", "train", "clean-up"]


def resource_of(service: str, operation: str, params: Mapping[str, Any]) -> str:
    """What a call acts on, as the dry run names it: a job's name, a listing's filter, an object or prefix's URI."""
    if service == "sagemaker":
        if "TrainingJobName" in params:
            return str(params["TrainingJobName"])
        if operation == "ListTrainingJobs":
            return f"NameContains={params.get('NameContains', '')}"
        if "ResourceArn" in params:
            return str(params["ResourceArn"]).rsplit("/", 1)[-1]
    if service == "s3":
        bucket = params.get("Bucket", "")
        if "Key" in params:
            return f"s3://{bucket}/{params['Key']}"
        if "Prefix" in params:
            return f"s3://{bucket}/{params['Prefix']}"
        return f"s3://{bucket}"
    if service == "service-quotas":
        return f"ServiceCode={params.get('ServiceCode', '')}"
    return ""


@dataclass(frozen=True)
class PlannedCall:
    """One line of the dry run."""

    phase: Phase
    service: str
    operation: str
    resource: str
    times: Times
    when: str

    @property
    def key(self) -> tuple[str, str, str]:
        return (self.service, self.operation, self.resource)

    def to_json(self) -> dict[str, str]:
        return {
            "phase": self.phase,
            "service": self.service,
            "operation": self.operation,
            "resource": self.resource,
            "times": self.times,
            "when": self.when,
        }


@dataclass(frozen=True)
class RecordedCall:
    """One call a run made: when (seconds after the pilot began), to what."""

    at: float
    service: str
    operation: str
    resource: str

    @property
    def key(self) -> tuple[str, str, str]:
        return (self.service, self.operation, self.resource)

    def to_json(self) -> dict[str, Any]:
        return {
            "at": round(self.at, 3),
            "service": self.service,
            "operation": self.operation,
            "resource": self.resource,
        }


class CallRecorder:
    """Records each API call made by a botocore session it is attached to, once per call (botocore's own
    retries of a throttled call are not calls of the pilot's); thread-safe (the dispatch's loop and the main
    thread both call)."""

    EVENT = "before-parameter-build"

    def __init__(self) -> None:
        self.calls: list[RecordedCall] = []
        self._began = time.monotonic()
        self._lock = threading.Lock()

    def attach(self, session: Any) -> None:
        """Record the calls of every client ``session`` makes (a botocore or aiobotocore session, or boto3's)."""
        emitter = (
            getattr(session, "events", None) or session
        )  # boto3's Session: its botocore session's events
        emitter.register(self.EVENT, self._record, unique_id=f"sagemaker-fleet-pilot-{id(self)}")

    def _record(self, params: Mapping[str, Any], model: Any, **_: Any) -> None:
        service = str(model.service_model.service_name)
        call = RecordedCall(
            time.monotonic() - self._began, service, str(model.name), resource_of(service, model.name, params)
        )
        with self._lock:
            self.calls.append(call)

    def made(self, operation: str) -> list[RecordedCall]:
        with self._lock:
            return [call for call in self.calls if call.operation == operation]


def _check(fleet: PilotFleet) -> list[PlannedCall]:
    settings = fleet.settings
    prefix = f"s3://{settings.bucket}/{settings.run_prefix}"
    return [
        PlannedCall(
            "check",
            "service-quotas",
            "ListServiceQuotas",
            "ServiceCode=sagemaker",
            "repeated",
            f"page after page: the account's {settings.instance_type} quotas for training jobs and warm pools "
            "(each at least 1, or the pilot stops here)",
        ),
        PlannedCall(
            "check",
            "s3",
            "ListObjectsV2",
            prefix,
            "once",
            "the run's prefix holds nothing yet (else it stops here)",
        ),
        PlannedCall(
            "check",
            "sagemaker",
            "ListTrainingJobs",
            f"NameContains={run_name_contains(settings.run_key)}",
            "repeated",
            "no job of this run key exists yet (else it stops here); page after page",
        ),
    ]


def _data(fleet: PilotFleet) -> list[PlannedCall]:
    settings = fleet.settings
    return [
        PlannedCall(
            "data",
            "s3",
            "PutObject",
            f"s3://{settings.bucket}/{settings.data_key(store)}",
            "once",
            f"{store}'s training data (CSV, a few kB)",
        )
        for store in fleet.stores
    ]


def _train(fleet: PilotFleet) -> list[PlannedCall]:
    settings, book = fleet.settings, fleet.book
    interval = f"{settings.poll_interval:g} s"
    calls = [
        PlannedCall(
            "train",
            "sagemaker",
            "ListTrainingJobs",
            f"NameContains={run_name_contains(settings.run_key)}",
            "repeated",
            f"one listing per sweep of the run: every {interval}, every "
            f"{min(settings.poll_interval, AWS_CADENCE.handoff_interval):g} s while a store waits for its turn, "
            "until the last job ends",
        )
    ]
    previous: str | None = None
    for store in fleet.stores:
        turn, name = book.turns[store], fleet.job_name(store)
        how = "it starts cold" if previous is None else f"on {previous}'s warm pool"
        keep = (
            f"keep-alive {turn.keep_alive_seconds} s, so that {turn.successor} takes its pool"
            if turn.successor is not None
            else f"keep-alive 0: no store is left to take its pool (at most {turn.keep_alive_seconds} s)"
        )
        calls.append(
            PlannedCall(
                "train", "sagemaker", "CreateTrainingJob", name, "once", f"{store}'s turn: {how}; {keep}"
            )
        )
        if turn.successor is None:
            calls.append(
                PlannedCall(
                    "train",
                    "sagemaker",
                    "UpdateTrainingJob",
                    name,
                    "if",
                    "KeepAlivePeriodInSeconds=0 while it runs, when the run sees no store left to take its pool",
                )
            )
        calls.append(
            PlannedCall(
                "train",
                "sagemaker",
                "DescribeTrainingJob",
                name,
                "repeated",
                "once a listing shows it ended (the next store is created in the same sweep), or when two "
                "listings in a row miss it",
            )
        )
        previous = store
    return calls


def _clean_up(fleet: PilotFleet) -> list[PlannedCall]:
    settings = fleet.settings
    calls: list[PlannedCall] = []
    for store in fleet.stores:
        name = fleet.job_name(store)
        calls += [
            PlannedCall(
                "clean-up",
                "sagemaker",
                "DescribeTrainingJob",
                name,
                "repeated",
                f"its record: again every {settings.poll_interval:g} s until it has ended and its pool is Reused "
                "or Terminated",
            ),
            PlannedCall(
                "clean-up", "sagemaker", "StopTrainingJob", name, "if", "only after Ctrl-C, if it still runs"
            ),
            PlannedCall(
                "clean-up",
                "sagemaker",
                "UpdateTrainingJob",
                name,
                "if",
                "KeepAlivePeriodInSeconds=0, only if its pool is still Available",
            ),
        ]
    prefix = f"s3://{settings.bucket}/{settings.run_prefix}"
    calls.append(
        PlannedCall(
            "clean-up",
            "s3",
            "ListObjectsV2",
            prefix,
            "repeated",
            "page after page: every object the pilot and its jobs wrote (data, models, checkpoints)",
        )
    )
    if settings.delete_data:
        calls.append(
            PlannedCall(
                "clean-up",
                "s3",
                "DeleteObjects",
                f"s3://{settings.bucket}",
                "repeated",
                f"--delete-data: the objects listed under {prefix}, 1,000 a call",
            )
        )
    return calls


def planned_calls(fleet: PilotFleet) -> list[PlannedCall]:
    """Every call the pilot of ``fleet`` makes, in order."""
    return [*_check(fleet), *_data(fleet), *_train(fleet), *_clean_up(fleet)]


def render_calls(calls: list[PlannedCall]) -> list[str]:
    """The dry run's table of calls: per phase, one line per call (its number, service, operation, resource and
    how often), then when it is made."""
    widths = [
        max(len(getattr(call, field)) for call in calls) for field in ("service", "operation", "resource")
    ]
    lines = []
    phase = None
    for n, call in enumerate(calls, 1):
        if call.phase != phase:
            phase = call.phase
            lines.append(f"  {phase}:")
        lines.append(
            f"  {n:>3}  {call.service:<{widths[0]}}  {call.operation:<{widths[1]}}  "
            f"{call.resource:<{widths[2]}}  {call.times}"
        )
        lines.append(f"       {call.when}")
    return lines
