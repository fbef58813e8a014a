"""A run whose cities start one at a time in an order of Airflow's (``airflow dags test``): no city waits for a city
that has not started — none of them could start while it waits — and each takes the pool the city before it left."""

from __future__ import annotations

from sagemaker_fleet.dispatch import RunOptions, RunTracker, Wait
from sagemaker_fleet.jobs.progress import run_job_names
from unit.dispatch.test_dispatch_tracker import RUN_KEY, budget_book, one_group, ranked, summary


def one_at_a_time(spec, book, listing=()) -> RunTracker:
    tracker = RunTracker(book, run_job_names(spec, RUN_KEY), options=RunOptions(one_at_a_time=True))
    tracker.observe(listing, whole=True)
    return tracker


def test_a_late_rank_starts_at_once_when_nothing_of_its_group_has_started() -> None:
    spec, _, book = one_group()
    late = ranked(book)[6]
    assert one_at_a_time(spec, book).admit([Wait(late, since=0)], now=0) == [late]
    # dispatched as a scheduler runs the fleet, it waits for its turn (then for the 600 s stall)
    normal = RunTracker(book, run_job_names(spec, RUN_KEY))
    normal.observe([], whole=True)
    assert normal.admit([Wait(late, since=0)], now=0) == []


def test_the_next_city_takes_the_pool_its_predecessor_left() -> None:
    """One instance in the quota, held by the finished city's idle pool: only a city of its key can start, on it."""
    spec, _, book = one_group(instances=1, warm_pools=1)
    first, later = ranked(book)[5], ranked(book)[2]
    tracker = one_at_a_time(spec, book, [summary(spec, first, "Completed", pool="Available")])
    assert tracker.admit([Wait(later)], now=0) == [later]


def test_used_cold_starts_do_not_hold_a_city_back() -> None:
    """The plan's cold starts are used and a pool may come (a job of the group runs): run by a scheduler, the city
    waits for it; one at a time, the running job is no other city's to wait for."""
    spec, book = budget_book(cold_starts=1)
    listing = [summary(spec, "c0", "Completed", pool="Terminated"), summary(spec, "c1")]
    assert one_at_a_time(spec, book, listing).admit([Wait("c4")], now=0) == ["c4"]
    normal = RunTracker(book, run_job_names(spec, RUN_KEY))
    normal.observe(listing, whole=True)
    assert normal.admit([Wait("c4")], now=0) == []


def test_a_city_whose_group_has_not_started_says_why_and_when_it_goes_anyway() -> None:
    spec, _, book = one_group()
    tracker = RunTracker(book, run_job_names(spec, RUN_KEY))
    tracker.observe([], whole=True)
    reason = tracker.waiting_reason(Wait(ranked(book)[5], since=0), now=0)
    assert reason.startswith("waits for 3 more job(s) of group g0 to end (rank 6 of 8, width 3, 0 running)")
    assert "the cities before it have not started" in reason
    assert "starts anyway after 600 s" in reason


def test_a_job_keeps_its_pool_through_the_shells_gap_while_a_city_of_its_key_is_to_come() -> None:
    """One at a time, the next city creates its job only after Airflow ends one task and starts the next: the plan's
    keep-alive (made for a triggerer that hands the pool on in the sweep that sees the end) may run out first. While
    a city of the group is still to come a job keeps its pool at least the run's ``inline_keep_alive``; the last
    keeps none; a plan's longer keep-alive stands; a scheduled run is unchanged."""
    spec, _, book = one_group(n=3)
    first, second, last = ranked(book)[0], ranked(book)[1], ranked(book)[2]
    options = RunOptions(one_at_a_time=True, inline_keep_alive=560)
    tracker = RunTracker(book, run_job_names(spec, RUN_KEY), options=options)
    tracker.observe([], whole=True)
    assert tracker.keep_alive_at_create(first, 240) == 560
    assert tracker.keep_alive_at_create(first, 900) == 900
    tracker.observe([summary(spec, first, "Completed", pool="Available"), summary(spec, second)], whole=True)
    assert tracker.keep_alive_at_create(second, 240) == 560  # the last city is still to come
    tracker.observe(
        [summary(spec, c, "Completed", pool="Available") for c in (first, second)] + [summary(spec, last)],
        whole=True,
    )
    assert tracker.keep_alive_at_create(last, 240) == 0  # nobody is left to take its pool
    scheduled = RunTracker(book, run_job_names(spec, RUN_KEY), options=RunOptions(inline_keep_alive=560))
    scheduled.observe([], whole=True)
    assert scheduled.keep_alive_at_create(first, 240) == 240


def test_one_at_a_time_a_group_the_plan_gives_no_pool_still_hands_them_on() -> None:
    """A group as wide as its cities gets no keep-alive from the plan (a scheduler starts them all together); one at a
    time every city of it is another's successor, so each but the last keeps its pool the inline keep-alive."""
    spec, _, book = one_group(n=3, instances=3, warm_pools=3)
    first, _, last = ranked(book)
    assert book.turns[first].keep_alive_seconds == 0
    assert book.turns[first].automatic_keep_alive
    tracker = RunTracker(
        book, run_job_names(spec, RUN_KEY), options=RunOptions(one_at_a_time=True, inline_keep_alive=600)
    )
    tracker.observe([], whole=True)
    assert tracker.keep_alive_at_create(first, 0) == 600
    tracker.observe(
        [summary(spec, c, "Completed") for c in ranked(book)[:2]] + [summary(spec, last)], whole=True
    )
    assert tracker.keep_alive_at_create(last, 0) == 0
    scheduled = RunTracker(book, run_job_names(spec, RUN_KEY), options=RunOptions(inline_keep_alive=600))
    scheduled.observe([], whole=True)
    assert scheduled.keep_alive_at_create(first, 0) == 0
