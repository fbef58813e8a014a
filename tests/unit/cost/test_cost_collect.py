"""Listing and describing one run's jobs through a fake SageMaker client."""

from __future__ import annotations

from typing import Any

from sagemaker_fleet.cost.collect import describe_run_jobs, list_run_job_names
from sagemaker_fleet.cost.report import RunJobIndex
from sagemaker_fleet.jobs.reader import ClientJobReader
from unit.cost.cost_describes import RUN_KEY, demo_spec, describe_job


class PagedListingClient:
    """Pages of 2 names, with NameContains applied after the cut (as AWS and moto do): pages may be empty."""

    def __init__(self, names: list[str]) -> None:
        self.names = names
        self.list_calls: list[dict[str, Any]] = []
        self.described: list[str] = []

    def list_training_jobs(self, **kwargs: Any) -> dict[str, Any]:
        self.list_calls.append(kwargs)
        start = int(kwargs.get("NextToken", "0"))
        page = self.names[start : start + 2]
        summaries = [{"TrainingJobName": n} for n in page if kwargs["NameContains"] in n]
        result: dict[str, Any] = {"TrainingJobSummaries": summaries}
        if start + 2 < len(self.names):
            result["NextToken"] = str(start + 2)
        return result

    def describe_training_job(self, **kwargs: Any) -> dict[str, Any]:
        self.described.append(kwargs["TrainingJobName"])
        return {**describe_job(kwargs["TrainingJobName"]), "ResponseMetadata": {"HTTPStatusCode": 200}}


NAMES = [
    "other-fleet-seoul-20261129",
    "unrelated-job",
    "demo-seoul-20261129",
    "demo-seoul-20261128",  # another run
    "demo-perth-20261129-r2",
    "demo-nowhere-20261129",  # not a city of the spec
    "demo-tokyo-20261129",
]


def test_lists_every_page_and_keeps_only_the_runs_names() -> None:
    client = PagedListingClient(NAMES)
    index = RunJobIndex.for_run(demo_spec(), RUN_KEY)
    names = list_run_job_names(ClientJobReader(client), index)
    assert names == ["demo-perth-20261129-r2", "demo-seoul-20261129", "demo-tokyo-20261129"]
    assert len(client.list_calls) == 4
    assert all(
        call["NameContains"] == "-20261129" for call in client.list_calls
    )  # this run, not the fleet's history


def test_describes_each_job_once_without_response_metadata() -> None:
    client = PagedListingClient(NAMES)
    describes = describe_run_jobs(
        ClientJobReader(client), RunJobIndex.for_run(demo_spec(), RUN_KEY), workers=3
    )
    assert [d["TrainingJobName"] for d in describes] == [
        "demo-perth-20261129-r2",
        "demo-seoul-20261129",
        "demo-tokyo-20261129",
    ]
    assert sorted(client.described) == sorted(d["TrainingJobName"] for d in describes)
    assert all("ResponseMetadata" not in d for d in describes)
