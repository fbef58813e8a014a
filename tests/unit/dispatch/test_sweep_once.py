"""sweep_once over a scripted I/O: the board's calls never fail the sweep (a record S3 did not take goes out again),
the board is read from the stale time on the wall clock, and any other failed call fails the sweep and backs it off
without raising. (Both shells making the same decisions through it: test_sweep_shells.py.)"""

from __future__ import annotations

import asyncio
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from sagemaker_fleet.dispatch.cadence import Cadence
from sagemaker_fleet.dispatch.shell import Answer, Swept
from sagemaker_fleet.dispatch.sweep import sweep_once
from unit.dispatch.test_board import run

if TYPE_CHECKING:
    from sagemaker_fleet.dispatch.shell import Listed, PoolEnd
    from sagemaker_fleet.dispatch.state import Wait
    from sagemaker_fleet.dispatch.sweep import RunSweeps

WALL = 1_000_000.0


class ScriptedIO:
    """An empty account whose board neither answers nor takes a record (``board_up``: it does); ``list_error``: what
    every listing raises."""

    def __init__(self, board_up: bool = False, list_error: Exception | None = None) -> None:
        self.clock = 0.0
        self.board_up = board_up
        self.list_error = list_error
        self.reads: list[float] = []
        self.posts: list[Mapping[str, Any]] = []

    def now(self) -> float:
        return self.clock

    def wall(self) -> float:
        return WALL + self.clock

    def waiting(self) -> Sequence[Wait]:
        return []

    async def list_jobs(self, *, account: bool, **filters: Any) -> Sequence[Mapping[str, Any]]:
        if self.list_error is not None:
            raise self.list_error
        return []

    async def describe(self, names: Sequence[str], *, foreign: bool) -> Sequence[Answer]:
        return [None for _ in names]

    async def end_pool(self, end: PoolEnd) -> None:
        return None

    async def read_board(self, bucket: str, prefix: str, modified_after: float) -> Sequence[object] | None:
        self.reads.append(modified_after)
        return [] if self.board_up else None

    async def post_board(self, bucket: str, key: str, record: Mapping[str, Any]) -> bool:
        self.posts.append(record)
        return self.board_up

    def hand_out(self, listed: Listed) -> None:
        return None

    def deliver(self, name: str, description: Mapping[str, Any] | None) -> None:
        return None


def sweep(sweeps: RunSweeps, io: ScriptedIO, at: float) -> Swept:
    io.clock = at
    return asyncio.run(sweep_once(sweeps, io, 10.0))


def test_a_board_that_does_not_answer_fails_nothing_and_the_record_goes_out_again() -> None:
    _, _, sweeps = run()
    io = ScriptedIO()
    assert sweep(sweeps, io, 0.0) == Swept(10.0)
    assert io.reads == [WALL - Cadence().stale_seconds]  # records older than the stale time are not fetched
    assert sweep(sweeps, io, 1.0).error is None
    assert len(io.posts) == 2  # not taken: posted again, not held back for the heartbeat
    io.board_up = True
    sweep(sweeps, io, 2.0)
    sweep(sweeps, io, 3.0)
    assert len(io.posts) == 3  # taken: unchanged since, nothing to post


def test_a_failed_listing_fails_the_sweep_backs_it_off_and_is_returned() -> None:
    _, _, sweeps = run()
    io = ScriptedIO(list_error=ConnectionError("endpoint unreachable"))
    first, second = sweep(sweeps, io, 0.0), sweep(sweeps, io, 20.0)
    assert isinstance(first.error, ConnectionError)
    assert (first.delay, second.delay) == (20.0, 40.0)
    io.list_error = None
    assert sweep(sweeps, io, 60.0) == Swept(20.0)


STEPS = (
    "census",
    "censused",
    "board_read",
    "board_records",
    "board_post",
    "board_posted",
    "listing",
    "foreign",
    "foreign_described",
    "foreign_denied",
    "listed",
    "described",
    "pool_ends",
    "pool_end_failed",
    "swept",
    "delay",
)


def test_the_sweep_s_steps_are_private_and_only_the_dispatch_package_calls_them() -> None:
    """The order of the steps is sweep_once's alone: a shell that called one itself would drift from the other. A
    shell sees RunSweeps' small public surface only."""
    import re
    from pathlib import Path

    import sagemaker_fleet
    from sagemaker_fleet.dispatch.sweep import RunSweeps

    public = {name for name in vars(RunSweeps) if not name.startswith("_")}
    assert public == {"restart", "watch", "unwatch", "ends_pending", "admit"}
    assert not any(hasattr(RunSweeps, step) for step in STEPS)
    package = Path(sagemaker_fleet.__file__).parent
    call = re.compile(rf"\b(sweeps|run)\._({'|'.join(STEPS)})\(")
    callers = [
        f"{path.relative_to(package)}: {match.group(0)}"
        for path in package.rglob("*.py")
        if path.parent.name != "dispatch"
        for match in call.finditer(path.read_text())
    ]
    assert callers == []
    assert call.search((package / "dispatch" / "sweep.py").read_text())
