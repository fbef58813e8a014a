"""SIGTERM ends ``airflow dags test`` while a city's trigger runs in line (the task runner's own handler only calls
the operator's ``on_kill`` and returns, so the command went on waiting)."""

from __future__ import annotations

import os
import signal

import pytest

from sagemaker_fleet.triggers.city import stop_on_sigterm


def test_sigterm_in_the_block_says_what_it_leaves_and_exits_143() -> None:
    told: list[str] = []
    before = signal.getsignal(signal.SIGTERM)
    with pytest.raises(SystemExit) as stopped, stop_on_sigterm(lambda: told.append("stopped")):
        os.kill(os.getpid(), signal.SIGTERM)  # the handler runs before the next bytecode of this thread
    assert stopped.value.code == 128 + signal.SIGTERM
    assert told == ["stopped"]
    assert signal.getsignal(signal.SIGTERM) is before


def test_after_the_block_sigterm_is_the_task_runners_again() -> None:
    def runner(signum: int, frame: object) -> None:
        pass

    previous = signal.signal(signal.SIGTERM, runner)
    try:
        with stop_on_sigterm(lambda: None):
            assert signal.getsignal(signal.SIGTERM) is not runner
        assert signal.getsignal(signal.SIGTERM) is runner
    finally:
        signal.signal(signal.SIGTERM, previous)
