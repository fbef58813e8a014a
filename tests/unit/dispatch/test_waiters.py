"""Waiters: the waiting cities of a run, shared by the triggerer's session and simulate's poller (pure)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from sagemaker_fleet.dispatch import Wait, build_run_dispatch
from sagemaker_fleet.dispatch.waiters import Waiters
from unit.dispatch.test_dispatch_tracker import hand_book

if TYPE_CHECKING:
    from sagemaker_fleet.dispatch.sweep import RunSweeps


def one_group() -> tuple[RunSweeps, list[str]]:
    _, book = hand_book("XXX", width=1)
    return build_run_dispatch(book, {}), list(book.members[next(iter(book.members))])


def test_no_city_is_admitted_before_the_run_s_whole_listing_and_then_in_the_tracker_s_order() -> None:
    sweeps, cities = one_group()
    waiters: Waiters[str] = Waiters(sweeps)
    assert waiters.add(Wait(cities[0], since=0.0), "turn-0", 0.0) == []  # no listing yet
    assert waiters.pending()  # a city waits, and the tracker has not seen the run
    listed = sweeps._listed(sweeps._listing(), [], now=0.0, waiting=waiters.waiting())
    assert waiters.admitted(listed.admitted) == ["turn-0"]
    assert len(waiters) == 0
    assert not waiters.pending()  # nothing watched, nobody waits, the run listed, no pool end left


def test_a_released_or_cancelled_admitted_city_gives_its_place_back() -> None:
    sweeps, cities = one_group()
    sweeps._listed(sweeps._listing(), [], now=0.0, waiting=[])
    waiters: Waiters[str] = Waiters(sweeps)
    assert waiters.add(Wait(cities[0], since=0.0), "a", 0.0) == ["a"]
    assert waiters.add(Wait(cities[1], since=0.0), "b", 0.0) == []  # the group's one lane is taken
    waiters.leave(cities[1], "b", admitted=False)
    assert waiters.release(cities[0], 1.0) == []  # the quota refused the first: nobody else waits
    assert waiters.add(Wait(cities[0], since=1.0), "a2", 1.0) == ["a2"]  # its place was given back
    waiters.leave(cities[0], "a2", admitted=True)  # ... and cancelled before it could create: back again
    assert waiters.add(Wait(cities[0], since=2.0), "a3", 2.0) == ["a3"]


def test_leaving_keeps_a_later_wait_of_the_same_city() -> None:
    sweeps, cities = one_group()
    waiters: Waiters[str] = Waiters(sweeps)
    waiters.add(Wait(cities[0], since=0.0), "old", 0.0)
    waiters.add(Wait(cities[0], since=1.0), "new", 1.0)
    waiters.leave(cities[0], "old", admitted=False)
    assert waiters.turns() == ["new"]
    waiters.leave(cities[0], "new", admitted=False)
    assert waiters.turns() == []
