"""The dispatch core: the book read from a plan, and the tracker's rule over ListTrainingJobs summaries."""

from __future__ import annotations

import datetime as dt
import random
from types import MappingProxyType
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from sagemaker_fleet.dispatch import (
    DispatchBook,
    DispatchRules,
    RunOptions,
    RunTracker,
    Turn,
    Wait,
    peak_lanes,
)
from sagemaker_fleet.dispatch.state import CREATION_MARGIN
from sagemaker_fleet.fleetspec.model import InstanceQuota
from sagemaker_fleet.fleetspec.names import job_name
from sagemaker_fleet.jobs.progress import run_job_names
from sagemaker_fleet.plan import plan_fleet
from unit.plan.plan_fleets import RUN_KEY, city, fleet, role, spot

T0 = dt.datetime(2026, 11, 29, 6, 0, tzinfo=dt.UTC)


def one_group(n: int = 8, instances: int = 3, warm_pools: int = 3):
    spec = fleet(
        [city(f"c{i}", 600 + 10 * i) for i in range(n)],
        quotas={"ml.m5.xlarge": InstanceQuota(instances=instances, warm_pools=warm_pools)},
    )
    plan = plan_fleet(spec, RUN_KEY)
    return spec, plan, DispatchBook.from_plan(plan, spec)


def summary(
    spec,
    city_name: str,
    status: str = "InProgress",
    attempt: int = 1,
    pool: str | None = None,
    created: dt.datetime = T0,
    retained: int | None = None,
) -> dict:
    job = {
        "TrainingJobName": job_name(spec.fleet, city_name, RUN_KEY, attempt),
        "TrainingJobStatus": status,
        "CreationTime": created,
    }
    if pool:
        job["WarmPoolStatus"] = {"Status": pool}
        if retained is not None:
            job["WarmPoolStatus"]["ResourceRetainedBillableTimeInSeconds"] = retained
    return job


def tracker_for(spec, book, listing=()) -> RunTracker:
    tracker = RunTracker(book, run_job_names(spec, RUN_KEY))
    tracker.observe(listing, whole=True)
    return tracker


def dispatch_for(spec, book, listing=()) -> Any:
    """The run's sweeps and tracker as the shells build them (:func:`build_run_dispatch`: account-aware with a plan),
    its tracker having seen ``listing``."""
    from sagemaker_fleet.dispatch import build_run_dispatch

    sweeps = build_run_dispatch(book, run_job_names(spec, RUN_KEY))
    sweeps.tracker.observe(listing, whole=True)
    return sweeps


def ranked(book, group: str | None = None) -> list[str]:
    group = group or next(iter(book.members))
    return list(book.members[group])


# ------------------------------------------------------------------------------------------ the book


def test_book_widths_are_the_plans_peak_lanes_and_ranks_its_start_order() -> None:
    spec, plan, book = one_group()
    (group,) = plan.groups
    assert book.widths[group.group] == peak_lanes(plan, group.group) == 3
    order = sorted(plan.jobs, key=lambda j: (j.planned_start_seconds, j.lane, j.position))
    assert list(book.members[group.group]) == [j.city for j in order]
    assert [book.turns[c].rank for c in book.members[group.group]] == list(range(8))


def test_every_job_of_a_group_with_successors_keeps_a_pool_and_a_group_within_its_width_none() -> None:
    """Jobs end in any order, so any of them may hand its pool on; idle ones are ended by the poller later."""
    spec, plan, book = one_group()
    assert all(book.turns[c].keep_alive_seconds > 0 for c in ranked(book))
    spec, plan, book = one_group(n=3)
    assert [book.turns[c].keep_alive_seconds for c in ranked(book)] == [0, 0, 0]


def test_spot_turns_never_keep_a_pool_and_draw_on_the_spot_quota() -> None:
    spec = fleet(
        [city("a", spot=spot()), city("b")],
        quotas={"ml.m5.xlarge": InstanceQuota(instances=4, warm_pools=2, spot_instances=2)},
    )
    book = DispatchBook.from_plan(plan_fleet(spec, RUN_KEY), spec)
    assert book.turns["a"].keep_alive_seconds == 0
    assert book.turns["a"].quota == ("ml.m5.xlarge", "spot_instances")
    assert book.turns["a"].quota_for(4) == ("ml.m5.xlarge", "instances")  # past max_attempts: the fallback
    assert book.capacity[("ml.m5.xlarge", "spot_instances")] == 2


# ------------------------------------------------------------------------------------------ turns


def test_the_first_width_cities_start_at_once_the_rest_wait_for_an_end() -> None:
    spec, _, book = one_group()
    tracker = tracker_for(spec, book)
    cities = ranked(book)
    assert tracker.admit([Wait(c) for c in cities], now=0) == cities[:3]
    assert tracker.admit([Wait(c) for c in cities[3:]], now=1) == []  # admitted ones count as running
    tracker.observe([summary(spec, c) for c in cities[:3]])
    assert tracker.admit([Wait(c) for c in cities[3:]], now=2) == []
    tracker.observe([summary(spec, cities[1], "Completed", pool="Available")])
    assert tracker.admit([Wait(c) for c in cities[3:]], now=3) == [cities[3]]  # the next in order, not any


def test_a_later_rank_does_not_jump_an_earlier_one_that_waits_elsewhere() -> None:
    """Two triggerers: rank 4 waits in this one, rank 3 in another. One job ending lets only rank 3 in."""
    spec, _, book = one_group()
    cities = ranked(book)
    tracker = tracker_for(spec, book, [summary(spec, c) for c in cities[:3]])
    tracker.observe([summary(spec, cities[0], "Completed", pool="Available")])
    assert tracker.admit([Wait(cities[4])], now=0) == []
    tracker.observe([summary(spec, cities[3])])  # rank 3 started from the other triggerer
    tracker.observe([summary(spec, cities[2], "Completed", pool="Available")])
    assert tracker.admit([Wait(cities[4])], now=1) == [cities[4]]


def test_a_retry_had_its_turn_and_waits_only_for_room() -> None:
    spec, _, book = one_group(instances=4)
    cities = ranked(book)
    tracker = tracker_for(
        spec, book, [summary(spec, cities[0], "Failed"), *(summary(spec, c) for c in cities[1:3])]
    )
    assert tracker.admit([Wait(cities[0], attempt=2, first=False)], now=0) == [cities[0]]


def test_quota_counts_running_jobs_and_idle_pools_of_other_groups() -> None:
    spec = fleet(
        [city(f"a{i}") for i in range(3)] + [city(f"b{i}", role_arn=role(1)) for i in range(3)],
        quotas={"ml.m5.xlarge": InstanceQuota(instances=2, warm_pools=2)},
    )
    book = DispatchBook.from_plan(plan_fleet(spec, RUN_KEY), spec)
    group_b = book.turns["b0"].group
    first_b = book.members[group_b][0]
    others = [c for c in book.turns if book.turns[c].group != group_b]
    # the other group's two jobs ended, their pools idle: the account's two instances are held
    tracker = tracker_for(spec, book, [summary(spec, c, "Completed", pool="Available") for c in others[:2]])
    assert tracker.admit([Wait(first_b)], now=0) == []
    # a city of the pools' own group takes one over: no new instances needed
    third = others[2]
    assert tracker.admit([Wait(third)], now=0) == [third]
    # one pool ends: room for the other group
    tracker.observe([summary(spec, others[0], "Completed", pool="Terminated")])
    assert tracker.admit([Wait(first_b)], now=1) == [first_b]


def test_release_gives_the_place_back() -> None:
    spec, _, book = one_group(instances=1)
    cities = ranked(book)
    tracker = tracker_for(spec, book)
    assert tracker.admit([Wait(cities[0]), Wait(cities[1])], now=0) == [cities[0]]
    tracker.release(cities[0])  # ResourceLimitExceeded: someone else's job took the instance
    assert tracker.admit([Wait(cities[1]), Wait(cities[0], first=False)], now=1) == [cities[0]]


def test_a_group_whose_earlier_cities_never_start_is_let_through_after_the_stall_time() -> None:
    spec, _, book = one_group()
    cities = ranked(book)
    tracker = tracker_for(spec, book)  # ranks 0-4 never ask (their tasks were marked failed by hand, say)
    assert tracker.admit([Wait(cities[5], since=0)], now=599) == []
    assert tracker.admit([Wait(cities[5], since=0)], now=600) == [cities[5]]


def test_a_waiting_city_is_told_why() -> None:
    spec, _, book = one_group(instances=3)
    cities = ranked(book)
    tracker = tracker_for(spec, book, [summary(spec, c) for c in cities[:3]])
    reason = tracker.waiting_reason(Wait(cities[4]), now=0)
    assert reason == "waits for 2 more job(s) of group g0 to end (rank 5 of 8, width 3, 3 running)"
    # a retry had its turn: it only ever waits for room (three jobs run, the quota is three instances)
    assert tracker.waiting_reason(Wait(cities[0], attempt=2, first=False), now=0) == (
        "waits for room in the ml.m5.xlarge instances quota (running jobs and idle pools)"
    )


def test_a_city_outside_the_plan_starts_at_once() -> None:
    spec, _, _ = one_group()
    tracker = RunTracker(DispatchBook.empty(), run_job_names(spec, RUN_KEY))
    assert tracker.admit([Wait("c1")], now=0) == ["c1"]


# ------------------------------------------------------------------------------------------ pools and window


def test_surplus_pools_are_those_no_city_of_their_group_will_take_over() -> None:
    spec, _, book = one_group()
    cities = ranked(book)
    tracker = tracker_for(spec, book, [summary(spec, c) for c in cities[:7]])
    tracker.observe([summary(spec, cities[0], "Completed", pool="Available")])
    assert tracker.surplus_pools() == []  # the eighth city has not started: it will take this pool
    tracker.admit([Wait(cities[7])], now=0)
    assert tracker.surplus_pools() == []  # admitted, about to take it
    tracker.observe([summary(spec, cities[7])])
    tracker.observe([summary(spec, cities[1], "Completed", pool="Available")])
    assert set(tracker.surplus_pools()) == {job_name(spec.fleet, c, RUN_KEY) for c in cities[:2]}


def test_the_window_follows_the_oldest_job_that_can_still_change() -> None:
    spec, _, book = one_group()
    cities = ranked(book)
    tracker = RunTracker(book, run_job_names(spec, RUN_KEY))
    assert tracker.window_start() is None  # nothing seen yet: list the run's whole past
    later = T0 + dt.timedelta(hours=1)
    tracker.observe(
        [
            summary(spec, cities[0], "Completed", created=T0),
            summary(spec, cities[1], "InProgress", created=later),
        ],
        whole=True,
    )
    assert tracker.window_start() == later - CREATION_MARGIN
    tracker.observe([summary(spec, cities[0], "Completed", pool="Available", created=T0)])
    assert tracker.window_start() == T0 - CREATION_MARGIN  # an idle pool can still change
    tracker.observe(
        [
            summary(spec, cities[0], "Completed", pool="Reused", created=T0),
            summary(spec, cities[1], "Completed", created=later),
        ]
    )
    assert tracker.window_start() == later - CREATION_MARGIN  # all settled: only new jobs can change


def test_the_engines_epoch_seconds_are_read_as_timestamps() -> None:
    spec, _, book = one_group()
    tracker = tracker_for(spec, book, [summary(spec, ranked(book)[0], created=T0.timestamp())])  # type: ignore[arg-type]
    assert tracker.window_start() == T0 - CREATION_MARGIN


# ------------------------------------------------------------------------------------------ the rule, run


@settings(max_examples=60, deadline=None)
@given(n=st.integers(1, 25), instances=st.integers(1, 6), seed=st.integers(0, 10_000))
def test_a_group_runs_in_rank_order_never_wider_than_its_width_and_every_city_starts(
    n: int, instances: int, seed: int
) -> None:
    """Random durations, jobs ending in any order: admissions follow rank, never exceed the width or the quota,
    and every city gets its turn."""
    spec, _, book = one_group(n, instances=instances, warm_pools=instances)
    (group,) = book.members
    width = book.widths[group]
    tracker = tracker_for(spec, book)
    rng = random.Random(seed)
    waiting = list(book.members[group])
    running: list[str] = []
    admitted_order: list[str] = []
    clock = 0
    while waiting or running:
        clock += 1
        for name in tracker.admit([Wait(c, since=0) for c in waiting], now=clock):
            waiting.remove(name)
            running.append(name)
            admitted_order.append(name)
            tracker.observe([summary(spec, name)])
        assert len(running) <= min(width, instances)
        assert running, "nothing runs while cities wait: a deadlock"
        done = running.pop(rng.randrange(len(running)))
        tracker.observe([summary(spec, done, "Completed", pool="Available" if waiting else None)])
    assert admitted_order == list(book.members[group])


def test_peak_lanes_counts_lanes_running_at_once_not_lanes() -> None:
    """Hand-made lanes: the oracle is the timeline drawn out, not the planner that made the plan above."""
    from types import SimpleNamespace

    def lane(group: str, start: int, end: int, jobs: int = 1) -> SimpleNamespace:
        return SimpleNamespace(group=group, start_seconds=start, end_seconds=end, jobs=["job"] * jobs)

    plan: Any = SimpleNamespace(
        lanes=[
            lane("g0", 0, 100),
            lane("g0", 50, 150),  # overlap: 2 at once
            lane("g0", 100, 200),  # starts the second the first ends: still 2, not 3
            lane("g0", 120, 130, jobs=0),  # an empty lane runs nothing
            lane("g1", 0, 500),
            lane("g1", 0, 500),
            lane("g1", 0, 500),  # another group's lanes do not count
        ]
    )
    assert peak_lanes(plan, "g0") == 2
    assert peak_lanes(plan, "g1") == 3
    assert peak_lanes(plan, "g9") == 1  # a group without lanes still has width 1


# ------------------------------------------------------------------------------------------ image-aware hand-off

X_IMAGE = "111122223333.dkr.ecr.us-east-1.amazonaws.com/x:1"
Y_IMAGE = "111122223333.dkr.ecr.us-east-1.amazonaws.com/y:1"


def hand_book(images: str, width: int = 2, successors: dict[int, int] | None = None, keep_alive: int = 300):
    """A book drawn by hand (not read from a plan): one warm-pool group, city ``c{i}`` of rank i with image
    ``images[i]`` ("X" or "Y"), ``successors``: rank → the rank after it on its lane."""
    spec = fleet(
        [city(f"c{i}", image_uri=X_IMAGE if image == "X" else Y_IMAGE) for i, image in enumerate(images)],
        quotas={"ml.m5.xlarge": InstanceQuota(instances=10, warm_pools=10)},
    )
    successors = successors or {}
    quota = ("ml.m5.xlarge", "instances")
    turns = {
        f"c{i}": Turn(
            city=f"c{i}",
            group="g0",
            rank=i,
            order=i,
            keep_alive_seconds=keep_alive,
            instance_type="ml.m5.xlarge",
            instance_count=1,
            quota=quota,
            spot=False,
            warm_pool=True,
            image=X_IMAGE if image == "X" else Y_IMAGE,
            successor=f"c{successors[i]}" if i in successors else None,
        )
        for i, image in enumerate(images)
    }
    book = DispatchBook(
        turns=MappingProxyType(turns),
        widths=MappingProxyType({"g0": width}),
        members=MappingProxyType({"g0": tuple(turns)}),
        capacity=MappingProxyType({quota: 10}),
    )
    return spec, book


def freed(spec, ended: str, running: list[str], started_before: list[str] = ()) -> list[dict]:
    """c-names: ``ended``'s job completed with its pool Available, ``running`` run, ``started_before`` ended
    long ago (their pools taken over)."""
    return [
        summary(spec, ended, "Completed", pool="Available"),
        *(summary(spec, c) for c in running),
        *(summary(spec, c, "Completed", pool="Reused") for c in started_before),
    ]


def test_a_pool_goes_to_the_earliest_waiting_city_with_its_image_not_the_next_in_start_order() -> None:
    spec, book = hand_book("XYYXXYYY")
    waiting = [Wait(f"c{i}") for i in range(2, 8)]
    tracker = tracker_for(spec, book, freed(spec, "c0", ["c1"]))
    assert tracker.handoffs() == {"c3": 0}
    assert tracker.admit(waiting, now=0) == ["c3"]  # c2 (Y) is next in start order; c3 has c0's image X
    old = RunTracker(
        book, run_job_names(spec, RUN_KEY), options=RunOptions(rules=DispatchRules(image_handoff=False))
    )
    old.observe(freed(spec, "c0", ["c1"]), whole=True)
    assert old.admit(waiting, now=0) == ["c2"]


def test_the_plans_lane_successor_is_preferred_among_the_cities_with_the_image() -> None:
    spec, book = hand_book("XYYXXYYY", successors={0: 4})
    tracker = tracker_for(spec, book, freed(spec, "c0", ["c1"]))
    assert tracker.admit([Wait(f"c{i}") for i in range(2, 8)], now=0) == ["c4"]


def test_the_earliest_city_keeps_its_turn_when_it_has_the_pools_image() -> None:
    spec, book = hand_book("XYXXXYYY", successors={0: 4})
    tracker = tracker_for(spec, book, freed(spec, "c0", ["c1"]))
    assert tracker.admit([Wait(f"c{i}") for i in range(2, 8)], now=0) == ["c2"]


def test_no_city_is_passed_over_by_more_than_twice_the_width_less_one() -> None:
    """Width 2: the earliest unstarted city is c2, so the look-ahead ends at rank 2 + 3 = 5. An X city at rank 6
    is too far: the pool goes by start order."""
    spec, book = hand_book("XYYYYYXX")
    tracker = tracker_for(spec, book, freed(spec, "c0", ["c1"]))
    assert tracker.handoffs() == {}
    assert tracker.admit([Wait(f"c{i}") for i in range(2, 8)], now=0) == ["c2"]
    spec, book = hand_book("XYYYYXXX")
    tracker = tracker_for(spec, book, freed(spec, "c0", ["c1"]))
    assert tracker.admit([Wait(f"c{i}") for i in range(2, 8)], now=0) == ["c5"]


def test_the_handed_citys_place_is_held_in_a_triggerer_without_it() -> None:
    """Two triggerers: c2 (next in start order) waits here, c3 (handed c0's pool) in the other. Here c2 must not
    take the one free place, or the group would run three jobs."""
    spec, book = hand_book("XYYXXYYY")
    here = tracker_for(spec, book, freed(spec, "c0", ["c1"]))
    assert here.admit([Wait("c2")], now=0) == []
    there = tracker_for(spec, book, freed(spec, "c0", ["c1"]))
    assert there.admit([Wait("c3")], now=0) == ["c3"]
    # once c3's job is listed and c0's pool shows Reused, the next end lets c2 in here
    here.observe(
        [
            summary(spec, "c3"),
            summary(spec, "c0", "Completed", pool="Reused"),
            summary(spec, "c1", "Completed", pool="Available"),
        ]
    )
    assert here.admit([Wait("c2")], now=1) == ["c2"]


def test_an_admitted_city_keeps_the_pool_it_was_handed_and_none_goes_twice() -> None:
    spec, book = hand_book("XXYXXYYY", width=3)
    tracker = tracker_for(
        spec, book, [*freed(spec, "c0", ["c2"]), summary(spec, "c1", "Completed", pool="Available")]
    )
    # two X pools, the earliest unstarted (c3, X) and then c4 (X): each pool once
    assert tracker.handoffs() == {"c3": 0, "c4": 1}
    assert tracker.admit([Wait("c3")], now=0) == ["c3"]
    assert tracker.handoffs() == {"c3": 0, "c4": 1}  # c3 admitted, not listed yet: it keeps c0's pool
    assert tracker.admit([Wait(f"c{i}") for i in range(4, 8)], now=1) == ["c4"]  # width 3: c2, c3, c4


def test_a_pool_the_listing_still_shows_available_after_this_triggerers_create_is_not_handed_again() -> None:
    spec, book = hand_book("XYYXXYYY", width=3)
    tracker = tracker_for(spec, book, freed(spec, "c0", ["c1"]))
    assert tracker.admit([Wait("c3")], now=0) == ["c3"]
    tracker.observe([summary(spec, "c3")], listed=False)  # the trigger's own CreateTrainingJob answer
    assert tracker.handoffs() == {}  # c3 took c0's pool; the next listing shows it Reused
    assert tracker.admit([Wait(f"c{i}") for i in (2, 4, 5)], now=1) == ["c2"]  # by start order


@settings(max_examples=80, deadline=None)
@given(images=st.text("XY", min_size=1, max_size=24), width=st.integers(1, 5), seed=st.integers(0, 10_000))
def test_image_handoff_never_runs_wider_than_the_width_starts_everyone_and_bounds_the_overtaking(
    images: str, width: int, seed: int
) -> None:
    """Random images and end order: never more than the width at once, no deadlock, every city starts, and no city
    starts after more than 2 × width − 1 cities ranked after it."""
    spec, book = hand_book(images, width=width)
    tracker = tracker_for(spec, book)
    rng = random.Random(seed)
    waiting = list(book.members["g0"])
    running: list[str] = []
    started: list[str] = []
    clock = 0
    while waiting or running:
        clock += 1
        for name in tracker.admit([Wait(c, since=0) for c in waiting], now=clock):
            waiting.remove(name)
            running.append(name)
            started.append(name)
            tracker.observe([summary(spec, name)])
            # a listed job took a pool, as SageMaker would: one of its group's Available ones, if any
            for state in tracker.jobs.values():
                if state.pool == "Available":
                    tracker.observe([summary(spec, state.city, state.status, pool="Reused")])
                    break
        assert len(running) <= width
        assert running, "nothing runs while cities wait: a deadlock"
        done = running.pop(rng.randrange(len(running)))
        tracker.observe([summary(spec, done, "Completed", pool="Available" if waiting else None)])
    assert sorted(started) == sorted(book.members["g0"])
    rank = {c: book.turns[c].rank for c in started}
    for position, name in enumerate(started):
        overtaken_by = sum(1 for earlier in started[:position] if rank[earlier] > rank[name])
        assert overtaken_by <= 2 * width - 1, (name, started)


# ------------------------------------------------------------------------------------------ ending pools early


def test_a_groups_last_jobs_get_keep_alive_zero_once_every_city_has_its_job() -> None:
    spec, book = hand_book("XXXX")
    tracker = tracker_for(
        spec,
        book,
        [summary(spec, "c0", "Completed", pool="Reused"), summary(spec, "c1"), summary(spec, "c2")],
    )
    assert tracker.tail_jobs() == []  # c3 has not started: it will take a pool
    tracker.admit([Wait("c3")], now=0)
    assert tracker.tail_jobs() == []  # admitted, not listed: it may still be refused and wait again
    tracker.observe([summary(spec, "c3")])
    assert tracker.tail_jobs() == [job_name(spec.fleet, c, RUN_KEY) for c in ("c1", "c2", "c3")]
    for name in tracker.tail_jobs():
        tracker.release_tail(name)
    assert tracker.tail_jobs() == []  # once each


def test_a_retry_after_the_groups_last_start_gets_keep_alive_zero_too() -> None:
    spec, book = hand_book("XXX")
    tracker = tracker_for(
        spec,
        book,
        [summary(spec, "c0", "Failed"), summary(spec, "c1", "Completed"), summary(spec, "c2", "Completed")],
    )
    tracker.observe([summary(spec, "c0", attempt=2)])
    assert tracker.tail_jobs() == [job_name(spec.fleet, "c0", RUN_KEY, 2)]


def test_jobs_created_without_keep_alive_need_no_update() -> None:
    spec, book = hand_book("XX", keep_alive=0)
    tracker = tracker_for(spec, book, [summary(spec, "c0"), summary(spec, "c1")])
    assert tracker.tail_jobs() == []


def test_carrying_pools_ends_none_early() -> None:
    spec, book = hand_book("XXX")
    listing = [summary(spec, "c0", "Completed", pool="Available"), summary(spec, "c1"), summary(spec, "c2")]
    tracker = RunTracker(book, run_job_names(spec, RUN_KEY), options=RunOptions(carry_pools=True))
    tracker.observe(listing, whole=True)
    assert tracker.tail_jobs() == []
    assert tracker.surplus_pools() == []
    plain = tracker_for(spec, book, listing)
    assert plain.tail_jobs() == [job_name(spec.fleet, c, RUN_KEY) for c in ("c1", "c2")]
    assert plain.surplus_pools() == [job_name(spec.fleet, "c0", RUN_KEY)]


def test_the_groups_last_city_is_created_without_keep_alive() -> None:
    spec, book = hand_book("XXXX")
    tracker = tracker_for(spec, book, [summary(spec, "c0", "Completed", pool="Reused"), summary(spec, "c1")])
    assert tracker.admit([Wait("c2"), Wait("c3")], now=0) == ["c2"]
    assert tracker.keep_alive_at_create("c2", 300) == 300  # c3 is still to come
    tracker.observe([summary(spec, "c2")])
    assert tracker.admit([Wait("c3")], now=1) == []
    tracker.observe([summary(spec, "c1", "Completed", pool="Available")])
    assert tracker.admit([Wait("c3")], now=2) == ["c3"]
    assert tracker.keep_alive_at_create("c3", 300) == 0  # admitted itself; nobody else is to come
    assert (
        tracker.keep_alive_at_create("c1", 300) == 300
    )  # c3 admitted, not listed: it may be refused, wait again
    # a retry after the last city's job is listed, and the same in a run that carries its pools
    tracker.observe([summary(spec, "c3"), summary(spec, "c1", "Failed")])
    assert tracker.keep_alive_at_create("c1", 300) == 0
    carrying = RunTracker(book, run_job_names(spec, RUN_KEY), options=RunOptions(carry_pools=True))
    carrying.observe([summary(spec, c) for c in ("c0", "c1", "c2", "c3")], whole=True)
    assert carrying.keep_alive_at_create("c1", 300) == 300


# ------------------------------------------------------------------------------------------ the plan's cold starts


def budget_book(cold_starts: int, n: int = 6, width: int = 3):
    """One warm-pool group of ``n`` cities (all image X), width ``width``, the plan starting ``cold_starts`` cold."""
    from dataclasses import replace

    spec, book = hand_book("X" * n, width=width)
    return spec, replace(book, cold_starts=MappingProxyType({"g0": cold_starts}))


def test_cold_starts_come_from_the_plan_not_the_width() -> None:
    spec, plan, book = one_group(n=8, instances=3, warm_pools=1)
    assert book.cold_starts == {"g0": sum(job.start == "cold" for job in plan.jobs)}
    assert book.widths["g0"] <= book.cold_starts["g0"] < 8


def test_a_city_waits_for_a_pool_once_the_plans_cold_starts_are_used() -> None:
    """Three cold starts planned, three started: c1 ended without a pool (the warm-pool quota was full), so c3
    would start cold — it waits for c0's or c2's pool instead, and says so."""
    spec, book = budget_book(cold_starts=3)
    listing = [summary(spec, "c0"), summary(spec, "c1", "Completed", pool="Terminated"), summary(spec, "c2")]
    tracker = tracker_for(spec, book, listing)
    assert tracker.admit([Wait("c3"), Wait("c4")], now=0) == []
    assert "waits for a warm pool of group g0" in tracker.waiting_reason(Wait("c3"), now=0)
    tracker.observe([summary(spec, "c0", "Completed", pool="Available")])
    assert tracker.admit([Wait("c3"), Wait("c4")], now=0) == ["c3"]  # on c0's pool


def test_without_the_budget_the_same_listing_started_a_city_cold() -> None:
    # a book without cold_starts: every cold start allowed, as before
    spec, book = hand_book("XXXXXX", width=3)
    listing = [summary(spec, "c0"), summary(spec, "c1", "Completed", pool="Terminated"), summary(spec, "c2")]
    assert tracker_for(spec, book, listing).admit([Wait("c3")], now=0) == ["c3"]


def test_warm_starts_do_not_use_the_cold_starts() -> None:
    """c3 took c0's pool (c0 shows Reused): three started, two of them cold, so one cold start is left."""
    spec, book = budget_book(cold_starts=3)
    listing = [
        summary(spec, "c0", "Completed", pool="Reused"),
        summary(spec, "c1", "Completed", pool="Terminated"),
        summary(spec, "c3"),
    ]
    tracker = tracker_for(spec, book, listing)
    assert tracker.admit([Wait("c2"), Wait("c4")], now=0) == ["c2"]  # the last cold start; c4 then waits


def test_lost_pools_do_not_shrink_the_group_for_good() -> None:
    """Found at 1,000 cities with the triggerer killed mid-run: one job of the group still ran, the others had ended
    without a pool, and every city with its turn waited for a pool — the group ran one job at a time from then on.
    Only as many cities wait as pools may come (c0's one); the others start cold. (Pools never kept — retained 0,
    as when the warm-pool quota refuses them — give no cold start back: next test.)"""
    spec, book = budget_book(cold_starts=3, n=8)
    listing = [
        summary(spec, "c0"),
        summary(spec, "c1", "Completed", pool="Terminated"),
        summary(spec, "c2", "Completed", pool="Terminated"),
    ]
    tracker = tracker_for(spec, book, listing)
    assert tracker.admit([Wait("c3"), Wait("c4")], now=0) == ["c4"]
    assert "waits for a warm pool of group g0" in tracker.waiting_reason(Wait("c3"), now=0)
    tracker.observe([summary(spec, "c0", "Completed", pool="Available"), summary(spec, "c4")])
    assert tracker.admit([Wait("c3")], now=1) == ["c3"]  # on c0's pool


def test_a_pool_that_idled_and_expired_gives_its_lane_a_cold_start_back() -> None:
    """The kill at 1,000 cities again: the pools of the jobs that ended while no triggerer ran idled and expired.
    Each such pool is a lane lost, so the group re-creates it with one cold start instead of running narrower for
    the rest of the run (1,309 s against 837 s, hand-off P50 22.6 s, when only the waiting was bounded)."""
    spec, book = budget_book(cold_starts=3, n=8)
    listing = [
        summary(spec, "c0"),
        summary(spec, "c1", "Completed", pool="Terminated", retained=610),
        summary(spec, "c2", "Completed", pool="Terminated", retained=0),  # never kept: no lane to re-create
    ]
    tracker = tracker_for(spec, book, listing)
    assert tracker.admit([Wait("c3"), Wait("c4")], now=0) == ["c3"]  # c1's lane, cold; c4 waits for c0's pool
    assert "waits for a warm pool of group g0" in tracker.waiting_reason(Wait("c4"), now=0)


def test_a_city_starts_cold_when_no_pool_can_come() -> None:
    """The cold starts are used, but nothing of the group runs and no pool is Available: waiting would be for
    nothing, so the city starts cold."""
    spec, book = budget_book(cold_starts=2)
    listing = [
        summary(spec, "c0", "Completed", pool="Terminated"),
        summary(spec, "c1", "Failed"),
    ]
    tracker = tracker_for(spec, book, listing)
    assert tracker.admit([Wait("c2")], now=0) == ["c2"]


def test_retries_and_carried_pools_are_not_held_back() -> None:
    spec, book = budget_book(cold_starts=2)
    listing = [summary(spec, "c0"), summary(spec, "c1", "Failed")]
    tracker = tracker_for(spec, book, listing)
    assert tracker.admit([Wait("c1", attempt=2, first=False)], now=0) == ["c1"]  # a retry had its turn
    carrying = RunTracker(book, run_job_names(spec, RUN_KEY), options=RunOptions(carry_pools=True))
    carrying.observe(listing, whole=True)
    assert carrying.admit([Wait("c2")], now=0) == ["c2"]
