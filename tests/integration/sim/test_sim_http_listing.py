"""ListTrainingJobs over HTTP: filters, sorting, MaxResults ≤ 100, NextToken, the boto3 paginator."""

from __future__ import annotations

import datetime as dt
from typing import TYPE_CHECKING

import pytest
from botocore.exceptions import ClientError, ParamValidationError

from sim_fixtures import advance_until, make_request

if TYPE_CHECKING:
    from sagemaker_fleet.sim.client import SimClient

pytestmark = pytest.mark.integration


def test_filters_and_sorting(sim: SimClient) -> None:
    sm = sim.boto3_client("sagemaker")
    for name in ("fleet-b", "fleet-a", "other-c"):
        sm.create_training_job(**make_request(name))
        sim.advance(60)
    created = {
        s["TrainingJobName"]: s["CreationTime"] for s in sm.list_training_jobs()["TrainingJobSummaries"]
    }

    def listed(**kwargs: object) -> list[str]:
        return [s["TrainingJobName"] for s in sm.list_training_jobs(**kwargs)["TrainingJobSummaries"]]

    assert listed() == ["other-c", "fleet-a", "fleet-b"]  # newest first
    assert listed(NameContains="fleet") == ["fleet-a", "fleet-b"]
    assert listed(SortBy="Name", SortOrder="Ascending") == ["fleet-a", "fleet-b", "other-c"]
    # the next whole second after fleet-b's creation, still before fleet-a's (60 s later): botocore 1.39 and 1.42
    # (beside MWAA's Airflow 3.0.6 and 3.2.1) send whole seconds, 1.43 the milliseconds too
    cut = created["fleet-b"].replace(microsecond=0) + dt.timedelta(seconds=1)
    assert listed(CreationTimeAfter=cut) == ["other-c", "fleet-a"]
    assert listed(CreationTimeBefore=created["other-c"], SortOrder="Ascending") == ["fleet-b", "fleet-a"]
    assert listed(LastModifiedTimeAfter=created["other-c"] + dt.timedelta(days=1)) == []


def test_status_equals_after_the_cut_and_pagination(sim: SimClient) -> None:
    sm = sim.boto3_client("sagemaker")
    sim.set_work(300, job="old")
    sm.create_training_job(**make_request("old"))
    advance_until(sim, sm, "old", {"Completed"})
    for i in range(4):
        sm.create_training_job(**make_request(f"new-{i}"))

    first = sm.list_training_jobs(MaxResults=2, StatusEquals="Completed")
    assert (
        first["TrainingJobSummaries"] == []
    )  # newest two are InProgress; StatusEquals applies after the cut
    pages = list(
        sm.get_paginator("list_training_jobs").paginate(
            StatusEquals="Completed", PaginationConfig={"PageSize": 2}
        )
    )
    found = [s["TrainingJobName"] for page in pages for s in page["TrainingJobSummaries"]]
    assert found == ["old"]
    assert len(pages) == 3


def test_max_results_is_at_most_100(sim: SimClient) -> None:
    sm = sim.boto3_client("sagemaker")
    with pytest.raises(ClientError) as caught:
        sm.list_training_jobs(MaxResults=101)  # botocore checks no maximum: the endpoint does
    assert caught.value.response["Error"]["Code"] == "ValidationException"
    assert "Value '101' at 'maxResults'" in caught.value.response["Error"]["Message"]
    assert "less than or equal to 100" in caught.value.response["Error"]["Message"]
    with pytest.raises(ParamValidationError):
        sm.list_training_jobs(MaxResults=0)  # the minimum, botocore checks itself


def test_a_hundred_and_fifty_jobs_come_back_in_two_pages(sim: SimClient) -> None:
    sm = sim.boto3_client("sagemaker")
    for i in range(150):
        sm.create_training_job(**make_request(f"job-{i:03d}"))
    first = sm.list_training_jobs(MaxResults=100)
    second = sm.list_training_jobs(MaxResults=100, NextToken=first["NextToken"])
    names = [s["TrainingJobName"] for page in (first, second) for s in page["TrainingJobSummaries"]]
    assert len(first["TrainingJobSummaries"]) == 100
    assert "NextToken" not in second
    assert sorted(names) == [f"job-{i:03d}" for i in range(150)]
