"""Managed spot training (docs/sagemaker-behaviour.md, managed spot training): interruptions, MaxWait, capacity waits, checkpoints, billing."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import pytest

from sagemaker_fleet.sim import SimApiError, SimEngine, VirtualClock
from sim_fixtures import TEST_CONFIG, make_request, run_for, run_until_ended, run_until_status

CKPT = "s3://acme-ml/fleets/test/checkpoints/seoul/r1/"


def engine(**spot_changes: object) -> SimEngine:
    config = replace(TEST_CONFIG, spot=replace(TEST_CONFIG.spot, **spot_changes))  # type: ignore[arg-type]
    return SimEngine(config, VirtualClock())


def statuses(described: dict[str, object]) -> list[str]:
    return [t["Status"] for t in described["SecondaryStatusTransitions"]]  # type: ignore[attr-defined]


def test_an_interrupted_job_restarts_and_loses_the_work_since_its_last_checkpoint() -> None:
    sim = engine()
    sim.configure(work=sim.config.work.with_job_override("spot", 1800))
    sim.create_training_job(make_request("spot", spot=True, checkpoint_uri=CKPT))
    run_until_status(sim, "spot", "Training")
    run_for(sim, 700)  # checkpoints at 300 and 600 s of training

    sim.interrupt("spot")
    assert sim.describe_training_job("spot")["SecondaryStatus"] == "Interrupted"
    done = run_until_ended(sim, "spot")

    assert done["TrainingJobStatus"] == "Completed"
    assert statuses(done) == [
        "Starting",
        "Downloading",
        "Training",
        "Interrupted",
        "Starting",
        "Downloading",
        "Training",
        "Uploading",
        "Completed",
    ]
    trainings = [t for t in done["SecondaryStatusTransitions"] if t["Status"] == "Training"]
    assert trainings[1]["EndTime"] - trainings[1]["StartTime"] == pytest.approx(1800 - 600, abs=0.01)
    facts = sim.facts("spot")
    assert (facts.attempts, facts.interruptions) == (2, 1)

    ran = sum(
        t["EndTime"] - t["StartTime"]
        for t in done["SecondaryStatusTransitions"]
        if t["Status"] in ("Downloading", "Training", "Uploading")
    )
    assert done["TrainingTimeInSeconds"] == pytest.approx(ran - 100, abs=1)  # 100 s lost since the checkpoint
    savings = 1 - done["BillableTimeInSeconds"] / done["TrainingTimeInSeconds"]
    assert 0.64 <= savings <= 0.76  # seeded discount around 70 %


def test_interruptions_are_seeded_and_reproducible() -> None:
    def run() -> dict[str, object]:
        sim = engine(interruptions_per_hour=4.0, capacity_wait_mean_seconds=30.0)
        sim.configure(work=sim.config.work.with_job_override("spot", 3600))
        sim.create_training_job(
            make_request("spot", spot=True, max_runtime=7200, max_wait=86400, checkpoint_uri=CKPT)
        )
        return run_until_ended(sim, "spot")

    first, second = run(), run()
    assert first == second
    assert statuses(first).count("Interrupted") >= 1
    assert first["TrainingJobStatus"] == "Completed"


def test_capacity_never_obtained_ends_in_max_wait_time_exceeded() -> None:
    sim = engine(no_capacity_types=frozenset({"ml.m5.xlarge"}))
    sim.create_training_job(make_request("spot", spot=True, max_runtime=3600, max_wait=3600))
    run_for(sim, 3599)
    assert sim.describe_training_job("spot")["SecondaryStatus"] == "Starting"

    done = run_until_ended(sim, "spot")

    assert (done["TrainingJobStatus"], done["SecondaryStatus"]) == ("Stopped", "MaxWaitTimeExceeded")
    assert statuses(done) == ["Starting", "Stopping", "MaxWaitTimeExceeded"]
    assert done["TrainingTimeInSeconds"] == 0
    assert done["BillableTimeInSeconds"] == 0
    assert "TrainingStartTime" not in done


def test_max_wait_counts_interruptions_and_waits() -> None:
    sim = engine()
    sim.configure(work=sim.config.work.with_job_override("spot", 3000))
    sim.create_training_job(make_request("spot", spot=True, max_runtime=3500, max_wait=3500))
    run_until_status(sim, "spot", "Training")
    run_for(sim, 1000)
    sim.interrupt("spot")
    done = run_until_ended(sim, "spot")

    assert (done["TrainingJobStatus"], done["SecondaryStatus"]) == ("Stopped", "MaxWaitTimeExceeded")
    assert "Interrupted" in statuses(done)
    assert done["SecondaryStatusTransitions"][-2]["Status"] == "Stopping"
    assert done["SecondaryStatusTransitions"][-2]["StartTime"] == pytest.approx(
        done["CreationTime"] + 3500, abs=0.01
    )


def test_waiting_for_capacity_is_neither_training_time_nor_billed() -> None:
    def run(wait: float) -> dict[str, object]:
        sim = engine(capacity_wait_mean_seconds=wait)
        sim.create_training_job(make_request("spot", spot=True))
        return run_until_ended(sim, "spot")

    waited, prompt = run(600.0), run(0.0)

    def starting(described: dict[str, Any]) -> float:
        return float(described["TrainingStartTime"] - described["CreationTime"])

    assert starting(waited) > starting(prompt)  # the same draws but the capacity wait
    assert waited["TrainingTimeInSeconds"] == prompt["TrainingTimeInSeconds"]
    assert waited["BillableTimeInSeconds"] == prompt["BillableTimeInSeconds"]


def test_a_new_job_with_the_same_checkpoint_prefix_resumes(sim_engine: SimEngine) -> None:
    sim_engine.configure(work=sim_engine.config.work.with_city_override("seoul", 1800))
    sim_engine.create_training_job(make_request("city-seoul-r1", city="seoul", checkpoint_uri=CKPT))
    run_until_status(sim_engine, "city-seoul-r1", "Training")
    run_for(sim_engine, 1000)  # checkpoints at 300, 600, 900 s
    sim_engine.stop_training_job("city-seoul-r1")
    run_until_ended(sim_engine, "city-seoul-r1")

    sim_engine.create_training_job(
        make_request("city-seoul-r2", city="seoul", checkpoint_uri=CKPT.rstrip("/"))
    )
    done = run_until_ended(sim_engine, "city-seoul-r2")

    training = next(t for t in done["SecondaryStatusTransitions"] if t["Status"] == "Training")
    assert training["EndTime"] - training["StartTime"] == pytest.approx(1800 - 900, abs=0.01)
    assert sim_engine.facts("city-seoul-r2").work_source == "city-override"


def test_without_checkpoints_an_interruption_loses_the_whole_attempt() -> None:
    sim = engine()
    sim.configure(work=sim.config.work.with_job_override("spot", 1000))
    sim.create_training_job(make_request("spot", spot=True))
    run_until_status(sim, "spot", "Training")
    run_for(sim, 500)
    sim.interrupt("spot")
    done = run_until_ended(sim, "spot")

    trainings = [t for t in done["SecondaryStatusTransitions"] if t["Status"] == "Training"]
    assert trainings[1]["EndTime"] - trainings[1]["StartTime"] == pytest.approx(1000, abs=0.01)


def test_only_running_spot_jobs_can_be_interrupted(sim_engine: SimEngine) -> None:
    sim_engine.create_training_job(make_request("od"))
    with pytest.raises(SimApiError, match="on-demand"):
        sim_engine.interrupt("od")
