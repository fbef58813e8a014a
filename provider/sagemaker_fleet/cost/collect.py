"""Fetch the DescribeTrainingJob responses of one run (a thin I/O wrapper; the client is passed in).

ListTrainingJobs with ``NameContains = "{fleet}-"`` is paginated to the end (AWS, like moto, may return an empty
page with a NextToken because filters apply after the page cut), names are kept only when they are names the run
creates (every city, attempts 1..N, docs/formats.md, job names), and each is described — a few at a time, since SageMaker throttles
DescribeTrainingJob when hundreds are asked for at once (configure the client with adaptive retries).
"""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor
from typing import TYPE_CHECKING, Protocol, cast

from sagemaker_fleet.fleetspec.names import run_key_floor, run_name_contains
from sagemaker_fleet.jobs.paging import PagedListing, list_request

if TYPE_CHECKING:
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
