"""Fetch the DescribeTrainingJob responses of one run (a thin I/O wrapper over a
:class:`~sagemaker_fleet.jobs.reader.TrainingJobReader`: the hook, or a boto3 client in a
:class:`~sagemaker_fleet.jobs.reader.ClientJobReader`).

The run's jobs are listed once (``NameContains`` the run's suffix, created since the day before its run key, every
page: AWS, like moto, may return an empty page with a NextToken because filters apply after the page cut), names are
kept only when they are names the run creates (every city, attempts 1..N, docs/formats.md, job names), and each is
described — a few at a time, since SageMaker throttles DescribeTrainingJob when hundreds are asked for at once
(configure the client with adaptive retries).

:func:`find_other_runs_givers` then finds the other runs' jobs whose warm pool a job of the run took (a bounded
look at the account, see its docstring and :mod:`sagemaker_fleet.cost.crossruns`).
"""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor
from typing import TYPE_CHECKING, Any

from sagemaker_fleet.cost.crossruns import (
    OtherRunsPools,
    candidates,
    giver_listing,
    other_runs_pools,
    to_describe,
)
from sagemaker_fleet.fleetspec.names import run_key_floor, run_name_contains
from sagemaker_fleet.jobs.errors import error_code
from sagemaker_fleet.jobs.statuses import ACCESS_DENIED_CODES

if TYPE_CHECKING:
    from collections.abc import Mapping, Sequence

    from mypy_boto3_sagemaker.type_defs import DescribeTrainingJobResponseTypeDef

    from sagemaker_fleet.cost.report import RunJobIndex
    from sagemaker_fleet.jobs.reader import TrainingJobReader

DEFAULT_DESCRIBE_WORKERS = 4


def list_run_job_names(reader: TrainingJobReader, index: RunJobIndex) -> list[str]:
    """Names of the run's jobs that exist, sorted."""
    listed = reader.list_jobs(
        run_name_contains(index.run_key), creation_time_after=run_key_floor(index.run_key)
    )
    return sorted(
        {summary["TrainingJobName"] for summary in listed if summary.get("TrainingJobName") in index}
    )


def describe_run_jobs(
    reader: TrainingJobReader, index: RunJobIndex, workers: int = DEFAULT_DESCRIBE_WORKERS
) -> list[DescribeTrainingJobResponseTypeDef]:
    """DescribeTrainingJob of every job of the run, in name order (ResponseMetadata dropped)."""
    names = list_run_job_names(reader, index)
    with ThreadPoolExecutor(max_workers=max(1, workers)) as pool:
        described = list(pool.map(reader.describe, names))
    return [description for description in described if description is not None]


def find_other_runs_givers(
    reader: TrainingJobReader,
    index: RunJobIndex,
    describes: Sequence[Mapping[str, Any]],
    workers: int = DEFAULT_DESCRIBE_WORKERS,
) -> OtherRunsPools:
    """Which other runs' jobs handed a warm pool to a job of the run (:mod:`sagemaker_fleet.cost.crossruns`).

    Calls: none when no job of the run could have taken another run's pool; else one ListTrainingJobs listing of
    the account (``WarmPoolStatusEquals=Reused``, created since 28 days 1 hour before the run's first candidate,
    every page) and one DescribeTrainingJob per job of it that :func:`~.crossruns.to_describe` picks. A refused
    describe (AccessDenied: credentials scoped to the fleet's own jobs) leaves that job unknown; a refused listing
    leaves every giver unknown; the report is written either way."""
    takers = candidates(describes)
    if not takers:
        return OtherRunsPools()
    try:
        summaries: list[Mapping[str, Any]] = [
            summary
            for summary in reader.list_jobs(
                "", creation_time_after=giver_listing(takers), warm_pool_status_equals="Reused"
            )
            if summary.get("TrainingJobName") not in index
        ]
    except Exception as exc:
        if error_code(exc) not in ACCESS_DENIED_CODES:
            raise
        return OtherRunsPools(looked_up=True, listing_denied=True, list_calls=1)
    names = to_describe(summaries, index, takers)
    denied: list[str] = []

    def describe(name: str) -> Mapping[str, Any] | None:
        try:
            found = reader.describe(name)
        except Exception as exc:
            code = error_code(exc)
            if code not in ACCESS_DENIED_CODES:
                raise
            denied.append(name)
            return None
        return None if found is None else dict(found)  # None: gone since the listing

    with ThreadPoolExecutor(max_workers=max(1, workers)) as pool:
        answers = list(pool.map(describe, names))
    described = {name: answer for name, answer in zip(names, answers, strict=True) if name not in denied}
    return other_runs_pools(summaries, described, takers, denied=denied, list_calls=1)
