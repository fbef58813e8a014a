"""Fetch the DescribeTrainingJob responses of one run (a thin I/O wrapper; the client is passed in).

ListTrainingJobs with ``NameContains = "{fleet}-"`` is paginated to the end (AWS, like moto, may return an empty
page with a NextToken because filters apply after the page cut), names are kept only when they are names the run
creates (every city, attempts 1..N, docs/formats.md, job names), and each is described — a few at a time, since SageMaker throttles
DescribeTrainingJob when hundreds are asked for at once (configure the client with adaptive retries).

:func:`find_other_runs_givers` then finds the other runs' jobs whose warm pool a job of the run took (a bounded
look at the account, see its docstring and :mod:`sagemaker_fleet.cost.crossruns`).
"""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor
from typing import TYPE_CHECKING, Any, Protocol, cast

from sagemaker_fleet.cost.crossruns import (
    OtherRunsPools,
    candidates,
    giver_listing,
    other_runs_pools,
    to_describe,
)
from sagemaker_fleet.fleetspec.names import run_key_floor, run_name_contains
from sagemaker_fleet.jobs.errors import error_code
from sagemaker_fleet.jobs.paging import PagedListing, list_request
from sagemaker_fleet.jobs.statuses import ACCESS_DENIED_CODES

if TYPE_CHECKING:
    from collections.abc import Mapping, Sequence
    from typing import Unpack

    from mypy_boto3_sagemaker.type_defs import (
        DescribeTrainingJobRequestTypeDef,
        DescribeTrainingJobResponseTypeDef,
        ListTrainingJobsRequestTypeDef,
        ListTrainingJobsResponseTypeDef,
    )

    from sagemaker_fleet.cost.report import RunJobIndex

DEFAULT_DESCRIBE_WORKERS = 4


class TrainingJobReader(Protocol):
    """The two SageMaker calls the report makes; a boto3 ``sagemaker`` client (typed by the stubs, too) fits."""

    def list_training_jobs(
        self, **kwargs: Unpack[ListTrainingJobsRequestTypeDef]
    ) -> ListTrainingJobsResponseTypeDef: ...

    def describe_training_job(
        self, **kwargs: Unpack[DescribeTrainingJobRequestTypeDef]
    ) -> DescribeTrainingJobResponseTypeDef: ...


def list_run_job_names(client: TrainingJobReader, fleet: str, index: RunJobIndex) -> list[str]:
    """Names of the run's jobs that exist, sorted."""
    names: set[str] = set()
    kwargs = list_request(run_name_contains(index.run_key), creation_time_after=run_key_floor(index.run_key))
    listing = PagedListing(
        f"ListTrainingJobs of fleet {fleet}, run {index.run_key}", kwargs, "TrainingJobSummaries"
    )
    while listing.request is not None:
        page = client.list_training_jobs(**listing.request)
        names.update(
            summary["TrainingJobName"]
            for summary in listing.take(page)
            if summary.get("TrainingJobName") in index
        )
    return sorted(names)


def describe_run_jobs(
    client: TrainingJobReader, fleet: str, index: RunJobIndex, workers: int = DEFAULT_DESCRIBE_WORKERS
) -> list[DescribeTrainingJobResponseTypeDef]:
    """DescribeTrainingJob of every job of the run, in name order (ResponseMetadata dropped)."""
    names = list_run_job_names(client, fleet, index)

    def describe(name: str) -> DescribeTrainingJobResponseTypeDef:
        response = dict(client.describe_training_job(TrainingJobName=name))
        response.pop("ResponseMetadata", None)
        # the stubs declare every member of a response present; ResponseMetadata is not, like any AWS leaves out
        return cast("DescribeTrainingJobResponseTypeDef", response)

    with ThreadPoolExecutor(max_workers=max(1, workers)) as pool:
        return list(pool.map(describe, names))


def find_other_runs_givers(
    client: TrainingJobReader,
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
    listing = PagedListing(
        f"ListTrainingJobs of the account's reused warm pools (run {index.run_key})",
        list_request(creation_time_after=giver_listing(takers), warm_pool_status_equals="Reused"),
        "TrainingJobSummaries",
    )
    summaries: list[Mapping[str, Any]] = []
    calls = 0
    while listing.request is not None:
        calls += 1
        try:
            page = client.list_training_jobs(**listing.request)
        except Exception as exc:
            if error_code(exc) not in ACCESS_DENIED_CODES:
                raise
            return OtherRunsPools(looked_up=True, listing_denied=True, list_calls=calls)
        summaries += [s for s in listing.take(page) if s.get("TrainingJobName") not in index]
    names = to_describe(summaries, index, takers)
    denied: list[str] = []

    def describe(name: str) -> Mapping[str, Any] | None:
        try:
            return dict(client.describe_training_job(TrainingJobName=name))
        except Exception as exc:
            code = error_code(exc)
            if code in ACCESS_DENIED_CODES:
                denied.append(name)
                return None
            if code in ("ResourceNotFound", "ValidationException"):  # gone since the listing
                return None
            raise

    with ThreadPoolExecutor(max_workers=max(1, workers)) as pool:
        answers = list(pool.map(describe, names))
    described = {name: answer for name, answer in zip(names, answers, strict=True) if name not in denied}
    return other_runs_pools(summaries, described, takers, denied=denied, list_calls=calls)
