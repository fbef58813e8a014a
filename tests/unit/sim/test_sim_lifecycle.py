"""Statuses, transitions, timestamps and billing of on-demand jobs (docs/sagemaker-behaviour.md, spot life cycle and billing fields), on a VirtualClock."""

from __future__ import annotations

import pytest

from sagemaker_fleet.sim import JobEvent, SimApiError, SimConfig, SimEngine, VirtualClock, WallClock
from sim_fixtures import TEST_CONFIG, make_request, run_for, run_until_ended, run_until_status

CHAIN = ["Starting", "Downloading", "Training", "Uploading", "Completed"]


def test_a_job_goes_through_the_secondary_status_chain(sim_engine: SimEngine) -> None:
    sim_engine.create_training_job(make_request("job-a"))
    first = sim_engine.describe_training_job("job-a")
    assert (first["TrainingJobStatus"], first["SecondaryStatus"]) == ("InProgress", "Starting")
    assert "TrainingStartTime" not in first
    assert "BillableTimeInSeconds" not in first

    done = run_until_ended(sim_engine, "job-a")

    assert done["TrainingJobStatus"] == "Completed"
    assert done["SecondaryStatus"] == "Completed"
    transitions = done["SecondaryStatusTransitions"]
    assert [t["Status"] for t in transitions] == CHAIN
    for earlier, later in zip(transitions, transitions[1:], strict=False):
        assert earlier["EndTime"] == later["StartTime"]
        assert earlier["StartTime"] <= earlier["EndTime"]
    assert all(t["StatusMessage"] for t in transitions)


def test_billing_covers_downloading_training_and_uploading(sim_engine: SimEngine) -> None:
    sim_engine.create_training_job(make_request("job-a"))
    done = run_until_ended(sim_engine, "job-a")

    by_status = {t["Status"]: t for t in done["SecondaryStatusTransitions"]}
    assert done["TrainingStartTime"] == by_status["Downloading"]["StartTime"]
    assert done["TrainingEndTime"] == by_status["Completed"]["StartTime"]
    ran = done["TrainingEndTime"] - done["TrainingStartTime"]
    assert done["TrainingTimeInSeconds"] == pytest.approx(ran, abs=1)
    assert done["BillableTimeInSeconds"] == done["TrainingTimeInSeconds"]
    assert done["ModelArtifacts"]["S3ModelArtifacts"].endswith("/job-a/output/model.tar.gz")


def test_work_override_sets_the_training_duration_exactly(sim_engine: SimEngine) -> None:
    sim_engine.configure(work=sim_engine.config.work.with_job_override("job-a", 1234))
    sim_engine.create_training_job(make_request("job-a"))
    done = run_until_ended(sim_engine, "job-a")

    training = next(t for t in done["SecondaryStatusTransitions"] if t["Status"] == "Training")
    assert training["EndTime"] - training["StartTime"] == pytest.approx(1234, abs=0.01)


def test_startup_is_the_time_from_creation_to_training(sim_engine: SimEngine) -> None:
    sim_engine.create_training_job(make_request("job-a"))
    done = run_until_ended(sim_engine, "job-a")

    training = next(t for t in done["SecondaryStatusTransitions"] if t["Status"] == "Training")
    facts = sim_engine.facts("job-a")
    assert facts.start == "cold"
    assert facts.startup_seconds == pytest.approx(training["StartTime"] - done["CreationTime"], abs=0.01)


def test_listeners_see_every_status_change_in_order(sim_engine: SimEngine) -> None:
    events: list[JobEvent] = []
    sim_engine.subscribe(events.append)
    sim_engine.create_training_job(make_request("job-a"))
    run_until_ended(sim_engine, "job-a")

    assert [e.secondary_status for e in events] == CHAIN
    assert events[-1].status == "Completed"
    assert events[-1].model_artifacts is not None
    assert [e.time for e in events] == sorted(e.time for e in events)


def test_stop_goes_through_stopping_to_stopped(sim_engine: SimEngine) -> None:
    sim_engine.create_training_job(make_request("job-a"))
    run_until_status(sim_engine, "job-a", "Training")
    run_for(sim_engine, 60)

    sim_engine.stop_training_job("job-a")
    stopping = sim_engine.describe_training_job("job-a")
    assert (stopping["TrainingJobStatus"], stopping["SecondaryStatus"]) == ("Stopping", "Stopping")

    done = run_until_ended(sim_engine, "job-a")
    assert (done["TrainingJobStatus"], done["SecondaryStatus"]) == ("Stopped", "Stopped")
    assert [t["Status"] for t in done["SecondaryStatusTransitions"]][-3:] == [
        "Training",
        "Stopping",
        "Stopped",
    ]
    assert done["BillableTimeInSeconds"] == pytest.approx(
        done["TrainingEndTime"] - done["TrainingStartTime"], abs=1
    )


def test_stopping_twice_is_accepted_and_stopping_an_ended_job_is_not(sim_engine: SimEngine) -> None:
    sim_engine.create_training_job(make_request("job-a"))
    sim_engine.stop_training_job("job-a")
    sim_engine.stop_training_job("job-a")  # still Stopping: accepted
    run_until_ended(sim_engine, "job-a")

    with pytest.raises(SimApiError) as caught:
        sim_engine.stop_training_job("job-a")
    assert caught.value.code == "ValidationException"
    assert "status Stopped" in caught.value.message


def test_a_job_stopped_before_launch_is_not_billed(sim_engine: SimEngine) -> None:
    sim_engine.create_training_job(make_request("job-a", keep_alive=600))
    sim_engine.stop_training_job("job-a")
    done = run_until_ended(sim_engine, "job-a")

    assert done["TrainingJobStatus"] == "Stopped"
    assert done["BillableTimeInSeconds"] == 0
    assert "TrainingStartTime" not in done
    assert done["WarmPoolStatus"]["Status"] == "Terminated"  # the cluster never launched: no pool


def test_admin_failure_sets_failed_and_failure_reason(sim_engine: SimEngine) -> None:
    sim_engine.create_training_job(make_request("job-a"))
    run_until_status(sim_engine, "job-a", "Training")
    sim_engine.fail("job-a", "AlgorithmError: out of memory")
    done = sim_engine.describe_training_job("job-a")

    assert (done["TrainingJobStatus"], done["SecondaryStatus"]) == ("Failed", "Failed")
    assert done["FailureReason"] == "AlgorithmError: out of memory"
    assert done["SecondaryStatusTransitions"][-1]["StatusMessage"] == "AlgorithmError: out of memory"
    assert done["ModelArtifacts"]["S3ModelArtifacts"] == ""


def test_seeded_failures_fail_with_an_algorithm_error() -> None:
    engine = SimEngine(SimConfig(seed=1, failure_probability=1.0), VirtualClock())
    engine.create_training_job(make_request("job-a"))
    done = run_until_ended(engine, "job-a")

    assert done["TrainingJobStatus"] == "Failed"
    assert done["FailureReason"].startswith("AlgorithmError")


def test_max_runtime_stops_the_job(sim_engine: SimEngine) -> None:
    sim_engine.configure(work=sim_engine.config.work.with_job_override("job-a", 5000))
    sim_engine.create_training_job(make_request("job-a", max_runtime=1800))
    done = run_until_ended(sim_engine, "job-a")

    assert (done["TrainingJobStatus"], done["SecondaryStatus"]) == ("Stopped", "MaxRuntimeExceeded")
    stopping = next(t for t in done["SecondaryStatusTransitions"] if t["Status"] == "Stopping")
    assert stopping["StartTime"] - done["TrainingStartTime"] == pytest.approx(1800, abs=0.01)


def test_duplicate_names_are_rejected_with_resource_in_use(sim_engine: SimEngine) -> None:
    arn = sim_engine.create_training_job(make_request("job-a"))["TrainingJobArn"]
    run_until_ended(sim_engine, "job-a")

    with pytest.raises(SimApiError) as caught:
        sim_engine.create_training_job(make_request("job-a"))
    assert caught.value.code == "ResourceInUse"
    assert "must be unique" in caught.value.message
    assert arn in caught.value.message


def test_unknown_jobs_answer_like_aws(sim_engine: SimEngine) -> None:
    with pytest.raises(SimApiError) as described:
        sim_engine.describe_training_job("nope")
    assert (described.value.code, described.value.message) == (
        "ValidationException",
        "Requested resource not found.",
    )
    with pytest.raises(SimApiError) as stopped:
        sim_engine.stop_training_job("nope")
    assert stopped.value.code == "ResourceNotFound"


def test_describe_echoes_the_request(sim_engine: SimEngine) -> None:
    request = make_request("job-a", keep_alive=300, HyperParameters={"epochs": "3"}, Environment={"A": "b"})
    sim_engine.create_training_job(request)
    described = sim_engine.describe_training_job("job-a")

    for key in (
        "AlgorithmSpecification",
        "RoleArn",
        "InputDataConfig",
        "OutputDataConfig",
        "HyperParameters",
    ):
        assert described[key] == request[key]
    assert described["ResourceConfig"]["KeepAlivePeriodInSeconds"] == 300
    assert described["StoppingCondition"] == {"MaxRuntimeInSeconds": 7200}
    assert described["EnableManagedSpotTraining"] is False
    assert described["TrainingJobArn"].endswith(":training-job/job-a")


def test_every_call_is_counted_per_operation(sim_engine: SimEngine) -> None:
    sim_engine.create_training_job(make_request("job-a"))
    sim_engine.describe_training_job("job-a")
    sim_engine.list_training_jobs()
    with pytest.raises(SimApiError):
        sim_engine.describe_training_job("nope")

    calls = sim_engine.api_calls()
    assert calls["calls"] == {"CreateTrainingJob": 1, "DescribeTrainingJob": 2, "ListTrainingJobs": 1}
    assert calls["errors"] == {"DescribeTrainingJob:ValidationException": 1}


def test_throttling_rejects_the_configured_share_of_calls() -> None:
    engine = SimEngine(TEST_CONFIG, VirtualClock())
    engine.configure(throttle_share=1.0, throttle_operations=frozenset({"DescribeTrainingJob"}))
    engine.create_training_job(make_request("job-a"))  # not a throttled operation

    with pytest.raises(SimApiError) as caught:
        engine.describe_training_job("job-a")
    assert (caught.value.code, caught.value.message, caught.value.http_status) == (
        "ThrottlingException",
        "Rate exceeded",
        400,
    )
    assert engine.api_calls()["throttled"] == {"DescribeTrainingJob": 1}


def test_run_until_needs_a_virtual_clock() -> None:
    engine = SimEngine(TEST_CONFIG, WallClock())
    with pytest.raises(TypeError, match="VirtualClock"):
        engine.run_until(engine.now() + 10)


def test_reset_forgets_jobs_but_keeps_listeners(sim_engine: SimEngine) -> None:
    events: list[JobEvent] = []
    sim_engine.subscribe(events.append)
    sim_engine.create_training_job(make_request("job-a"))
    sim_engine.reset()

    assert sim_engine.list_training_jobs()["TrainingJobSummaries"] == []
    sim_engine.create_training_job(make_request("job-a"))  # the name is free again
    assert len(events) == 2


def test_nothing_is_scheduled_once_every_job_has_ended(sim_engine: SimEngine) -> None:
    sim_engine.create_training_job(make_request("job-a", max_runtime=86400))
    done = run_until_ended(sim_engine, "job-a")

    assert sim_engine.next_event_time() is None  # the cancelled MaxRuntime deadline does not count
    assert sim_engine.now() == pytest.approx(done["TrainingEndTime"], abs=0.01)
