"""The Cadence: one frozen value with every interval of a run's dispatch and its shells, and its scaling."""

from __future__ import annotations

import dataclasses

import pytest

from sagemaker_fleet.contract import CAPACITY_RETRY_SECONDS, CAPACITY_TIMEOUT_SECONDS, POLL_INTERVAL
from sagemaker_fleet.dispatch.cadence import UNSCALED, Cadence
from sagemaker_fleet.jobs.attempts import CAPACITY_RETRY_MAX_SECONDS


def test_the_defaults_are_the_triggerers_against_aws() -> None:
    cadence = Cadence()
    assert cadence.poll_interval == POLL_INTERVAL
    assert cadence.capacity_retry_seconds == CAPACITY_RETRY_SECONDS
    assert cadence.capacity_retry_max_seconds == CAPACITY_RETRY_MAX_SECONDS
    assert cadence.capacity_timeout_seconds == CAPACITY_TIMEOUT_SECONDS
    assert (cadence.handoff_interval, cadence.stall_seconds, cadence.recheck_seconds) == (10.0, 600.0, 60.0)
    assert (cadence.board_read_seconds, cadence.start_settle_seconds) == (10.0, 5.0)
    assert (cadence.heartbeat_seconds, cadence.stale_seconds) == (30.0, 120.0)
    assert (cadence.give_up_seconds, cadence.min_aws_poll_seconds, cadence.watch_margin_seconds) == (
        900.0,
        5.0,
        3600.0,
    )
    # another run's pool is claimable after the longest gap between a waiting run's sweeps
    assert cadence.claim_after_seconds == cadence.handoff_interval


def test_a_board_record_outlives_a_few_heartbeats() -> None:
    cadence = Cadence()
    assert cadence.stale_seconds >= 3 * cadence.heartbeat_seconds
    assert cadence.start_settle_seconds <= cadence.board_read_seconds


def test_scaled_multiplies_what_the_shell_counts_and_leaves_what_aws_bounds() -> None:
    cadence = Cadence(poll_interval=2.0, capacity_retry_seconds=3.0)
    fast = cadence.scaled(40)
    for field in dataclasses.fields(Cadence):
        before, after = getattr(cadence, field.name), getattr(fast, field.name)
        assert after == (before if field.name in UNSCALED else before * 40), field.name
    assert (fast.poll_interval, fast.handoff_interval, fast.capacity_retry_seconds) == (80.0, 400.0, 120.0)
    assert fast.claim_after_seconds == 400.0
    assert UNSCALED <= {field.name for field in dataclasses.fields(Cadence)}
    assert cadence.scaled(1) == cadence


def test_scaled_refuses_a_speed_that_is_not_positive() -> None:
    with pytest.raises(ValueError, match="speed"):
        Cadence().scaled(0)


def test_a_cadence_is_frozen_and_a_value() -> None:
    cadence = Cadence()
    with pytest.raises(dataclasses.FrozenInstanceError):
        cadence.handoff_interval = 1.0  # type: ignore[misc]
    assert cadence == Cadence()
    assert hash(cadence) == hash(Cadence())
    assert dataclasses.replace(cadence, stall_seconds=60.0).stall_seconds == 60.0


def test_every_field_says_what_it_bounds() -> None:
    import inspect

    from sagemaker_fleet.dispatch import cadence as module

    source = inspect.getsource(module.Cadence)
    for field in dataclasses.fields(Cadence):
        line = next(
            i for i, text in enumerate(source.splitlines()) if text.strip().startswith(f"{field.name}:")
        )
        assert source.splitlines()[line - 1].strip().startswith("#:"), field.name
