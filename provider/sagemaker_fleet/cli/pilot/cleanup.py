"""The pilot's clean-up, after its stores ended or after Ctrl-C: every job ended and every warm pool it left ended
too, then what it wrote to S3 listed (and deleted with ``--delete-data``). Through the provider's hook
(DescribeTrainingJob, StopTrainingJob, UpdateTrainingJob with keep-alive 0).

A job's record is final once it has ended and its pool is no longer idle: ``Reused`` (the next store took it, and
its ``ResourceRetainedBillableTimeInSeconds`` is counted), ``Terminated``, or no pool at all.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from botocore.exceptions import ClientError

from sagemaker_fleet.jobs.errors import error_code
from sagemaker_fleet.jobs.paging import PageGuard
from sagemaker_fleet.jobs.statuses import (
    KEEP_ALIVE_REFUSALS,
    POOL_AVAILABLE,
    TERMINAL_STATUSES,
    pool_status,
    settled,
)

if TYPE_CHECKING:
    from collections.abc import Callable, Mapping, Sequence

    from sagemaker_fleet.hooks.fleet import SageMakerFleetHook
    from sagemaker_fleet.jobs.record import Description

#: DeleteObjects takes at most this many keys a call.
DELETE_BATCH = 1000


@dataclass(frozen=True)
class Settled:
    """The jobs' last descriptions (None: never created), the ones stopped and the pools ended here, and the jobs
    not settled by the deadline (each then named with the command that ends it)."""

    descriptions: Mapping[str, Description | None]
    stopped: tuple[str, ...] = ()
    pools_ended: tuple[str, ...] = ()
    unsettled: tuple[str, ...] = ()


def _end_pool(hook: SageMakerFleetHook, name: str) -> bool:
    """Keep-alive 0 on ``name``'s idle pool; False when AWS refuses because it is gone already (taken, expired)."""
    try:
        hook.update_keep_alive(name, 0)
    except ClientError as exc:
        if error_code(exc) not in KEEP_ALIVE_REFUSALS:
            raise
        return False
    return True


def _stop_running(
    hook: SageMakerFleetHook, described: Mapping[str, Description | None], say: Callable[[str], None]
) -> list[str]:
    stopped = []
    for name, description in described.items():
        if description is not None and description["TrainingJobStatus"] == "InProgress":
            hook.stop(name)
            stopped.append(name)
            say(f"{name}: stopped (it was still running)")
    return stopped


def _unsettled(
    hook: SageMakerFleetHook,
    described: Mapping[str, Description | None],
    ended: list[str],
    say: Callable[[str], None],
) -> list[str]:
    """The jobs still to wait for; ends each pool found Available (once: it is then waited for)."""
    pending = []
    for name, description in described.items():
        if description is None:
            continue
        status, pool = description["TrainingJobStatus"], pool_status(description)
        if status in TERMINAL_STATUSES and pool == POOL_AVAILABLE and name not in ended:
            if _end_pool(hook, name):
                say(f"{name}: its idle warm pool ended (keep-alive 0)")
            ended.append(name)  # then waited for, like any job not settled yet
        if not settled(status, pool):
            pending.append(name)
    return pending


def settle_jobs(
    hook: SageMakerFleetHook,
    names: Sequence[str],
    *,
    poll_seconds: float,
    deadline_seconds: float,
    stop_running: bool,
    say: Callable[[str], None],
) -> Settled:
    """Describe each of ``names`` until its job has ended and its pool is settled; stop a running job first when
    ``stop_running`` (after Ctrl-C); end a pool still Available."""
    described: dict[str, Description | None] = {name: hook.describe(name) for name in names}
    stopped = _stop_running(hook, described, say) if stop_running else []
    ended: list[str] = []
    deadline = time.monotonic() + deadline_seconds
    while True:
        pending = _unsettled(hook, described, ended, say)
        if not pending or time.monotonic() >= deadline:
            return Settled(described, tuple(stopped), tuple(ended), tuple(pending))
        time.sleep(poll_seconds)
        for name in pending:
            described[name] = hook.describe(name)


def objects_under(s3: Any, bucket: str, prefix: str) -> list[dict[str, Any]]:
    """Every object under ``prefix`` (key and size), page after page."""
    guard = PageGuard(f"ListObjectsV2(s3://{bucket}/{prefix})", "NextContinuationToken")
    request: dict[str, Any] = {"Bucket": bucket, "Prefix": prefix}
    found: list[dict[str, Any]] = []
    while True:
        page = s3.list_objects_v2(**request)
        found += [
            {"key": item["Key"], "size": int(item.get("Size", 0))} for item in page.get("Contents") or ()
        ]
        token = guard.next(page)
        if token is None:
            return found
        request["ContinuationToken"] = token


def delete_keys(s3: Any, bucket: str, keys: Sequence[str]) -> list[str]:
    """Delete ``keys``, a thousand a call; the keys S3 could not delete, with its reason."""
    failed: list[str] = []
    for start in range(0, len(keys), DELETE_BATCH):
        batch = [{"Key": key} for key in keys[start : start + DELETE_BATCH]]
        answer = s3.delete_objects(Bucket=bucket, Delete={"Objects": batch, "Quiet": True})
        failed += [f"{error['Key']}: {error.get('Code')}" for error in answer.get("Errors") or ()]
    return failed


def manual_clean_up(names: Sequence[str], region: str) -> list[str]:
    """The AWS CLI commands that end what the pilot could not (a second Ctrl-C, a deadline passed)."""
    lines = []
    for name in names:
        lines.append(f"aws sagemaker stop-training-job --region {region} --training-job-name {name}")
        lines.append(
            f"aws sagemaker update-training-job --region {region} --training-job-name {name} "
            "--resource-config KeepAlivePeriodInSeconds=0"
        )
    return lines
