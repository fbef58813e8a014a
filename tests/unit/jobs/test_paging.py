"""Paged listings end: a repeated NextToken or a listing without end raises instead of looping forever; a run's
listing asks for that run's jobs only (name filter and creation window)."""

from __future__ import annotations

import asyncio
import datetime as dt
from typing import Any

import pytest

from sagemaker_fleet.cost.collect import list_run_job_names
from sagemaker_fleet.cost.report import RunJobIndex
from sagemaker_fleet.fleetspec.model import CitySpec, FleetSpec
from sagemaker_fleet.fleetspec.names import job_name, run_key_floor, run_name_contains
from sagemaker_fleet.hooks.fleet import SageMakerFleetHook
from sagemaker_fleet.jobs.paging import MAX_LIST_PAGES, ListingError, PagedListing, PageGuard
from sagemaker_fleet.jobs.reader import ClientJobReader


class LoopingClient:
    """ListTrainingJobs whose pages point back at an earlier token (an endpoint fault), or never end."""

    def __init__(self, *, repeat: bool) -> None:
        self.repeat = repeat
        self.calls: list[dict[str, Any]] = []

    def list_training_jobs(self, **kwargs: Any) -> dict[str, Any]:
        self.calls.append(kwargs)
        n = len(self.calls)
        token = "t1" if self.repeat else f"t{n}"
        return {"TrainingJobSummaries": [{"TrainingJobName": f"x-{n}"}], "NextToken": token}

    async def alist(self, **kwargs: Any) -> dict[str, Any]:
        return self.list_training_jobs(**kwargs)


def test_a_repeated_token_raises() -> None:
    guard = PageGuard("listing")
    assert guard.next({"NextToken": "a"}) == "a"
    assert guard.next({"NextToken": "b"}) == "b"
    with pytest.raises(ListingError, match="came back a second time"):
        guard.next({"NextToken": "a"})
    assert PageGuard("listing").next({}) is None


def test_a_listing_without_end_raises_at_the_page_cap() -> None:
    fake = LoopingClient(repeat=False)

    class Hook(SageMakerFleetHook):
        client = fake  # type: ignore[assignment] - no connection: the fake client is all it uses

    hook = Hook.__new__(Hook)
    with pytest.raises(ListingError, match=f"more than {MAX_LIST_PAGES} pages"):
        list(hook.list_jobs("-20261129"))
    assert len(fake.calls) == MAX_LIST_PAGES


@pytest.mark.parametrize("repeat", [True, False])
def test_the_async_listing_ends_too(repeat: bool) -> None:
    client = LoopingClient(repeat=repeat)

    class Async:
        list_training_jobs = client.alist

    async def drain() -> None:
        async for _ in SageMakerFleetHook.alist_jobs(None, Async(), "-20261129"):  # type: ignore[arg-type]
            pass

    with pytest.raises(ListingError):
        asyncio.run(drain())


SPEC = FleetSpec(
    fleet="f",
    region="us-east-1",
    output_s3_uri="s3://b/f",
    role_arn="arn:aws:iam::111122223333:role/R",
    image_uri="img",
    cities=(
        CitySpec(
            name="oslo",
            train_s3_uri="s3://b/oslo/",
            role_arn="arn:aws:iam::111122223333:role/R",
            image_uri="img",
            instance_type="ml.m5.xlarge",
        ),
    ),
)


def test_the_report_lists_one_runs_jobs_not_the_fleets_history() -> None:
    class Recording:
        def __init__(self) -> None:
            self.calls: list[dict[str, Any]] = []

        def list_training_jobs(self, **kwargs: Any) -> dict[str, Any]:
            self.calls.append(kwargs)
            return {
                "TrainingJobSummaries": [
                    {"TrainingJobName": job_name("f", "oslo", "20261129")},
                    {"TrainingJobName": "g-oslo-20261129"},
                ]
            }

    client = Recording()
    names = list_run_job_names(ClientJobReader(client), RunJobIndex.for_run(SPEC, "20261129"))  # type: ignore[arg-type]
    assert names == ["f-oslo-20261129"]
    (call,) = client.calls
    assert call["NameContains"] == "-20261129"
    assert call["CreationTimeAfter"] == dt.datetime(2026, 11, 28, tzinfo=dt.UTC)


def test_run_filters() -> None:
    assert run_name_contains("20261129") == "-20261129"
    assert run_key_floor("20261129") == dt.datetime(2026, 11, 28, tzinfo=dt.UTC)
    assert run_key_floor("20261129t063000") == dt.datetime(2026, 11, 28, tzinfo=dt.UTC)
    assert run_key_floor("m3fa772980") is None  # a manual run: its name filter is unique already
    assert run_key_floor("20261399") is None  # not a date
    for key in ("20261129", "m3fa772980"):
        assert run_name_contains(key) in job_name("f", "oslo", key, 3)
        assert run_name_contains(key) in job_name("f", "o" * 80, key, 3)  # shortened names keep it


def test_a_paged_listing_follows_the_tokens_and_keeps_the_first_requests_filters() -> None:
    listing = PagedListing("listing", {"MaxResults": 100, "NameContains": "-1"}, "Items")
    assert listing.request == {"MaxResults": 100, "NameContains": "-1"}
    assert listing.take({"Items": [1, 2], "NextToken": "a"}) == [1, 2]
    assert listing.request == {"MaxResults": 100, "NameContains": "-1", "NextToken": "a"}
    assert listing.take({"NextToken": "b"}) == []  # an empty page that goes on (filters apply after the cut)
    assert listing.request == {"MaxResults": 100, "NameContains": "-1", "NextToken": "b"}
    assert listing.take({"Items": [3]}) == [3]
    assert listing.request is None
    with pytest.raises(ListingError, match="after the listing ended"):
        listing.take({"Items": [4]})


def test_a_paged_listing_refuses_a_repeated_token() -> None:
    listing = PagedListing("listing", {}, "Items")
    listing.take({"NextToken": "a"})
    with pytest.raises(ListingError, match="came back a second time"):
        listing.take({"NextToken": "a"})
