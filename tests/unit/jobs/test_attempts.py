"""The per-city decision table: attach, done, resubmit on spot, fall back, fail."""

from __future__ import annotations

from pathlib import Path

import pytest

from sagemaker_fleet.fleetspec.model import CitySpec, SpotSettings
from sagemaker_fleet.jobs.attempts import next_step

ON_DEMAND = CitySpec(
    name="oslo",
    train_s3_uri="s3://b/oslo/",
    role_arn="arn:aws:iam::111122223333:role/R",
    image_uri="img",
    instance_type="ml.m5.xlarge",
)
SPOT = CitySpec(
    name="lima",
    train_s3_uri="s3://b/lima/",
    role_arn="arn:aws:iam::111122223333:role/R",
    image_uri="img",
    instance_type="ml.m5.xlarge",
    spot=SpotSettings(max_wait_seconds=14400, max_attempts=2, fallback="on_demand"),
)
SPOT_FAIL = CitySpec(
    name="lima",
    train_s3_uri="s3://b/lima/",
    role_arn="arn:aws:iam::111122223333:role/R",
    image_uri="img",
    instance_type="ml.m5.xlarge",
    spot=SpotSettings(max_wait_seconds=14400, max_attempts=1, fallback="fail"),
)


def job(status: str, secondary: str = "", spot: bool = False, reason: str | None = None) -> dict[str, object]:
    return {
        "TrainingJobName": "x",
        "TrainingJobStatus": status,
        "SecondaryStatus": secondary,
        "EnableManagedSpotTraining": spot,
        "FailureReason": reason,
    }


MAX_WAIT = "MaxWaitTimeExceeded"


@pytest.mark.parametrize(
    ("city", "history", "force", "new_try", "expected"),
    [
        (ON_DEMAND, [], False, True, ("submit", 1, False)),
        (SPOT, [], False, True, ("submit", 1, True)),
        (ON_DEMAND, [job("InProgress", "Training")], False, True, ("attach", 1, False)),
        (ON_DEMAND, [job("Stopping", "Stopping")], False, True, ("attach", 1, False)),
        (ON_DEMAND, [job("Completed", "Completed")], False, True, ("done", 1, False)),
        (ON_DEMAND, [job("Completed", "Completed")], True, True, ("submit", 2, False)),
        (SPOT, [job("Stopped", MAX_WAIT, spot=True)], False, False, ("submit", 2, True)),
        (SPOT, [job("Stopped", MAX_WAIT, spot=True)] * 2, False, False, ("submit", 3, False)),
        (SPOT_FAIL, [job("Stopped", MAX_WAIT, spot=True)], False, False, ("fail", 1, False)),
        (
            ON_DEMAND,
            [job("Failed", "Failed", reason="AlgorithmError: boom")],
            False,
            False,
            ("fail", 1, False),
        ),
        (
            ON_DEMAND,
            [job("Failed", "Failed", reason="AlgorithmError: boom")],
            False,
            True,
            ("submit", 2, False),
        ),
        (SPOT, [job("Failed", "Failed", spot=True)], False, True, ("submit", 2, True)),
        (
            SPOT,
            [job("Stopped", MAX_WAIT, spot=True), job("Failed", "Failed", spot=True)],
            False,
            True,
            ("submit", 3, False),
        ),
    ],
)
def test_next_step(city, history, force, new_try, expected) -> None:
    step = next_step(city, history, force=force, new_try=new_try)
    assert (step.kind, step.attempt, step.spot) == expected


def test_failure_reason_is_reported() -> None:
    step = next_step(ON_DEMAND, [job("Failed", "Failed", reason="AlgorithmError: boom")], new_try=False)
    assert "AlgorithmError: boom" in step.reason


def test_a_city_past_the_submission_bound_fails_with_the_reason_instead_of_launching() -> None:
    from sagemaker_fleet.fleetspec.names import MAX_SUBMISSIONS

    failed = [job("Failed", "Failed", reason="AlgorithmError: boom")] * MAX_SUBMISSIONS
    step = next_step(ON_DEMAND, failed, new_try=True)  # an Airflow retry would make submission MAX + 1
    assert (step.kind, step.attempt) == ("fail", MAX_SUBMISSIONS)
    assert f"the most one run allows ({MAX_SUBMISSIONS})" in step.reason
    assert "AlgorithmError: boom" in step.reason
    assert next_step(ON_DEMAND, failed[:-1], new_try=True).kind == "submit"  # the last one allowed


def test_every_submission_a_city_may_make_is_found_by_name() -> None:
    """Dispatch, sensors and the cost report look up a run's jobs by name: each must look as far as a city may go
    (one bound: before, the report stopped at 21 while a city could make more and its cost went missing)."""
    from sagemaker_fleet.cost.report import RunJobIndex
    from sagemaker_fleet.fleetspec.load import load_fleet_spec
    from sagemaker_fleet.fleetspec.names import MAX_SUBMISSIONS, job_name
    from sagemaker_fleet.jobs.progress import run_job_names

    spec = load_fleet_spec(Path(__file__).resolve().parents[3] / "dags" / "fleets" / "demo.yaml")
    city = spec.cities[0].name
    last = job_name(spec.fleet, city, "20261129", MAX_SUBMISSIONS)
    assert run_job_names(spec, "20261129")[last] == (city, MAX_SUBMISSIONS)
    assert last in RunJobIndex.for_run(spec, "20261129")
    with pytest.raises(ValueError, match="past the 32 submissions"):
        job_name(spec.fleet, city, "20261129", MAX_SUBMISSIONS + 1)


def test_a_job_stopped_outside_airflow_is_final_and_one_stopped_by_airflow_is_retried() -> None:
    stopped = [job("Stopped", "Stopped")]
    outside = next_step(ON_DEMAND, stopped, new_try=True, stopped_outside=True)
    assert (outside.kind, outside.attempt) == ("fail", 1)
    assert "stopped outside Airflow" in outside.reason
    assert "force_retrain" in outside.reason
    forced = next_step(ON_DEMAND, stopped, force=True, new_try=True, stopped_outside=True)
    assert (forced.kind, forced.attempt, forced.forced) == ("submit", 2, True)
    assert (
        next_step(ON_DEMAND, stopped, new_try=True).kind == "submit"
    )  # stopped by Airflow (a user's action)
    assert next_step(ON_DEMAND, stopped, new_try=False).kind == "fail"  # the same try: the stop stands
    # a spot job that gave up waiting for capacity is Stopped too, and never "outside"
    spot = next_step(SPOT, [job("Stopped", MAX_WAIT, spot=True)], new_try=False, stopped_outside=True)
    assert (spot.kind, spot.spot) == ("submit", True)
