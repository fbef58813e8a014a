"""Job names, their tags and S3 paths (docs/formats.md, job names and S3 layout): deterministic, so the name is the idempotency key of a submission.

SageMaker has no client token for CreateTrainingJob; a name is unique per account and region. The same fleet,
city, run key and attempt always give the same name, which lets a retried task re-attach instead of launching twice.
"""

from __future__ import annotations

import datetime as dt
import hashlib
import re
from collections.abc import Mapping
from typing import Any

from sagemaker_fleet.errors import SageMakerFleetError

#: SageMaker's TrainingJobName pattern and length (docs/sagemaker-behaviour.md, training job names).
JOB_NAME_MAX = 63
#: Run keys are short lowercase alphanumerics (a logical date ``20261129`` or a short hash of a run id).
#: ``r<digits>`` is reserved: it is the re-submission suffix, so a run key of that shape would be ambiguous.
RUN_KEY_RE = re.compile(r"^[a-z0-9]{1,16}$")
_RESERVED_RUN_KEY_RE = re.compile(r"^r\d+$")
_HASH_CHARS = 8
#: What precedes the submission number at the end of a re-submission's name (``…-r2``); the first has none.
RESUBMISSION_MARK = "-r"
_RESUBMISSION_RE = re.compile(rf"{RESUBMISSION_MARK}(\d+)$")
#: The most submissions (``…``, ``…-r2`` … ``…-r{n}``) one city may make in one run: a spot city's 20 attempts and its
#: on-demand fallback, each Airflow retry of a failed job and one forced retrain fit with room to spare. Everything
#: that looks a run's jobs up by name (dispatch, sensors, the cost report) looks this far, and a city that would
#: go past it fails with the reason instead of launching a job nobody would find.
MAX_SUBMISSIONS = 32


#: The job tags the provider writes (``sagemaker-fleet:*``): a ``job:`` template may add its own beside them, never
#: one of these (docs/guides/job-template.md, fields the provider owns).
TAG_PREFIX = "sagemaker-fleet:"
TRY_TAG = f"{TAG_PREFIX}airflow-try"
#: On a job stopped because a user acted on its Airflow task (marked it failed or success, cleared it): the value
#: is the task try. A job stopped without it was stopped outside Airflow (the console, the CLI) and is final.
STOPPED_BY_TAG = f"{TAG_PREFIX}stopped-by"
#: The tags that say whose job it is: a job of the same name without these values is another fleet's (or not a
#: fleet job at all) and is never attached to.
FLEET_TAG = f"{TAG_PREFIX}fleet"
CITY_TAG = f"{TAG_PREFIX}city"
RUN_KEY_TAG = f"{TAG_PREFIX}run-key"
OWNER_TAGS = (FLEET_TAG, CITY_TAG, RUN_KEY_TAG)
#: The provider's tags on a city's model package group (a group outlives runs: no run key).
GROUP_TAGS = (FLEET_TAG, CITY_TAG)
#: The submission's attempt number (1, 2, …): how the cost report attributes a job to its city and attempt.
ATTEMPT_TAG = f"{TAG_PREFIX}attempt"
#: On a submission that retrained a completed city because a retrain was forced: later tries of the run see it
#: and attach instead of forcing again.
FORCED_TAG = f"{TAG_PREFIX}forced"
#: The most of the tags above one job may carry (the three owner tags, the attempt, the Airflow try, a forced
#: retrain, and the stop added later), and the most tags SageMaker allows on a training job in all.
PROVIDER_TAGS_MAX = len((*OWNER_TAGS, ATTEMPT_TAG, TRY_TAG, FORCED_TAG, STOPPED_BY_TAG))
TAGS_MAX = 50


class InvalidRunKeyError(SageMakerFleetError, ValueError):
    """A run key that cannot be part of a job name."""


def validate_run_key(run_key: str) -> str:
    if not RUN_KEY_RE.fullmatch(run_key) or _RESERVED_RUN_KEY_RE.fullmatch(run_key):
        raise InvalidRunKeyError(
            f"run key {run_key!r} is invalid: use 1-16 lowercase letters or digits (not r<digits>), "
            "e.g. the logical date 20261129 or a short hash of the run id"
        )
    return run_key


#: Airflow run types whose runs are keyed by their logical date: a re-run of the same date (a backfill of a
#: scheduled day, say) is the same run and attaches to its jobs. Every other run (manual, asset-triggered) is its
#: own run, keyed by a hash of its DAG and run id.
DATED_RUN_TYPES = frozenset({"scheduled", "backfill"})
#: Hex digits of a hashed run key (after its one-letter kind): 60 bits, so that two runs sharing a key (and so
#: their job names) is not a practical worry even over millions of manual runs in one account.
_RUN_HASH_CHARS = 15
#: The first letter of a hashed run key: a manual (or asset-triggered) run; an ``airflow dags test`` run.
MANUAL_RUN_MARK = "m"
TEST_RUN_MARK = "t"


def logical_run_key(logical_date: dt.datetime) -> str:
    """``YYYYMMDD`` for a logical date at midnight UTC (daily and weekly schedules), else ``YYYYMMDDtHHMMSS`` (UTC):
    two runs of a sub-daily schedule never share a key."""
    utc = logical_date.astimezone(dt.UTC) if logical_date.tzinfo else logical_date
    if (utc.hour, utc.minute, utc.second, utc.microsecond) == (0, 0, 0, 0):
        return utc.strftime("%Y%m%d")
    if utc.microsecond:
        raise InvalidRunKeyError(
            f"logical date {logical_date.isoformat()} has sub-second precision: no run key "
            "names it; schedule runs on whole seconds"
        )
    return utc.strftime("%Y%m%dt%H%M%S")


def today_run_key(now: dt.datetime | None = None) -> str:
    """Today's date in UTC as ``YYYYMMDD``: the run key of today's run of a daily DAG (its logical date is midnight
    UTC), and the one default of every command's ``--run-key``, so ``plan`` and ``simulate`` name the same jobs
    as the run they stand for. ``now`` (default: the clock) may be in any time zone."""
    moment = now if now is not None else dt.datetime.now(dt.UTC)
    day = (moment.astimezone(dt.UTC) if moment.tzinfo else moment).date()
    return logical_run_key(dt.datetime(day.year, day.month, day.day, tzinfo=dt.UTC))


def run_key_for(
    logical_date: dt.datetime | None,
    run_id: str,
    run_type: str | None = None,
    *,
    dag_id: str,
    test: bool = False,
) -> str:
    """The run key of an Airflow run of DAG ``dag_id``: its logical date (:func:`logical_run_key`) for scheduled and
    backfill runs; for an ``airflow dags test`` run (``test``) ``t`` + a hash of the DAG and the logical date, so
    that a new test of the same DAG and date is the same run and attaches to the jobs of one that was interrupted
    (each test gets a new run id); else ``m`` + a hash of the DAG and the run id. Decided by the run's type, never by
    the shape of its run id (a manual run's id can be anything, including ``scheduled__…``). The DAG is part of every
    hashed key: two DAGs of one fleet given the same run id are two runs, each with its own jobs."""
    kind = getattr(run_type, "value", run_type)
    if logical_date is not None and kind in DATED_RUN_TYPES:
        return validate_run_key(logical_run_key(logical_date))
    if test and logical_date is not None:
        utc = logical_date.astimezone(dt.UTC) if logical_date.tzinfo else logical_date
        return TEST_RUN_MARK + _run_hash(dag_id, utc.isoformat())
    return MANUAL_RUN_MARK + _run_hash(dag_id, run_id)


def _run_hash(dag_id: str, run: str) -> str:
    # a NUL is in no DAG id: ("a", "b/c") and ("a/b", "c") hash apart
    return hashlib.sha256(f"{dag_id}\0{run}".encode()).hexdigest()[:_RUN_HASH_CHARS]


def context_run_key(context: Mapping[str, Any], *, test: bool = False) -> str:
    """The run key of the Airflow run an Airflow task context belongs to (:func:`run_key_for`); ``test``: the task
    runs under ``airflow dags test`` (the operators ask :func:`sagemaker_fleet.compat.under_dag_test`)."""
    dag_run = context.get("dag_run")
    run_id = str(getattr(dag_run, "run_id", "") or context.get("run_id", ""))
    dag_id = str(getattr(dag_run, "dag_id", "") or getattr(context.get("ti"), "dag_id", "") or "")
    return run_key_for(
        context.get("logical_date"), run_id, getattr(dag_run, "run_type", None), dag_id=dag_id, test=test
    )


def run_name_contains(run_key: str) -> str:
    """What every job name of the run contains, shortened or not (``-{run_key}``): ListTrainingJobs' NameContains
    for one run, so a listing covers that run's jobs, not the fleet's whole history."""
    return f"-{validate_run_key(run_key)}"


def run_key_floor(run_key: str) -> dt.datetime | None:
    """The earliest creation time a job of the run can have, for ListTrainingJobs' CreationTimeAfter: the day
    before a dated key's day (a run's jobs are created after its logical date; a day of margin for clocks);
    None for a hashed key (manual runs), whose name filter is already unique."""
    match = re.fullmatch(r"(\d{8})(t\d{6})?", run_key)
    if match is None:
        return None
    try:
        day = dt.datetime.strptime(match.group(1), "%Y%m%d").replace(tzinfo=dt.UTC)
    except ValueError:
        return None
    return day - dt.timedelta(days=1)


def job_name(fleet: str, city: str, run_key: str, attempt: int = 1) -> str:
    """``{fleet}-{city}-{run_key}`` plus ``-r{n}`` for the n-th submission (n ≥ 2), shortened with a stable hash."""
    validate_run_key(run_key)
    if attempt < 1:
        raise ValueError(f"attempt must be ≥ 1, got {attempt}")
    if attempt > MAX_SUBMISSIONS:
        raise ValueError(
            f"attempt {attempt} is past the {MAX_SUBMISSIONS} submissions one city may make in a run"
        )
    if not fleet or "-" in fleet:
        raise ValueError(
            f"fleet name {fleet!r} must be non-empty and without '-': the first '-' of a job name ends "
            "the fleet, so that two fleets never name the same job"
        )
    suffix = f"{RESUBMISSION_MARK}{attempt}" if attempt >= 2 else ""
    name = f"{fleet}-{city}-{run_key}{suffix}"
    if len(name) <= JOB_NAME_MAX:
        return name
    digest = hashlib.sha256(f"{fleet}/{city}".encode()).hexdigest()[:_HASH_CHARS]
    tail = f"-{digest}-{run_key}{suffix}"
    room = JOB_NAME_MAX - len(tail)
    head = f"{fleet}-{city}"[:room].rstrip("-")
    return f"{head}{tail}"


def fleet_of_job(name: str) -> str | None:
    """The fleet a job name says it belongs to: what precedes its first ``-`` (:func:`job_name` keeps fleet names
    free of ``-`` for this); None for a name without one. What a name says, not proof of ownership (the owner tags
    are): enough to decide whose job names a reader may see, since a job named so is in that fleet's namespace."""
    fleet, dash, _ = name.partition("-")
    return fleet if dash and fleet else None


def is_run_job(name: str, fleet: str, run_key: str) -> bool:
    """Whether ``name`` is one of :func:`job_name`'s names for the run (any city, any submission, shortened or
    not): ``{fleet}-…-{run_key}`` with or without ``-r<n>``. How a run tells its own jobs in an account's listing."""
    return name.startswith(f"{fleet}-") and bool(
        re.search(rf"-{re.escape(run_key)}({RESUBMISSION_MARK}\d+)?$", name)
    )


def submission_number(name: str) -> int:
    """Which submission of its city a :func:`job_name` name is: ``n`` for ``…-r<n>``, else 1."""
    match = _RESUBMISSION_RE.search(name)
    return int(match.group(1)) if match else 1


def checkpoint_s3_uri(output_s3_uri: str, city: str, run_key: str) -> str:
    """Shared by every submission of a city in a run, so a re-submission resumes from the last checkpoint."""
    return f"{output_s3_uri.rstrip('/')}/checkpoints/{city}/{run_key}/"


def models_s3_prefix(output_s3_uri: str) -> str:
    """Where every run's models go (``{output_s3_uri}/models/``): the DAG's model asset."""
    return f"{output_s3_uri.rstrip('/')}/models/"


def reports_s3_prefix(output_s3_uri: str) -> str:
    """Where every run's cost report goes (``{output_s3_uri}/reports/``): the history the planner reads."""
    return f"{output_s3_uri.rstrip('/')}/reports/"


def model_s3_uri(output_s3_uri: str, city: str, run_key: str) -> str:
    return f"{models_s3_prefix(output_s3_uri)}{city}/{run_key}/"


def report_s3_uri(output_s3_uri: str, run_key: str) -> str:
    return f"{reports_s3_prefix(output_s3_uri)}{run_key}/"


def split_s3_uri(uri: str, *, scheme_optional: bool = False) -> tuple[str, str]:
    """``s3://bucket/a/b/`` → (``bucket``, ``a/b/``): the one split of an S3 URI. A URI without ``s3://`` raises
    ValueError, unless ``scheme_optional`` (``bucket/a/b/`` splits alike): for a value not checked yet, whose own
    check reports it, or a URI AWS gave back, named as it is."""
    if not uri.startswith("s3://") and not scheme_optional:
        raise ValueError(f"not an S3 URI: {uri!r}")
    bucket, _, key = uri.removeprefix("s3://").partition("/")
    return bucket, key
