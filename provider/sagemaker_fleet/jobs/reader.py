"""TrainingJobReader: the two reads of the account's training jobs that the Fleet view and the cost report make —
list the jobs (a name filter, a creation window, a status) and describe one (pure: the caller brings the client).

Airflow's side passes :class:`~sagemaker_fleet.hooks.fleet.SageMakerFleetHook`; a shell without Airflow (the
command line, the benchmarks, the tests) wraps a boto3 ``sagemaker`` client in :class:`ClientJobReader`, which is
also what the hook's own calls run, so the two read the account alike: every page of the one ListTrainingJobs
listing (:func:`~sagemaker_fleet.jobs.paging.job_listing`), and a job that does not exist described as None.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING, Any, Protocol, Unpack, cast

from sagemaker_fleet.jobs.errors import job_not_found
from sagemaker_fleet.jobs.paging import JobFilters, job_listing

if TYPE_CHECKING:
    from mypy_boto3_sagemaker import SageMakerClient
    from mypy_boto3_sagemaker.type_defs import DescribeTrainingJobResponseTypeDef, TrainingJobSummaryTypeDef


class TrainingJobReader(Protocol):
    """What reads the account's training jobs: :class:`ClientJobReader` and the hook fit."""

    def list_jobs(
        self, name_contains: str, **filters: Unpack[JobFilters]
    ) -> Iterator[TrainingJobSummaryTypeDef]:
        """ListTrainingJobs summaries, every page (``name_contains`` "": every job of the account)."""
        ...

    def describe(self, job_name: str) -> DescribeTrainingJobResponseTypeDef | None:
        """DescribeTrainingJob without its ResponseMetadata, or None when no job of that name exists."""
        ...


class ClientJobReader:
    """:class:`TrainingJobReader` over a boto3 ``sagemaker`` client (any object with its two calls)."""

    def __init__(self, client: SageMakerClient) -> None:
        self.client = client

    def list_jobs(
        self, name_contains: str, **filters: Unpack[JobFilters]
    ) -> Iterator[TrainingJobSummaryTypeDef]:
        listing = job_listing(name_contains, **filters)
        while listing.request is not None:
            yield from listing.take(self.client.list_training_jobs(**listing.request))

    def describe(self, job_name: str) -> DescribeTrainingJobResponseTypeDef | None:
        try:
            response = cast("dict[str, Any]", self.client.describe_training_job(TrainingJobName=job_name))
        except Exception as exc:
            if job_not_found(exc):
                return None
            raise
        response = dict(response)
        response.pop("ResponseMetadata", None)
        return cast("DescribeTrainingJobResponseTypeDef", response)  # the stubs' shape, less ResponseMetadata
