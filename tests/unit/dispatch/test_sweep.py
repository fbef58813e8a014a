"""The run's sweep step (pure): where a listing starts, what a listing decides, the pool ends and the back-off."""

from __future__ import annotations

import datetime as dt

from sagemaker_fleet.dispatch import DispatchBook, RunTracker, Wait, build_run_dispatch
from sagemaker_fleet.dispatch.cadence import Cadence
from sagemaker_fleet.dispatch.shell import MAX_BACKOFF_FACTOR, PoolEnd
from sagemaker_fleet.dispatch.state import CREATION_MARGIN
from sagemaker_fleet.dispatch.sweep import MISSES_BEFORE_DESCRIBE, RunSweeps
from sagemaker_fleet.jobs.progress import run_job_names
from unit.dispatch.test_dispatch_tracker import RUN_KEY, T0, dispatch_for, hand_book, summary

FLOOR = dt.datetime(2026, 11, 28, tzinfo=dt.UTC)


def test_the_listing_starts_before_the_oldest_job_still_watched() -> None:
    sweeps = RunSweeps(floor=FLOOR)
    sweeps.watch("old", T0)
    sweeps.watch("new", T0 + dt.timedelta(hours=2))
    assert sweeps._window_start() == T0 - CREATION_MARGIN
    sweeps.unwatch("old")  # the run moved on: the window follows
    assert sweeps._window_start() == T0 + dt.timedelta(hours=2) - CREATION_MARGIN
    sweeps.watch("unknown")  # no bound for one job: list the name's whole past, from the run's floor
    assert sweeps._window_start() is None
    assert (sweeps._listing().after, sweeps._listing().whole) == (FLOOR, True)


def test_a_tracker_that_has_not_seen_the_run_lists_its_whole_past() -> None:
    spec, book = hand_book("XX")
    sweeps = build_run_dispatch(book, run_job_names(spec, RUN_KEY), floor=FLOOR)
    sweeps.watch("a", T0)
    assert sweeps._listing().whole
    assert sweeps.tracker is not None
    sweeps.tracker.observe([summary(spec, "c0", created=T0 + dt.timedelta(hours=1))], whole=True)
    assert sweeps._listing().after == T0 - CREATION_MARGIN  # the watched job is the older
    assert not sweeps._listing().whole


def test_a_listing_describes_ended_and_missing_jobs_and_passes_on_the_running() -> None:
    spec, book = hand_book("XX")
    sweeps = RunSweeps()
    running, ended, missing = (summary(spec, c) for c in ("c0", "c1", "c2"))
    ended["TrainingJobStatus"] = "Completed"
    for job in (running, ended, missing):
        sweeps.watch(job["TrainingJobName"], T0)
    listing = sweeps._listing()
    for miss in range(1, MISSES_BEFORE_DESCRIBE + 1):
        listed = sweeps._listed(listing, [running, ended], now=0.0, waiting=[])
        assert dict(listed.running) == {running["TrainingJobName"]: running}
        expected = [ended["TrainingJobName"]] + (
            [missing["TrainingJobName"]] if miss == MISSES_BEFORE_DESCRIBE else []
        )
        assert list(listed.describe) == expected
    assert sweeps._described(
        missing["TrainingJobName"], {**missing, "CreationTime": T0 + dt.timedelta(minutes=1)}
    )
    assert sweeps.watches[missing["TrainingJobName"]].misses == 0
    assert sweeps.watches[missing["TrainingJobName"]].created == T0 + dt.timedelta(
        minutes=1
    )  # SageMaker's own
    assert not sweeps._described("unwatched", missing)  # its watcher left meanwhile: nobody to hand it to


def test_a_listing_admits_only_once_the_tracker_has_seen_the_whole_run() -> None:
    spec, book = hand_book("XXX")
    sweeps = build_run_dispatch(book, {})
    waiting = [Wait(city, since=0.0) for city in book.members[next(iter(book.members))]]
    assert sweeps.admit(waiting, 0.0) == []  # no listing yet
    listed = sweeps._listed(sweeps._listing(), [], now=0.0, waiting=waiting)
    assert listed.admitted
    assert set(listed.admitted) <= {w.city for w in waiting}


def test_each_pool_end_is_handed_out_once_and_a_shell_that_stops_leaves_the_rest() -> None:
    spec, book = hand_book("XX")
    sweeps = dispatch_for(
        spec, book, [summary(spec, "c0", "Completed", pool="Available"), summary(spec, "c1")]
    )
    ends = sweeps._pool_ends()
    first = next(ends)
    group = book.turns["c1"].group
    assert first == PoolEnd(summary(spec, "c1")["TrainingJobName"], running=True, group=group)
    ends.close()  # the shell failed after the first: the idle pool is still to end
    assert list(sweeps._pool_ends()) == [
        PoolEnd(summary(spec, "c0")["TrainingJobName"], running=False, group=group)
    ]
    assert list(sweeps._pool_ends()) == []


def test_a_pool_end_the_endpoint_did_not_take_is_handed_out_again() -> None:
    """Throttled past its retries, or the endpoint unreachable: the change was not made, so the next sweep tries it
    again (once dropped, the idle pool billed until the run's end)."""
    spec, book = hand_book("XX")
    sweeps = dispatch_for(
        spec, book, [summary(spec, "c0", "Completed", pool="Available"), summary(spec, "c1")]
    )
    ends = list(sweeps._pool_ends())
    assert [e.running for e in ends] == [True, False]
    for end in ends:
        sweeps._pool_end_failed(end)
    assert list(sweeps._pool_ends()) == ends
    assert list(sweeps._pool_ends()) == []


def test_the_back_off_doubles_to_its_cap_and_the_hand_off_bounds_the_interval() -> None:
    sweeps = RunSweeps(RunTracker(DispatchBook.empty(), {}))
    assert sweeps._delay(30.0, waiting=False) == 30.0
    assert sweeps._delay(30.0, waiting=True) == Cadence().handoff_interval
    for _ in range(10):
        sweeps._swept(ok=False)
    assert sweeps._delay(30.0, waiting=False) == 30.0 * MAX_BACKOFF_FACTOR
    sweeps._swept(ok=True)
    assert sweeps._delay(30.0, waiting=False) == 30.0 * MAX_BACKOFF_FACTOR / 2
