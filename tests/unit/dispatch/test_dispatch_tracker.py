"""The dispatch core: the book read from a plan, and the tracker's rule over ListTrainingJobs summaries."""

from __future__ import annotations

import datetime as dt
import random
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from sagemaker_fleet.aws.progress import run_job_names
from sagemaker_fleet.dispatch import DispatchBook, RunTracker, Wait, peak_lanes
from sagemaker_fleet.dispatch.tracker import CREATION_MARGIN
from sagemaker_fleet.plan import plan_fleet
from sagemaker_fleet.spec.model import InstanceQuota
from sagemaker_fleet.spec.names import job_name
from unit.plan.plan_fleets import RUN_KEY, city, fleet, role, spot

T0 = dt.datetime(2026, 11, 29, 6, 0, tzinfo=dt.UTC)


def one_group(n: int = 8, instances: int = 3, warm_pools: int = 3):
    spec = fleet([city(f"c{i}", 600 + 10 * i) for i in range(n)],
                 quotas={"ml.m5.xlarge": InstanceQuota(instances=instances, warm_pools=warm_pools)})
    plan = plan_fleet(spec, RUN_KEY)
    return spec, plan, DispatchBook.from_plan(plan, spec)


def summary(spec, city_name: str, status: str = "InProgress", attempt: int = 1, pool: str | None = None,
            created: dt.datetime = T0) -> dict:
    job = {"TrainingJobName": job_name(spec.fleet, city_name, RUN_KEY, attempt), "TrainingJobStatus": status,
           "CreationTime": created}
    if pool:
        job["WarmPoolStatus"] = {"Status": pool}
    return job


def tracker_for(spec, book, listing=()) -> RunTracker:
    tracker = RunTracker(book, run_job_names(spec, RUN_KEY))
    tracker.observe(listing, whole=True)
    return tracker


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
    spec = fleet([city("a", spot=spot()), city("b")],
                 quotas={"ml.m5.xlarge": InstanceQuota(instances=4, warm_pools=2, spot_instances=2)})
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
    tracker = tracker_for(spec, book, [summary(spec, cities[0], "Failed"), *(summary(spec, c) for c in cities[1:3])])
    assert tracker.admit([Wait(cities[0], attempt=2, first=False)], now=0) == [cities[0]]


def test_quota_counts_running_jobs_and_idle_pools_of_other_groups() -> None:
    spec = fleet([city(f"a{i}") for i in range(3)] + [city(f"b{i}", role_arn=role(1)) for i in range(3)],
                 quotas={"ml.m5.xlarge": InstanceQuota(instances=2, warm_pools=2)})
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
        "waits for room in the ml.m5.xlarge instances quota (running jobs and idle pools)")


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
    tracker.observe([summary(spec, cities[0], "Completed", created=T0),
                     summary(spec, cities[1], "InProgress", created=later)], whole=True)
    assert tracker.window_start() == later - CREATION_MARGIN
    tracker.observe([summary(spec, cities[0], "Completed", pool="Available", created=T0)])
    assert tracker.window_start() == T0 - CREATION_MARGIN  # an idle pool can still change
    tracker.observe([summary(spec, cities[0], "Completed", pool="Reused", created=T0),
                     summary(spec, cities[1], "Completed", created=later)])
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

    plan: Any = SimpleNamespace(lanes=[
        lane("g0", 0, 100), lane("g0", 50, 150),  # overlap: 2 at once
        lane("g0", 100, 200),  # starts the second the first ends: still 2, not 3
        lane("g0", 120, 130, jobs=0),  # an empty lane runs nothing
        lane("g1", 0, 500), lane("g1", 0, 500), lane("g1", 0, 500),  # another group's lanes do not count
    ])
    assert peak_lanes(plan, "g0") == 2
    assert peak_lanes(plan, "g1") == 3
    assert peak_lanes(plan, "g9") == 1  # a group without lanes still has width 1
