"""The hook's sync and async listings page alike: the same requests, in the same order, for the same pages."""

from __future__ import annotations

import asyncio
import datetime as dt
from typing import Any

import pytest

from sagemaker_fleet.hooks.fleet import SageMakerFleetHook

PAGES = [
    {"TrainingJobSummaries": [{"TrainingJobName": "f-a-1"}], "NextToken": "t1"},
    {"TrainingJobSummaries": [], "NextToken": "t2"},  # empty, yet not the end: filters apply after the cut
    {"TrainingJobSummaries": [{"TrainingJobName": "f-b-1"}, {"TrainingJobName": "f-c-1"}]},
]


class Pages:
    """ListTrainingJobs answering ``PAGES`` in turn, recording each request."""

    def __init__(self) -> None:
        self.requests: list[dict[str, Any]] = []

    def list_training_jobs(self, **kwargs: Any) -> dict[str, Any]:
        self.requests.append(kwargs)
        return PAGES[len(self.requests) - 1]


class AsyncPages(Pages):
    async def list_training_jobs(self, **kwargs: Any) -> dict[str, Any]:  # type: ignore[override]
        return super().list_training_jobs(**kwargs)


def sync_listing(**filters: Any) -> tuple[list[str], list[dict[str, Any]]]:
    pages = Pages()

    class Hook(SageMakerFleetHook):
        client = pages  # type: ignore[assignment] - no connection: the fake client is all it uses

    names = [s["TrainingJobName"] for s in Hook.__new__(Hook).list_jobs("-1", **filters)]
    return names, pages.requests


def async_listing(**filters: Any) -> tuple[list[str], list[dict[str, Any]]]:
    pages = AsyncPages()

    async def drain() -> list[str]:
        hook = SageMakerFleetHook.__new__(SageMakerFleetHook)
        return [s["TrainingJobName"] async for s in hook.alist_jobs(pages, "-1", **filters)]

    return asyncio.run(drain()), pages.requests


@pytest.mark.parametrize(
    "filters",
    [
        {},
        {
            "creation_time_after": dt.datetime(2026, 11, 28, tzinfo=dt.UTC),
            "warm_pool_status_equals": "Available",
        },
    ],
    ids=["plain", "filtered"],
)
def test_the_sync_and_async_listings_make_the_same_requests(filters: dict[str, Any]) -> None:
    names, requests = sync_listing(**filters)
    assert names == ["f-a-1", "f-b-1", "f-c-1"]
    assert async_listing(**filters) == (names, requests)
    first = {"MaxResults": 100, "NameContains": "-1"}
    if filters:
        first |= {"CreationTimeAfter": filters["creation_time_after"], "WarmPoolStatusEquals": "Available"}
    assert requests == [first, {**first, "NextToken": "t1"}, {**first, "NextToken": "t2"}]
