"""The per-city decision table: attach, done, resubmit on spot, fall back, fail."""

from __future__ import annotations

import pytest

from sagemaker_fleet.aws.attempts import next_step
from sagemaker_fleet.spec.model import CitySpec, SpotSettings

ON_DEMAND = CitySpec(name="oslo", train_s3_uri="s3://b/oslo/", role_arn="arn:aws:iam::111122223333:role/R",
                     image_uri="img", instance_type="ml.m5.xlarge")
SPOT = CitySpec(name="lima", train_s3_uri="s3://b/lima/", role_arn="arn:aws:iam::111122223333:role/R",
                image_uri="img", instance_type="ml.m5.xlarge",
                spot=SpotSettings(max_wait_seconds=14400, max_attempts=2, fallback="on_demand"))
SPOT_FAIL = CitySpec(name="lima", train_s3_uri="s3://b/lima/", role_arn="arn:aws:iam::111122223333:role/R",
                     image_uri="img", instance_type="ml.m5.xlarge",
                     spot=SpotSettings(max_wait_seconds=14400, max_attempts=1, fallback="fail"))


def job(status: str, secondary: str = "", spot: bool = False, reason: str | None = None) -> dict[str, object]:
    return {"TrainingJobName": "x", "TrainingJobStatus": status, "SecondaryStatus": secondary,
            "EnableManagedSpotTraining": spot, "FailureReason": reason}


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
        (ON_DEMAND, [job("Failed", "Failed", reason="AlgorithmError: boom")], False, False, ("fail", 1, False)),
        (ON_DEMAND, [job("Failed", "Failed", reason="AlgorithmError: boom")], False, True, ("submit", 2, False)),
        (SPOT, [job("Failed", "Failed", spot=True)], False, True, ("submit", 2, True)),
        (SPOT, [job("Stopped", MAX_WAIT, spot=True), job("Failed", "Failed", spot=True)], False, True,
         ("submit", 3, False)),
    ],
)
def test_next_step(city, history, force, new_try, expected) -> None:
    step = next_step(city, history, force=force, new_try=new_try)
    assert (step.kind, step.attempt, step.spot) == expected


def test_failure_reason_is_reported() -> None:
    step = next_step(ON_DEMAND, [job("Failed", "Failed", reason="AlgorithmError: boom")], new_try=False)
    assert "AlgorithmError: boom" in step.reason
