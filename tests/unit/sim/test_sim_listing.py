"""ListTrainingJobs: filters, sorting, pagination — and StatusEquals applied after the MaxResults cut."""

from __future__ import annotations

from typing import Any

import pytest

from sagemaker_fleet.sim import SimApiError, SimEngine
from sim_fixtures import make_request, run_for, run_until_ended


def names(page: dict[str, Any]) -> list[str]:
    return [s["TrainingJobName"] for s in page["TrainingJobSummaries"]]


def create_spaced(engine: SimEngine, *job_names: str, gap: float = 10.0) -> None:
    for name in job_names:
        engine.create_training_job(make_request(name))
        run_for(engine, gap)


def test_newest_first_by_default_and_sortable(sim_engine: SimEngine) -> None:
    create_spaced(sim_engine, "b-job", "a-job", "c-job")

    assert names(sim_engine.list_training_jobs()) == ["c-job", "a-job", "b-job"]
    assert names(sim_engine.list_training_jobs({"SortOrder": "Ascending"})) == ["b-job", "a-job", "c-job"]
    assert names(sim_engine.list_training_jobs({"SortBy": "Name", "SortOrder": "Ascending"})) == [
        "a-job",
        "b-job",
        "c-job",
    ]
    assert names(sim_engine.list_training_jobs({"SortBy": "Name", "SortOrder": "Descending"}))[0] == "c-job"


def test_name_contains_is_case_insensitive(sim_engine: SimEngine) -> None:
    create_spaced(sim_engine, "fleet-seoul", "fleet-tokyo", "other-seoul")
    assert sorted(names(sim_engine.list_training_jobs({"NameContains": "SEOUL"}))) == [
        "fleet-seoul",
        "other-seoul",
    ]


def test_creation_time_bounds_are_exclusive(sim_engine: SimEngine) -> None:
    create_spaced(sim_engine, "one", "two", "three")
    created = {
        s["TrainingJobName"]: s["CreationTime"]
        for s in sim_engine.list_training_jobs()["TrainingJobSummaries"]
    }

    after = sim_engine.list_training_jobs({"CreationTimeAfter": created["one"]})
    assert sorted(names(after)) == ["three", "two"]
    between = sim_engine.list_training_jobs(
        {"CreationTimeAfter": created["one"], "CreationTimeBefore": created["three"]}
    )
    assert names(between) == ["two"]


def test_summaries_carry_status_and_warm_pool_status_but_no_billing(sim_engine: SimEngine) -> None:
    sim_engine.create_training_job(make_request("pooled", keep_alive=600))
    run_until_ended(sim_engine, "pooled")
    (summary,) = sim_engine.list_training_jobs()["TrainingJobSummaries"]

    assert summary["TrainingJobStatus"] == "Completed"
    assert summary["WarmPoolStatus"]["Status"] == "Available"
    assert "BillableTimeInSeconds" not in summary
    assert "TrainingEndTime" in summary


def test_warm_pool_status_equals_filters_before_the_cut(sim_engine: SimEngine) -> None:
    sim_engine.create_training_job(make_request("pooled", keep_alive=600))
    sim_engine.create_training_job(make_request("plain", RoleArn="arn:aws:iam::111122223333:role/B"))
    run_until_ended(sim_engine, "pooled")
    run_until_ended(sim_engine, "plain")

    page = sim_engine.list_training_jobs({"WarmPoolStatusEquals": "Available", "MaxResults": 1})
    assert names(page) == ["pooled"]
    assert "NextToken" not in page


def test_status_equals_is_applied_after_the_max_results_cut(sim_engine: SimEngine) -> None:
    create_spaced(sim_engine, "old-1", "old-2", gap=1)
    run_until_ended(sim_engine, "old-1")
    run_until_ended(sim_engine, "old-2")
    create_spaced(sim_engine, "new-1", "new-2", gap=1)  # still InProgress, and newest

    first = sim_engine.list_training_jobs({"StatusEquals": "Completed", "MaxResults": 2})
    assert names(first) == []  # the 2 newest are InProgress; filtered after the cut
    assert "NextToken" in first
    second = sim_engine.list_training_jobs(
        {"StatusEquals": "Completed", "MaxResults": 2, "NextToken": first["NextToken"]}
    )
    assert sorted(names(second)) == ["old-1", "old-2"]


def test_pagination_visits_every_job_once(sim_engine: SimEngine) -> None:
    create_spaced(sim_engine, *(f"job-{i:03d}" for i in range(25)), gap=1)
    seen: list[str] = []
    request: dict[str, Any] = {"MaxResults": 10}
    pages = 0
    while True:
        page = sim_engine.list_training_jobs(request)
        seen.extend(names(page))
        pages += 1
        if "NextToken" not in page:
            break
        request = {"MaxResults": 10, "NextToken": page["NextToken"]}
    assert pages == 3
    assert sorted(seen) == [f"job-{i:03d}" for i in range(25)]


@pytest.mark.parametrize(
    "request_",
    [
        {"MaxResults": 101},
        {"MaxResults": 0},
        {"SortBy": "Size"},
        {"StatusEquals": "Running"},
        {"WarmPoolStatusEquals": "Idle"},
        {"CreationTimeAfter": "yesterday"},
    ],
)
def test_invalid_list_requests_are_validation_errors(sim_engine: SimEngine, request_: dict[str, Any]) -> None:
    with pytest.raises(SimApiError) as caught:
        sim_engine.list_training_jobs(request_)
    assert caught.value.code == "ValidationException"
    assert "failed to satisfy constraint" in caught.value.message


def test_a_token_only_works_with_the_query_that_returned_it(sim_engine: SimEngine) -> None:
    create_spaced(sim_engine, "a", "b", "c", gap=1)
    token = sim_engine.list_training_jobs({"MaxResults": 1})["NextToken"]
    with pytest.raises(SimApiError, match="pagination token"):
        sim_engine.list_training_jobs({"MaxResults": 1, "NextToken": token, "NameContains": "a"})
    with pytest.raises(SimApiError, match="pagination token"):
        sim_engine.list_training_jobs({"NextToken": "garbage!"})
