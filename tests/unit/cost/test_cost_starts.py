"""Cold or warm detection: explicit evidence first (ReusedByJob, spot), then timing against the start-up model."""

from __future__ import annotations

import pytest

from sagemaker_fleet.jobs.record import parse_training_job
from sagemaker_fleet.jobs.starts import measure_startup, observe_start, warm_threshold_seconds
from unit.cost.cost_describes import describe_job


def observe(describe: dict[str, object], reused: set[str] | None = None, mode: str = "FastFile"):  # type: ignore[no-untyped-def]
    return observe_start(parse_training_job(describe), reused or set(), mode)


def test_reused_pool_is_warm_even_when_start_up_was_slow() -> None:
    start = observe(describe_job("b", startup=130), reused={"b"})
    assert (start.kind, start.evidence) == ("warm", "reused-pool")
    assert start.seconds_saved == pytest.approx(13.0)  # 143 - 130


def test_spot_is_always_cold() -> None:
    start = observe(describe_job("s", spot=True, startup=15), reused=set())
    assert (start.kind, start.evidence) == ("cold", "spot")
    assert start.seconds_saved == 0.0


def test_fast_start_without_pointer_is_warm_by_timing() -> None:
    start = observe(describe_job("w", startup=21))
    assert (start.kind, start.evidence) == ("warm", "timing")
    assert start.seconds_saved == pytest.approx(122.0)


def test_model_cold_start_is_cold_by_timing() -> None:
    start = observe(describe_job("c", startup=143))
    assert (start.kind, start.evidence) == ("cold", "timing")
    assert start.startup_seconds == pytest.approx(143.0)


def test_never_trained_job_is_cold_unless_a_pool_was_handed_to_it() -> None:
    phases = [("Starting", 10.0), ("Downloading", 5.0)]
    failed = describe_job("f", status="Failed", training=0, phases=phases, failure_reason="ClientError")
    assert observe(failed).evidence == "never-trained"
    assert observe(failed).startup_seconds == pytest.approx(15.0)
    assert observe(failed, reused={"f"}).kind == "warm"


def test_thresholds_per_input_mode() -> None:
    assert warm_threshold_seconds("FastFile") == pytest.approx(31.5)
    assert warm_threshold_seconds("File") == pytest.approx(105.0)
    assert warm_threshold_seconds("FSx") == pytest.approx(28.5)
    start = observe(describe_job("file", startup=70, input_mode="File"), mode="File")
    assert start.kind == "warm"
    assert start.cold_model_seconds == 176


def test_fsx_channels_use_the_fsx_model() -> None:
    raw = describe_job("fsx", startup=19, input_mode="File")
    raw["InputDataConfig"] = [{"DataSource": {"FileSystemDataSource": {"FileSystemType": "FSxLustre"}}}]
    start = observe(raw)
    assert start.cold_model_seconds == 136
    assert start.seconds_saved == pytest.approx(117.0)


def test_start_up_ends_at_the_first_training_not_after_an_interruption() -> None:
    phases = [
        ("Starting", 60.0),
        ("Downloading", 40.0),
        ("Training", 300.0),
        ("Interrupted", 500.0),
        ("Starting", 60.0),
        ("Downloading", 40.0),
        ("Training", 200.0),
        ("Uploading", 5.0),
    ]
    record = parse_training_job(describe_job("i", spot=True, training=500, billable=90, phases=phases))
    assert measure_startup(record) == (pytest.approx(100.0), True)


def test_without_transitions_creation_and_training_start_stand_in() -> None:
    raw = describe_job("x", startup=50)
    del raw["SecondaryStatusTransitions"]
    record = parse_training_job(raw)
    assert measure_startup(record) == (pytest.approx(50.0), True)


def test_a_handed_over_pool_with_another_image_is_warm_with_the_image_re_pulled() -> None:
    record = parse_training_job(describe_job("b", startup=55, image="img:2"))
    start = observe_start(record, {"b"}, "FastFile", previous_image="img:1")
    assert (start.kind, start.evidence, start.image_pulled) == ("warm", "reused-pool", True)
    assert start.seconds_saved == pytest.approx(143 - 55)  # still far faster than cold
    assert start.warm_model_seconds == 21 + 34
    same = observe_start(
        parse_training_job(describe_job("b", image="img:1")), {"b"}, "FastFile", previous_image="img:1"
    )
    assert not same.image_pulled


def test_no_image_pull_is_claimed_without_a_predecessor_to_compare() -> None:
    by_timing = observe_start(
        parse_training_job(describe_job("w", startup=21, image="img:2")), set(), "FastFile"
    )
    assert (by_timing.kind, by_timing.image_pulled) == ("warm", False)
    no_image = describe_job("b", image="img:2")
    del no_image["AlgorithmSpecification"]["TrainingImage"]  # an algorithm resource
    start = observe_start(parse_training_job(no_image), {"b"}, "FastFile", previous_image="img:1")
    assert not start.image_pulled
