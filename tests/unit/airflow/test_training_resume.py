"""What FleetTrainingOperator describes when it resumes from its trigger: the event's description of the watched
attempt is used as is; only earlier attempts are described again; a missing or mismatched one falls back to a scan."""

from __future__ import annotations

import datetime as dt
import json
from pathlib import Path
from typing import Any

import pytest

from sagemaker_fleet.aws.describe import from_json_safe, to_json_safe
from sagemaker_fleet.operators.training import FleetTrainingOperator
from sagemaker_fleet.spec.names import job_name

QUICK = Path(__file__).resolve().parents[2] / "integration" / "airflow" / "fleets" / "quick.yaml"
T0 = dt.datetime(2026, 11, 29, 6, 0, tzinfo=dt.UTC)


def description(name: str, status: str = "Completed", secondary: str = "Completed", spot: bool = False) -> dict:
    return {
        "TrainingJobName": name,
        "TrainingJobStatus": status,
        "SecondaryStatus": secondary,
        "EnableManagedSpotTraining": spot,
        "CreationTime": T0,
        "TrainingStartTime": T0 + dt.timedelta(seconds=20),
        "SecondaryStatusTransitions": [
            {"Status": "Starting", "StartTime": T0, "EndTime": T0 + dt.timedelta(seconds=20)},
            {"Status": secondary, "StartTime": T0 + dt.timedelta(seconds=600)},
        ],
        "ResourceConfig": {"InstanceType": "ml.m5.xlarge", "InstanceCount": 1, "VolumeSizeInGB": 30},
        "BillableTimeInSeconds": 600,
    }


class RecordingHook:
    def __init__(self, jobs: dict[str, dict]) -> None:
        self.jobs = jobs
        self.described: list[str] = []

    def describe(self, name: str) -> dict[str, Any] | None:
        self.described.append(name)
        return self.jobs.get(name)


def operator(city: str, jobs: dict[str, dict]) -> tuple[FleetTrainingOperator, RecordingHook]:
    op = FleetTrainingOperator(task_id="train", spec_path=str(QUICK), city=city, run_key="20261129")
    hook = RecordingHook(jobs)
    op.__dict__["hook"] = hook  # the cached hook property
    return op, hook


def name(city: str, attempt: int = 1) -> str:
    return job_name("quick", city, "20261129", attempt)


def test_json_safe_round_trip_restores_every_timestamp() -> None:
    original = description("quick-seoul-20261129")
    safe = to_json_safe(original)
    json.dumps(safe)
    assert from_json_safe(json.loads(json.dumps(safe))) == original


def test_first_attempt_resumes_with_no_call() -> None:
    done = description(name("seoul"))
    op, hook = operator("seoul", {name("seoul"): done})
    event = {"status": "terminal", "job_name": name("seoul"), "description": to_json_safe(done)}
    result = op.execute_complete({}, event=event)
    assert hook.described == []
    assert result["job"]["billable_seconds"] == 600
    assert result["submissions"] == [name("seoul")]


def test_a_later_attempt_describes_only_the_earlier_ones() -> None:
    first = description(name("perth"), "Stopped", "MaxWaitTimeExceeded", spot=True)
    second = description(name("perth", 2), spot=True)
    op, hook = operator("perth", {name("perth"): first, name("perth", 2): second})
    event = {"status": "terminal", "job_name": name("perth", 2), "description": to_json_safe(second)}
    result = op.execute_complete({}, event=event)
    assert hook.described == [name("perth")]
    assert result["submissions"] == [name("perth"), name("perth", 2)]


@pytest.mark.parametrize(
    "event_extra",
    [{}, {"description": None}, {"description": "x"}],
    ids=["no description", "null", "not a mapping"],
)
def test_without_a_usable_event_it_scans_as_execute_does(event_extra: dict) -> None:
    done = description(name("seoul"))
    op, hook = operator("seoul", {name("seoul"): done})
    op.execute_complete({}, event={"status": "terminal", "job_name": name("seoul"), **event_extra})
    assert hook.described == [name("seoul"), name("seoul", 2)]


def test_a_description_of_another_job_is_not_trusted() -> None:
    done = description(name("seoul"))
    op, hook = operator("seoul", {name("seoul"): done})
    event = {"status": "terminal", "description": to_json_safe(description(name("tokyo")))}
    result = op.execute_complete({}, event=event)
    assert hook.described == [name("seoul"), name("seoul", 2)]
    assert result["job"]["job_name"] == name("seoul")
