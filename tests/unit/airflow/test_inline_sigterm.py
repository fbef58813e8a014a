"""SIGTERM ends ``airflow dags test`` while a city's trigger runs in line (the task runner's own handler only calls
the operator's ``on_kill`` and returns, so the command went on waiting)."""

from __future__ import annotations

import asyncio
import os
import signal

import pytest

from sagemaker_fleet.triggers.inline import stop_on_sigterm


def test_sigterm_cancels_the_work_says_what_it_leaves_and_exits_143() -> None:
    told: list[str] = []
    cancelled: list[bool] = []
    before = signal.getsignal(signal.SIGTERM)

    async def work() -> None:
        try:
            asyncio.get_running_loop().call_later(0.05, os.kill, os.getpid(), signal.SIGTERM)
            await asyncio.sleep(30)
        except asyncio.CancelledError:
            cancelled.append(True)  # its clean-up runs, as a cancelled trigger's does
            raise

    with pytest.raises(SystemExit) as stopped:
        asyncio.run(stop_on_sigterm(work(), lambda: told.append("stopped")))
    assert stopped.value.code == 128 + signal.SIGTERM
    assert (told, cancelled) == (["stopped"], [True])
    assert signal.getsignal(signal.SIGTERM) is before


def test_without_sigterm_the_result_and_the_task_runners_handler_are_kept() -> None:
    def runner(signum: int, frame: object) -> None:
        pass

    async def work() -> str:
        assert signal.getsignal(signal.SIGTERM) is not runner
        return "done"

    previous = signal.signal(signal.SIGTERM, runner)
    try:
        assert asyncio.run(stop_on_sigterm(work(), lambda: None)) == "done"
        assert signal.getsignal(signal.SIGTERM) is runner
    finally:
        signal.signal(signal.SIGTERM, previous)


def test_a_cancel_that_is_not_sigterms_stays_a_cancel() -> None:
    async def outer() -> None:
        inner = asyncio.ensure_future(stop_on_sigterm(asyncio.sleep(30), lambda: None))
        await asyncio.sleep(0.01)
        inner.cancel()
        await inner

    with pytest.raises(asyncio.CancelledError):
        asyncio.run(outer())
