"""Following paged AWS listings safely (pure): a listing that does not end is an endpoint fault, not data.

:func:`job_listing` is the one ListTrainingJobs listing (its page size, its filters): the hook's, the run's sweeps'
in the triggerer and in ``simulate`` alike.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypedDict, Unpack

from sagemaker_fleet.errors import SageMakerFleetError

if TYPE_CHECKING:
    from mypy_boto3_sagemaker.literals import TrainingJobStatusType, WarmPoolResourceStatusType
    from mypy_boto3_sagemaker.type_defs import ListTrainingJobsRequestTypeDef

__all__ = [
    "CREATION_MARGIN",
    "MAX_LIST_PAGES",
    "PAGE_SIZE",
    "JobFilters",
    "ListingError",
    "PageGuard",
    "PagedListing",
    "creation_lookback",
    "job_listing",
    "list_request",
]

#: Pages one listing may take (100 summaries each): a listing past it, or one whose NextToken repeats, is an
#: endpoint fault, not a run's jobs, and raises :class:`ListingError` instead of looping forever.
MAX_LIST_PAGES = 2000
#: Summaries per ListTrainingJobs page: the most the API returns.
PAGE_SIZE = 100
#: A listing by creation time starts this long before the moment it looks from (clock skew between hosts, listing
#: lag): the run's sweeps before the oldest unsettled job's creation, the registry's before a job's end.
CREATION_MARGIN = dt.timedelta(minutes=5)


class ListingError(SageMakerFleetError, RuntimeError):
    """A paged listing did not end: its NextToken repeated, or it went past :data:`MAX_LIST_PAGES` pages."""


class PageGuard:
    """Follows a listing's NextTokens; :meth:`next` returns the token of the next page, None at the end.
    ``token_key`` names the page's token where the API calls it otherwise (S3's ``NextContinuationToken``)."""

    def __init__(self, what: str, token_key: str = "NextToken") -> None:
        self.what = what
        self.token_key = token_key
        self.seen: set[str] = set()

    def next(self, page: Mapping[str, Any]) -> str | None:
        token = page.get(self.token_key)
        if not token:
            return None
        if token in self.seen:
            raise ListingError(f"{self.what}: {self.token_key} {str(token)[:40]!r} came back a second time")
        if len(self.seen) + 1 >= MAX_LIST_PAGES:
            raise ListingError(f"{self.what}: more than {MAX_LIST_PAGES} pages; narrow the listing")
        self.seen.add(str(token))
        return str(token)


class PagedListing:
    """The paging rule of one listing, for a sync and an async loop alike (the caller makes the calls):

        listing = PagedListing("ListTrainingJobs", {"MaxResults": 100}, "TrainingJobSummaries")
        while listing.request is not None:
            yield from listing.take(client.list_training_jobs(**listing.request))

    :attr:`request` is the next call's arguments (the first ones plus the page's ``NextToken``), None once the
    listing has ended; a NextToken that repeats, or more than :data:`MAX_LIST_PAGES` pages, raise
    :class:`ListingError` (:class:`PageGuard`).
    """

    def __init__(self, what: str, request: Mapping[str, Any], items: str) -> None:
        self.request: dict[str, Any] | None = dict(request)
        self.items = items
        self.guard = PageGuard(what)

    def take(self, page: Mapping[str, Any]) -> list[Any]:
        """The items of ``page``, the answer to :attr:`request`; moves :attr:`request` on to the next page."""
        if self.request is None:
            raise ListingError(f"{self.guard.what}: a page came after the listing ended")
        token = self.guard.next(page)
        self.request = {**self.request, "NextToken": token} if token else None
        return list(page.get(self.items) or ())


class JobFilters(TypedDict, total=False):
    """The filters of a training-job listing besides the name; one left out (or None) filters nothing."""

    creation_time_after: dt.datetime | None
    warm_pool_status_equals: WarmPoolResourceStatusType | None
    status_equals: TrainingJobStatusType | None


def list_request(name_contains: str = "", **filters: Unpack[JobFilters]) -> ListTrainingJobsRequestTypeDef:
    """ListTrainingJobs arguments for one sweep (the largest page, only the filters asked for). A sweep asks for no
    StatusEquals: SageMaker applies it after cutting the page, so it would not make a listing any shorter (the
    account's census does, for the shorter answer)."""
    kwargs: ListTrainingJobsRequestTypeDef = {"MaxResults": PAGE_SIZE}
    if name_contains:
        kwargs["NameContains"] = name_contains
    if (after := filters.get("creation_time_after")) is not None:
        kwargs["CreationTimeAfter"] = after
    if warm_pool_status := filters.get("warm_pool_status_equals"):
        kwargs["WarmPoolStatusEquals"] = warm_pool_status
    if status := filters.get("status_equals"):
        kwargs["StatusEquals"] = status
    return kwargs


def job_listing(name_contains: str, **filters: Unpack[JobFilters]) -> PagedListing:
    """The paging of one ListTrainingJobs listing (the hook's ``list_jobs`` and ``alist_jobs``, ``simulate``'s)."""
    return PagedListing(
        f"ListTrainingJobs({name_contains!r})", list_request(name_contains, **filters), "TrainingJobSummaries"
    )


def creation_lookback(max_runtime_seconds: int, keep_alive_seconds: int = 0) -> dt.timedelta:
    """How long before a moment a job was created, at the earliest, that may still run then (for up to
    ``max_runtime_seconds``) or still keep its warm pool (``keep_alive_seconds`` after it ended): how far back a
    listing's CreationTimeAfter reaches for such jobs. Start-up, which MaxRuntimeInSeconds does not count, is left
    out: minutes against a window of days."""
    return dt.timedelta(seconds=max_runtime_seconds + keep_alive_seconds)


def as_datetime(value: object) -> dt.datetime | None:
    """A CreationTime as boto3 gives it (datetime) or as the simulator's engine does (epoch seconds)."""
    if isinstance(value, dt.datetime):
        return value
    if isinstance(value, int | float):
        return dt.datetime.fromtimestamp(float(value), dt.UTC)
    return None
