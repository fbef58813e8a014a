"""A pilot's run, in the order its dry run lists the calls: check the account, write the data, train the three
stores through the fleet's dispatch, clean up, and write what happened beside what the simulator predicts.

Ctrl-C (or SIGTERM) while it trains: the stores' tasks are cancelled, then the clean-up stops any job still running
and ends every warm pool the pilot's jobs left (exit 130; 143 after SIGTERM). A second one during the clean-up prints
the AWS CLI commands that end the rest. Any other failure is cleaned up the same way before it is reported (exit 1).
The pilot installs both handlers itself: a process started with SIGINT ignored (a background job of a script, a
test runner's worker) would otherwise train on through Ctrl-C and leave its jobs and pools to bill.
"""

from __future__ import annotations

import asyncio
import json
import signal
import sys
import threading
from contextlib import contextmanager
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from botocore.exceptions import BotoCoreError, ClientError

from sagemaker_fleet.cli.pilot.aws import pilot_aws
from sagemaker_fleet.cli.pilot.calls import CallRecorder
from sagemaker_fleet.cli.pilot.cleanup import (
    Settled,
    delete_keys,
    manual_clean_up,
    objects_under,
    settle_jobs,
)
from sagemaker_fleet.cli.pilot.data import store_csv
from sagemaker_fleet.cli.pilot.dispatch import PilotLog, train_stores
from sagemaker_fleet.cli.pilot.fleet import PilotRefused
from sagemaker_fleet.cli.pilot.record import PilotRecord, aws_report, predicted_report
from sagemaker_fleet.cli.pilot.settings import FLEET
from sagemaker_fleet.fleetspec.model import STOP_GRACE_SECONDS
from sagemaker_fleet.fleetspec.names import is_run_job, run_name_contains
from sagemaker_fleet.jobs.errors import error_code
from sagemaker_fleet.jobs.service_quotas import QuotaKind, quota_name
from sagemaker_fleet.preflight.quotas import QuotaReadError, read_account_quotas
from sagemaker_fleet.simulate import SimulationError

if TYPE_CHECKING:
    from collections.abc import Iterator
    from pathlib import Path
    from types import FrameType

    from sagemaker_fleet.cli.pilot.aws import PilotAws
    from sagemaker_fleet.cli.pilot.ceiling import CostCeiling
    from sagemaker_fleet.cli.pilot.fleet import PilotFleet

#: The exit code after Ctrl-C (128 + SIGINT), as a shell reports it; after SIGTERM it is 143 (128 + SIGTERM).
INTERRUPTED = 130
#: The signals that stop the pilot and start its clean-up.
STOP_SIGNALS = (signal.SIGINT, signal.SIGTERM)
#: Beyond a job's stop and its keep-alive, how long the clean-up waits for AWS to show the end (s).
SETTLE_SLACK_SECONDS = 300.0


def check_account(fleet: PilotFleet, aws: PilotAws) -> None:
    """The quotas the pilot needs, and that its run key is unused (no object under its prefix, no job of its
    names); :class:`PilotRefused` says which is missing and how to mend it."""
    settings, itype = fleet.settings, fleet.settings.instance_type
    quota = read_account_quotas(aws.quotas, [itype]).get(itype)
    if quota is None:
        raise PilotRefused(
            f"Service Quotas lists no {quota_name(itype, 'instances')!r} in {settings.region}: SageMaker may not "
            "offer the type there; pick another --instance-type"
        )
    kinds: tuple[tuple[QuotaKind, int], ...] = (
        ("instances", quota.instances),
        ("warm_pools", quota.warm_pools),
    )
    for kind, have in kinds:
        if have < 1:
            raise PilotRefused(
                f"the account's quota {quota_name(itype, kind)!r} is {have} in {settings.region}: the pilot needs 1 "
                "(without a warm pool every store starts cold and there is no warm start to measure); request it in "
                "the Service Quotas console (Amazon SageMaker) and run the pilot again"
            )
    try:
        used = aws.s3.list_objects_v2(Bucket=settings.bucket, Prefix=settings.run_prefix, MaxKeys=1)
    except ClientError as exc:
        if error_code(exc) == "NoSuchBucket":
            raise PilotRefused(
                f"--s3-prefix: the bucket {settings.bucket} does not exist in this account; create it or name one "
                "that does"
            ) from None
        raise
    if used.get("Contents"):
        raise PilotRefused(
            f"--run-key {settings.run_key}: s3://{settings.bucket}/{settings.run_prefix} already holds objects; "
            "give a new --run-key (or leave it out)"
        )
    jobs = [
        summary["TrainingJobName"]
        for summary in aws.hook.list_jobs(run_name_contains(settings.run_key))
        if is_run_job(str(summary["TrainingJobName"]), FLEET, settings.run_key)
    ]
    if jobs:
        raise PilotRefused(
            f"--run-key {settings.run_key}: the job {jobs[0]} exists already; give a new --run-key (or leave it out)"
        )


def upload_data(fleet: PilotFleet, aws: PilotAws, log: PilotLog) -> None:
    settings = fleet.settings
    for store in fleet.stores:
        body = store_csv(store)
        aws.s3.put_object(
            Bucket=settings.bucket, Key=settings.data_key(store), Body=body, ContentType="text/csv"
        )
        log.info(
            "%s: wrote s3://%s/%s (%d bytes)", store, settings.bucket, settings.data_key(store), len(body)
        )


def _settle(fleet: PilotFleet, aws: PilotAws, log: PilotLog, *, stop_running: bool) -> Settled:
    turns = fleet.book.turns.values()
    longest = max(turn.keep_alive_seconds for turn in turns) if turns else 0
    return settle_jobs(
        aws.hook,
        fleet.job_names,
        poll_seconds=fleet.settings.poll_interval,
        deadline_seconds=STOP_GRACE_SECONDS + longest + SETTLE_SLACK_SECONDS,
        stop_running=stop_running,
        say=lambda text: log.info("%s", text),
    )


def _train(fleet: PilotFleet, aws: PilotAws, log: PilotLog) -> dict[str, str]:
    """Each store's outcome (``done``, or why not)."""
    ends = asyncio.run(train_stores(fleet, aws.hook, log))
    return {
        store: end.kind if end.kind == "done" else f"{end.kind}: {end.reason}" for store, end in ends.items()
    }


class _Stopped:
    """The last stop signal the pilot received (SIGINT until SIGTERM arrives)."""

    signum: int = signal.SIGINT


def _terminate_as_interrupt(signum: int, _frame: FrameType | None) -> None:
    """SIGTERM takes Ctrl-C's path: asyncio cancels the stores' tasks, then the clean-up runs."""
    _Stopped.signum = signum
    signal.raise_signal(signal.SIGINT)


@contextmanager
def _stop_signals() -> Iterator[None]:
    """Ctrl-C raises KeyboardInterrupt while the pilot runs, whatever the process inherited (SIGINT ignored by the
    parent stays ignored in a Python child otherwise), and SIGTERM does what Ctrl-C does; the previous handlers come
    back after."""
    if threading.current_thread() is not threading.main_thread():  # only the main thread may set handlers
        yield
        return
    previous = {signum: signal.getsignal(signum) for signum in STOP_SIGNALS}
    signal.signal(signal.SIGINT, signal.default_int_handler)
    signal.signal(signal.SIGTERM, _terminate_as_interrupt)
    try:
        yield
    finally:
        for signum, handler in previous.items():
            signal.signal(signum, handler)


def stopped_by() -> str:
    """How the person or the system stopped the pilot, as its messages say it."""
    return "Ctrl-C" if _Stopped.signum == signal.SIGINT else signal.Signals(_Stopped.signum).name


def _interrupted_exit() -> int:
    return 128 + int(_Stopped.signum)


def run_pilot(fleet: PilotFleet, ceiling: CostCeiling, out: Path) -> int:
    """Run the pilot; its exit code (0 every store trained, 1 a store or a call failed, 2 refused, 130 Ctrl-C,
    143 SIGTERM)."""
    _Stopped.signum = signal.SIGINT
    with _stop_signals():
        try:
            return _run(fleet, ceiling, out)
        except (
            KeyboardInterrupt
        ):  # before the first object was written (later ones are the run's to clean up)
            print(f"{stopped_by()}: stopped before anything was written or launched", file=sys.stderr)
            return _interrupted_exit()


def _run(fleet: PilotFleet, ceiling: CostCeiling, out: Path) -> int:
    settings, recorder, log = fleet.settings, CallRecorder(), PilotLog()
    aws = pilot_aws(settings, recorder)
    where = "AWS" if aws.is_aws else f"{aws.endpoint_url} (AWS_ENDPOINT_URL: not AWS)"
    print(
        f"pilot {settings.run_key}: {len(fleet.stores)} stores in {settings.region} against {where}",
        flush=True,
    )
    out.mkdir(parents=True, exist_ok=True)
    (out / "pilot.yaml").write_text(fleet.spec_text, encoding="utf-8")
    (out / "plan.json").write_text(fleet.plan.dumps(indent=2) + "\n", encoding="utf-8")
    try:
        check_account(fleet, aws)
    except PilotRefused as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    except (QuotaReadError, ClientError, BotoCoreError) as exc:
        print(f"error: the account could not be checked: {exc}", file=sys.stderr)
        return 1
    trained = _train_and_clean_up(fleet, aws, log)
    if trained is None:
        return _interrupted_exit()
    record = _record(fleet, ceiling, aws, recorder, trained)
    _write(out, record, recorder)
    print(record.text(), end="", flush=True)
    print(f"written: {out / 'pilot.json'}, {out / 'pilot.txt'}, {out / 'calls.json'}, {out / 'report'}/")
    return _exit_code(fleet, trained)


@dataclass(frozen=True)
class Trained:
    """How the stores' training went and what the clean-up found."""

    outcomes: dict[str, str]
    settled: Settled
    objects: list[dict[str, Any]]
    delete_failed: list[str]
    interrupted: bool = False
    failure: BaseException | None = None


def _train_and_clean_up(fleet: PilotFleet, aws: PilotAws, log: PilotLog) -> Trained | None:
    """Write the data, train, then clean up whatever happened (None: a second Ctrl-C stopped the clean-up; the
    commands that end the rest are printed)."""
    settings = fleet.settings
    interrupted, failure, outcomes, started = False, None, {}, False
    try:
        upload_data(fleet, aws, log)
        started = True
        outcomes = _train(fleet, aws, log)
    except KeyboardInterrupt:
        interrupted = True
        log.warning("%s: ending what the pilot started (another Ctrl-C leaves that to you)", stopped_by())
    except Exception as exc:  # noqa: BLE001 - cleaned up first, then reported with exit 1
        failure = exc
        log.warning("failed: %s: %s; cleaning up", type(exc).__name__, exc)
    try:
        if started:
            settled = _settle(fleet, aws, log, stop_running=interrupted or failure is not None)
        else:  # stopped before the first job: there is none to describe
            settled = Settled(dict.fromkeys(fleet.job_names))
        objects = objects_under(aws.s3, settings.bucket, settings.run_prefix)
        keys = [item["key"] for item in objects]
        failed = delete_keys(aws.s3, settings.bucket, keys) if settings.delete_data else []
    except KeyboardInterrupt:
        print(
            f"{stopped_by()} again: the pilot stops here; end its jobs and pools yourself:", file=sys.stderr
        )
        for line in manual_clean_up(fleet.job_names, settings.region):
            print(f"  {line}", file=sys.stderr)
        return None
    return Trained(outcomes, settled, objects, failed, interrupted, failure)


def _exit_code(fleet: PilotFleet, trained: Trained) -> int:
    if trained.settled.unsettled:
        print("error: not ended in time; end them yourself:", file=sys.stderr)
        for line in manual_clean_up(trained.settled.unsettled, fleet.settings.region):
            print(f"  {line}", file=sys.stderr)
    if trained.failure is not None:
        print(f"error: {type(trained.failure).__name__}: {trained.failure}", file=sys.stderr)
        return 1
    if trained.interrupted:
        return _interrupted_exit()
    done = all(kind == "done" for kind in trained.outcomes.values())
    return 0 if done and not trained.settled.unsettled else 1


def _record(
    fleet: PilotFleet, ceiling: CostCeiling, aws: PilotAws, recorder: CallRecorder, trained: Trained
) -> PilotRecord:
    prediction, error = None, None
    try:
        prediction = predicted_report(fleet)
    except SimulationError as exc:
        error = str(exc)
    return PilotRecord(
        fleet=fleet,
        ceiling=ceiling,
        endpoint_url=aws.endpoint_url,
        is_aws=aws.is_aws,
        outcomes=trained.outcomes,
        aws=aws_report(fleet, trained.settled.descriptions.values()),
        prediction=prediction,
        settled=trained.settled,
        calls=list(recorder.calls),
        objects=trained.objects,
        interrupted=trained.interrupted,
        deleted=fleet.settings.delete_data and not trained.delete_failed,
        delete_failed=trained.delete_failed,
        prediction_error=error,
    )


def _write(out: Path, record: PilotRecord, recorder: CallRecorder) -> None:
    from sagemaker_fleet.cost.publish import write_report_files

    (out / "pilot.json").write_text(json.dumps(record.to_json(), indent=2) + "\n", encoding="utf-8")
    (out / "pilot.txt").write_text(record.text(), encoding="utf-8")
    calls = [call.to_json() for call in recorder.calls]
    (out / "calls.json").write_text(json.dumps(calls, indent=2) + "\n", encoding="utf-8")
    write_report_files(record.aws, out / "report")
