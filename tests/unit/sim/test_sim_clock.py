from __future__ import annotations

import time

import pytest

from sagemaker_fleet.sim import AdjustableClock, Clock, VirtualClock, WallClock
from sagemaker_fleet.sim.clock import DEFAULT_VIRTUAL_EPOCH


def test_virtual_clock_moves_only_when_told() -> None:
    clock = VirtualClock()
    assert clock.now() == DEFAULT_VIRTUAL_EPOCH
    assert clock.advance(90) == DEFAULT_VIRTUAL_EPOCH + 90
    assert clock.set(DEFAULT_VIRTUAL_EPOCH + 100) == DEFAULT_VIRTUAL_EPOCH + 100
    assert clock.now() == DEFAULT_VIRTUAL_EPOCH + 100


def test_virtual_clock_never_goes_back() -> None:
    clock = VirtualClock(start=1000.0)
    with pytest.raises(ValueError, match="never goes back"):
        clock.set(999.0)
    with pytest.raises(ValueError, match="never goes back"):
        clock.advance(-1)


def test_wall_clock_runs_speed_times_faster_from_its_epoch() -> None:
    clock = WallClock(speed=1000, epoch=5_000.0)
    start = clock.now()
    assert start >= 5_000.0
    time.sleep(0.05)
    assert clock.now() - start >= 50.0  # 0.05 s of wall time at 1000x


def test_wall_clock_advance_jumps_and_speed_change_keeps_continuity() -> None:
    clock = WallClock(speed=1.0, epoch=0.0)
    assert clock.advance(3600) >= 3600
    before = clock.now()
    clock.set_speed(10)
    assert clock.now() >= before
    assert clock.speed == 10


def test_clocks_satisfy_the_protocols() -> None:
    assert isinstance(VirtualClock(), AdjustableClock)
    assert isinstance(WallClock(), AdjustableClock)
    assert isinstance(WallClock(), Clock)


def test_wall_clock_rejects_a_non_positive_speed() -> None:
    with pytest.raises(ValueError, match="speed"):
        WallClock(speed=0)
