"""What a city trigger needs when Airflow runs it in line: ``airflow dags test`` runs a deferred task's trigger in
the test's own process, not in a triggerer. SIGTERM stops the test (:func:`stop_on_sigterm`); each job keeps its pool
through Airflow's own gap between two tasks (:func:`dags_test_task_gap`, and :data:`GAPS`: what this process
measured); the line that says the run's cities start one at a time (:func:`one_at_a_time_line`)."""

from __future__ import annotations

import asyncio
import signal
import threading
import time
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any, TypeVar

from sagemaker_fleet.compat import AIRFLOW_VERSION

if TYPE_CHECKING:
    from sagemaker_fleet.dispatch.book import Turn

T = TypeVar("T")

#: Real seconds ``airflow dags test`` spends between a city's job end being seen and the next city's create: its task
#: resumed and ended, the next task started and deferred (two task starts), per Airflow minor, measured on a 2-core
#: machine (benchmarks/dags_test_minors.py). The keep-alive a job gets in that mode covers it
#: (:func:`sagemaker_fleet.dispatch.cadence.inline_keep_alive`).
DAGS_TEST_TASK_GAP_SECONDS = {(3, 0): 2.5, (3, 1): 2.5, (3, 2): 11.0, (3, 3): 2.0}


def dags_test_task_gap() -> float:
    """Airflow's gap between two cities in this ``dags test``: :data:`DAGS_TEST_TASK_GAP_SECONDS` of the running
    Airflow (the longest known for a minor not measured), or the last gap :data:`GAPS` measured when longer — a
    loaded machine starts tasks slower than the one the table was measured on."""
    table = DAGS_TEST_TASK_GAP_SECONDS.get(AIRFLOW_VERSION[:2], max(DAGS_TEST_TASK_GAP_SECONDS.values()))
    return max(table, GAPS.last)


class TaskGaps:
    """The gaps this process saw between a city's job end and the next city starting (``airflow dags test`` runs a
    run's cities one after the other in one process): each city says when it saw its job end (:meth:`job_ended`),
    the next one when it starts (:meth:`city_started`). A retry's wait for its retry delay is no such gap: a gap
    longer than :data:`LONGEST` is not counted."""

    #: Seconds past which the wait between two cities was not Airflow starting a task (a retry delay, a person).
    LONGEST = 30.0

    def __init__(self) -> None:
        self.last = 0.0
        self._ended_at: float | None = None

    def job_ended(self) -> None:
        self._ended_at = time.monotonic()

    def city_started(self) -> None:
        if self._ended_at is not None:
            gap = time.monotonic() - self._ended_at
            if gap <= self.LONGEST:
                self.last = gap
            self._ended_at = None


#: This process's gaps (one ``dags test`` per process).
GAPS = TaskGaps()


async def stop_on_sigterm(work: Awaitable[T], on_stop: Callable[[], None]) -> T:
    """``work``'s result; SIGTERM meanwhile cancels it, calls ``on_stop`` and ends the process with exit code 143
    (128 + SIGTERM), as a process killed by it would. ``dag.test()`` runs a deferred task's trigger in line, under the
    task runner's SIGTERM handler, which only calls the operator's ``on_kill`` and returns: ``airflow dags test``
    went on waiting. The handler only cancels (raising from it, mid-call, once left the process hanging in its
    clean-up); :class:`SystemExit` then passes the ``except Exception`` around each task and ends the command."""
    task = asyncio.ensure_future(work)
    if threading.current_thread() is not threading.main_thread():
        return await task
    loop = asyncio.get_running_loop()
    signals: list[int] = []

    def handler(signum: int, frame: Any) -> None:
        signals.append(signum)
        loop.call_soon_threadsafe(task.cancel)

    previous = signal.signal(signal.SIGTERM, handler)
    try:
        return await task
    except asyncio.CancelledError:
        if not signals:
            raise
        on_stop()
        raise SystemExit(128 + signals[0]) from None
    finally:
        signal.signal(signal.SIGTERM, previous)


def one_at_a_time_line(city: str, turn: Turn | None, cities: int, keep: int, speed: float) -> str:
    """What the city's trigger says when ``airflow dags test`` starts the run's cities one at a time: its place in
    the plan and what its job does with its pool. The "created" line then says the keep-alive the job got (0 when
    no city of its group is left to come), so the two never disagree: this one only states the rule."""
    head = (
        f"{city}: the run's cities start one at a time in the order Airflow runs them (airflow dags test): "
        "this one starts now"
    )
    if turn is None:
        return head
    place = f" (planned {turn.order + 1} of {cities}, group {turn.group})"
    if not turn.warm_pool:
        kind = "spot jobs keep no warm pool" if turn.spot else "its group keeps no warm pool"
        return f"{head}{place}; {kind}"
    at_speed = f" at the endpoint's speed {speed:g}" if speed != 1 else ""
    return (
        f"{head}{place}; while a city of group {turn.group} is still to come, its job keeps its pool at least "
        f"{keep} s (Airflow's own gap between tasks{at_speed}), so that the next one takes it"
    )
