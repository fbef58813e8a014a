"""Other runs' jobs of the account: what they hold of its quotas, which of their pools match the run's groups, and
the dispatch rule that counts them (a run that counted only its own jobs met ResourceLimitExceeded beside another)."""

from __future__ import annotations

import datetime as dt
from typing import Any

from sagemaker_fleet.dispatch import DispatchBook, RunTracker, Wait, build_run_dispatch
from sagemaker_fleet.dispatch.account import DESCRIBES_PER_SWEEP, AccountView
from sagemaker_fleet.dispatch.cadence import Cadence
from sagemaker_fleet.dispatch.sweep import Listing, RunSweeps
from sagemaker_fleet.fleetspec.model import InstanceQuota
from sagemaker_fleet.jobs.keys import city_key
from sagemaker_fleet.jobs.progress import run_job_names
from sagemaker_fleet.plan import plan_fleet
from unit.dispatch.test_dispatch_tracker import RUN_KEY, T0, summary
from unit.plan.plan_fleets import city, fleet, role

CLAIM_AFTER_SECONDS = Cadence().claim_after_seconds
RECHECK_SECONDS = Cadence().recheck_seconds

OWN: frozenset[str] = frozenset()


def other(
    name: str, status: str = "InProgress", pool: str | None = None, created: dt.datetime = T0
) -> dict[str, Any]:
    job: dict[str, Any] = {"TrainingJobName": name, "TrainingJobStatus": status, "CreationTime": created}
    if pool:
        job["WarmPoolStatus"] = {"Status": pool}
    return job


def described(
    job: dict[str, Any], instance_type: str = "ml.m5.xlarge", count: int = 1, spot: bool = False, **extra: Any
) -> dict[str, Any]:
    return {
        **job,
        "RoleArn": extra.get("role", role(0)),
        "ResourceConfig": {"InstanceType": instance_type, "InstanceCount": count, "VolumeSizeInGB": 30},
        "EnableManagedSpotTraining": spot,
    }


def run(n: int = 6, instances: int = 4, warm_pools: int = 4, **quota: Any):
    spec = fleet(
        [city(f"c{i}", 600 + 10 * i) for i in range(n)],
        quotas={"ml.m5.xlarge": InstanceQuota(instances=instances, warm_pools=warm_pools, **quota)},
    )
    book = DispatchBook.from_plan(plan_fleet(spec, RUN_KEY), spec)
    sweeps = build_run_dispatch(book, run_job_names(spec, RUN_KEY))
    assert sweeps.tracker is not None
    assert sweeps.account is not None
    sweeps.tracker.observe([], whole=True)
    return spec, book, sweeps


def seen(sweeps: RunSweeps, jobs: list[dict[str, Any]], now: float = 0.0) -> list[str]:
    """One sweep's listing of the account; every job it asks for is described as ``jobs`` say."""
    listing = Listing(None, whole=True, account=True)
    names = sweeps._foreign(listing, [{k: v for k, v in j.items() if k in SUMMARY} for j in jobs], now)
    by_name = {j["TrainingJobName"]: j for j in jobs}
    for name in names:
        sweeps._foreign_described(name, by_name.get(name), now)
    return names


def one_of_two_instances_running() -> tuple[RunSweeps, RunTracker, AccountView, list[str]]:
    """A run of six cities of one group on an account of 2 instances, its first city running."""
    spec, book, sweeps = run(n=6, instances=2)
    tracker, view = sweeps.tracker, sweeps.account
    assert tracker is not None
    assert view is not None
    cities = list(book.members["g0"])
    tracker.observe([summary(spec, cities[0])])
    return sweeps, tracker, view, cities


SUMMARY = {"TrainingJobName", "TrainingJobStatus", "CreationTime", "WarmPoolStatus"}


# ------------------------------------------------------------------------------------------ the view


def test_running_jobs_and_idle_pools_of_other_runs_hold_instances_once_described() -> None:
    view = AccountView()
    view.observe(
        [other("a"), other("b", "Completed", "Available"), other("c", "Completed", "Terminated")], 0, own=OWN
    )
    assert view.held(()) == {}  # summaries carry no instance type: nothing is known yet
    assert sorted(view.to_describe(0, None)) == ["a", "b"]  # a settled job is of no interest
    view.described("a", described(other("a"), count=2), 0)
    view.described("b", described(other("b", "Completed", "Available")), 0)
    assert view.held(()) == {("ml.m5.xlarge", "instances"): 3}
    assert view.to_describe(1, None) == []  # described once, then the listings keep it current
    view.observe([other("a", "Completed", "Terminated")], 2, own=OWN)
    assert view.held(()) == {("ml.m5.xlarge", "instances"): 1}
    assert "a" not in view.jobs  # it holds nothing any more: forgotten


def test_a_spot_job_draws_on_the_spot_quota_only_where_the_run_has_one() -> None:
    view = AccountView()
    view.observe([other("s")], 0, own=OWN)
    view.described("s", described(other("s"), spot=True), 0)
    assert view.held(()) == {("ml.m5.xlarge", "instances"): 1}
    assert view.held({"ml.m5.xlarge"}) == {("ml.m5.xlarge", "spot_instances"): 1}


def test_the_runs_own_jobs_are_not_counted_twice() -> None:
    view = AccountView()
    view.observe([other("mine"), other("theirs")], 0, own={"mine"})
    assert list(view.jobs) == ["theirs"]


def test_a_job_older_than_the_listing_is_described_again_now_and_then() -> None:
    view = AccountView()
    view.observe([other("old", created=T0)], 0, own=OWN)
    view.described("old", described(other("old")), 0)
    later = T0 + dt.timedelta(hours=1)
    assert view.to_describe(RECHECK_SECONDS - 1, later) == []
    assert view.to_describe(RECHECK_SECONDS, later) == ["old"]  # the listing no longer covers it
    assert view.to_describe(RECHECK_SECONDS, T0 - dt.timedelta(minutes=5)) == []  # it does: no describe
    view.described("old", None, RECHECK_SECONDS)  # gone
    assert view.held(()) == {}


def test_describes_per_sweep_are_bounded() -> None:
    view = AccountView()
    view.observe([other(f"j{i}") for i in range(DESCRIBES_PER_SWEEP + 5)], 0, own=OWN)
    assert len(view.to_describe(0, None)) == DESCRIBES_PER_SWEEP


def test_the_census_lists_running_jobs_and_idle_pools_once() -> None:
    view = AccountView()
    floor = T0
    filters = view.census_filters(floor)
    assert {
        "status_equals": "InProgress",
        "creation_time_after": floor - dt.timedelta(days=28, hours=6),
    } in filters
    assert {"warm_pool_status_equals": "Available"} in filters
    view.observe([], 0, own=OWN, census=True)
    assert view.census_filters(floor) == []


# ------------------------------------------------------------------------------------------ the rule


def test_instances_other_runs_hold_are_not_admitted_into() -> None:
    spec, book, sweeps = run(n=6, instances=4)
    tracker = sweeps.tracker
    assert tracker is not None
    cities = list(book.members["g0"])
    width = book.widths["g0"]
    assert width == 4
    # another fleet runs three jobs on the same type: one instance is left
    seen(sweeps, [described(other(f"x{i}")) for i in range(3)])
    assert tracker.admit([Wait(c) for c in cities], now=0) == cities[:1]
    assert "quota" in tracker.waiting_reason(Wait(cities[1]), now=0)
    # two of them end without a pool: two more of ours start
    seen(sweeps, [described(other("x0", "Completed")), described(other("x1", "Completed"))])
    assert tracker.admit([Wait(c) for c in cities[1:]], now=1) == cities[1:3]


def test_another_runs_idle_pool_of_the_groups_key_is_a_warm_start_not_new_instances() -> None:
    spec, book, sweeps = run(n=6, instances=2)
    tracker = sweeps.tracker
    assert tracker is not None
    (key,) = {city_key(c) for c in spec.cities}
    assert book.keys["g0"] == key
    cities = list(book.members["g0"])
    tracker.observe([summary(spec, cities[0])])  # one of ours runs
    # the other fleet's job of the same key left a pool: the account is full (1 + 1 of 2)
    pool = described(other("x0", "Completed", "Available"))
    seen(sweeps, [pool])
    assert sweeps.account is not None
    # first its own run may take it (its next city does in the sweep that sees it free): ours waits, and starts no
    # job of that key cold either (SageMaker would put it on that pool)
    assert sweeps.account.idle_pools() == {}
    assert sweeps.account.idle_pools(claimable=False) == {key: 1}
    assert tracker.admit([Wait(c) for c in cities[1:]], now=0) == []
    later = CLAIM_AFTER_SECONDS
    seen(sweeps, [pool], now=later)  # a second listing shows it still Available: its run did not want it
    assert sweeps.account.idle_pools() == {key: 1}
    # our next city takes that pool (SageMaker matches by key): it needs no new instance
    assert tracker.admit([Wait(c) for c in cities[1:]], now=later) == cities[1:2]
    # a pool of another key (another role) is not ours to take: nothing more starts
    other_key = described(other("y0", "Completed", "Available"), role="arn:aws:iam::1:role/other")
    seen(sweeps, [pool, other_key], now=later + 1)
    assert tracker.admit([Wait(c) for c in cities[2:]], now=later + 1) == []


def test_while_another_runs_pool_of_the_key_is_its_own_to_take_no_city_of_the_key_starts_cold() -> None:
    """Room for a cold start, but another run's pool of the key turned Available this listing: a cold create now
    would be put on that pool by SageMaker, and the other run's next city — admitted to take it — would need an
    instance the account may not have (ResourceLimitExceeded). So ours waits one listing."""
    spec, book, sweeps = run(n=6, instances=4)
    tracker = sweeps.tracker
    assert tracker is not None
    cities = list(book.members["g0"])
    seen(sweeps, [described(other("x0", "Completed", "Available"))])
    assert tracker.admit([Wait(cities[0])], now=0) == []
    seen(sweeps, [described(other("x0", "Completed", "Reused"))])  # its run took it
    assert tracker.admit([Wait(cities[0])], now=1) == cities[:1]  # cold, on a new instance


def test_two_quick_looks_are_not_enough_to_take_another_runs_pool() -> None:
    """A run that sweeps every second saw another run's pool Available twice within a second — before that run,
    its sweeps slowed by throttling, handed it to its own next city, which was then refused. Two looks over at least
    CLAIM_AFTER_SECONDS (the longest a run with cities waiting goes between sweeps) are needed."""
    sweeps, tracker, view, cities = one_of_two_instances_running()
    pool = described(other("x0", "Completed", "Available"))
    for now in (0.0, 1.0, 2.0, CLAIM_AFTER_SECONDS - 0.5):
        seen(sweeps, [pool], now=now)
        assert view.idle_pools() == {}, now
        assert tracker.admit([Wait(c) for c in cities[1:]], now=now) == []
    seen(sweeps, [pool], now=CLAIM_AFTER_SECONDS)
    assert tracker.admit([Wait(c) for c in cities[1:]], now=CLAIM_AFTER_SECONDS) == cities[1:2]
    # a pool that went Reused in between starts its count again
    seen(sweeps, [described(other("x1", "Completed", "Available"))], now=20)
    seen(sweeps, [described(other("x1", "Completed", "Reused"))], now=25)
    seen(sweeps, [described(other("x1", "Completed", "Available"))], now=31)
    assert view.jobs["x1"].available_since == 31
    assert not view.jobs["x1"].claimable_at(40, CLAIM_AFTER_SECONDS)


def test_a_pool_older_than_the_listing_gets_its_second_look_after_the_claim_time_not_the_recheck() -> None:
    """The listing does not show a pool whose job is older than its window: its looks are descriptions. Its second
    look comes CLAIM_AFTER_SECONDS after the first, not RECHECK_SECONDS (60 s) later."""
    sweeps, tracker, view, cities = one_of_two_instances_running()
    pool = described(other("x0", "Completed", "Available", created=T0 - dt.timedelta(hours=1)))
    seen(sweeps, [pool], now=0)  # known, described: one look
    after = Listing(T0, whole=False, account=True)
    assert sweeps._foreign(after, [], 5) == []
    assert sweeps._foreign(after, [], CLAIM_AFTER_SECONDS) == ["x0"]  # its second look is due
    sweeps._foreign_described("x0", pool, CLAIM_AFTER_SECONDS)
    assert view.idle_pools() != {}
    assert tracker.admit([Wait(c) for c in cities[1:]], now=CLAIM_AFTER_SECONDS) == cities[1:2]
    assert sweeps._foreign(after, [], CLAIM_AFTER_SECONDS + 1) == []  # claimable: no more looks than before


def test_another_runs_pool_not_seen_in_this_sweep_holds_instances_but_is_no_warm_start() -> None:
    """A pool older than the listing is known from an earlier description only: another run's city may have taken
    it since. It still counts as held (never over-admit), but no city is admitted to take it — that city met
    ResourceLimitExceeded when the pool was gone (simulate of two fleets on one account: 13 refusals)."""
    sweeps, tracker, view, cities = one_of_two_instances_running()
    pool = described(other("x0", "Completed", "Available", created=T0 - dt.timedelta(hours=1)))
    seen(sweeps, [pool], now=0)
    seen(sweeps, [pool], now=CLAIM_AFTER_SECONDS)  # two listings over 10 s: its own run let it go
    assert view.idle_pools() != {}
    # the next sweep lists from after the pool's job: it is not in the listing, nor described again yet
    after = Listing(T0, whole=False, account=True)
    assert sweeps._foreign(after, [], 11) == []
    assert view.held(()) == {("ml.m5.xlarge", "instances"): 1}
    assert view.idle_pools() == {}
    assert tracker.admit([Wait(c) for c in cities[1:]], now=11) == []
    # described again (RECHECK_SECONDS on), still Available: a warm start again
    assert sweeps._foreign(after, [], 11 + RECHECK_SECONDS) == ["x0"]
    sweeps._foreign_described("x0", pool, 11 + RECHECK_SECONDS)
    assert tracker.admit([Wait(c) for c in cities[1:]], now=11 + RECHECK_SECONDS) == cities[1:2]


def test_a_refused_create_fills_the_quota_until_the_next_listing() -> None:
    """After ResourceLimitExceeded the view missed something (another run's city admitted in the same second):
    the refused city's place does not go to the next city, which would be refused too (ten in a row were)."""
    spec, book, sweeps = run(n=6, instances=4)
    tracker, view = sweeps.tracker, sweeps.account
    assert tracker is not None
    assert view is not None
    cities = list(book.members["g0"])
    pool = described(other("x0", "Completed", "Available"))
    seen(sweeps, [pool], now=-CLAIM_AFTER_SECONDS)
    seen(sweeps, [pool])  # two listings over 10 s: its own run let it go
    assert tracker.admit([Wait(cities[0])], now=0) == cities[:1]
    view.refused(("ml.m5.xlarge", "instances"))
    tracker.release(cities[0])
    assert view.idle_pools() == {}
    assert tracker.admit([Wait(c) for c in cities], now=0) == []
    assert "quota" in tracker.waiting_reason(Wait(cities[0]), now=0)
    seen(sweeps, [pool], now=10)  # the next listing
    assert tracker.admit([Wait(c) for c in cities], now=10) == cities[:4]


def test_after_a_refusal_the_runs_own_idle_pool_is_not_handed_on_until_the_next_listing() -> None:
    """Another run's city took the run's idle pool between its listings (the owner's sweep came late): the city
    handed that pool needs new instances and is refused; the next city was then handed the same pool, and refused
    in turn (4 refusals a city in an e2e run). After a refusal the quota's idle pools wait for the next listing."""
    spec, book, sweeps = run(n=6, instances=2, warm_pools=2)
    tracker = sweeps.tracker
    assert tracker is not None
    assert sweeps.account is not None
    cities = list(book.members["g0"])
    first, second = cities[0], cities[1]
    tracker.observe([summary(spec, first, "Completed", pool="Available"), summary(spec, second)], whole=True)
    waiting = [Wait(c) for c in cities[2:4]]
    admitted = tracker.admit(waiting, now=0)
    assert len(admitted) == 1  # handed the idle pool (the quota's other instance runs ``second``)
    sweeps.account.refused(("ml.m5.xlarge", "instances"))  # the pool was gone: new instances, none free
    tracker.release(admitted[0])
    assert tracker.admit(waiting, now=1) == []  # not handed the same pool again
    tracker.observe([summary(spec, first, "Completed", pool="Available"), summary(spec, second)], whole=True)
    seen(sweeps, [], now=10)  # the next listing (still Available: its own to hand on again)
    assert len(tracker.admit(waiting, now=10)) == 1


def test_a_run_without_a_plan_lists_only_its_own_jobs() -> None:
    sweeps = build_run_dispatch(DispatchBook.empty(), {})
    assert sweeps.account is None
    assert not sweeps._listing().account
    assert sweeps._census() == []
    _, _, planned = run()
    assert planned._listing().account
    assert len(planned._census()) == 2


def test_an_older_job_of_a_type_the_runs_cities_wait_for_is_looked_at_every_sweep() -> None:
    """Another run's job older than the listing is described again every RECHECK_SECONDS; while the run's cities
    wait for room of its instance type, every sweep (the shell's interval, at most the hand-off interval), so the
    instance it frees goes to them at the next sweep: at a minute, two runs that started together left instances
    idle (through real Airflow, small+big: 1-3 of 12 for ~36 s real after the big fleet's first jobs ended)."""
    sweeps, tracker, view, cities = one_of_two_instances_running()
    older = T0 - dt.timedelta(hours=1)
    theirs = described(other("x0", created=older))
    c5 = described(other("x1", created=older), instance_type="ml.c5.xlarge")
    seen(sweeps, [theirs, c5], now=0)  # known, described
    after = Listing(T0, whole=False, account=True)
    assert sweeps._foreign(after, [], 2, every=2) == []  # no city waits for room yet
    assert tracker.admit([Wait(c) for c in cities[1:]], now=2) == []  # one running, x0 holds the other
    assert tracker.short_of == {"ml.m5.xlarge"}
    assert sweeps._foreign(after, [], 3, every=2) == ["x0"]  # due at the sweep's interval; not the c5 job
    sweeps._foreign_described("x0", {**theirs, "TrainingJobStatus": "Completed"}, 3)  # it ended: room
    assert tracker.admit([Wait(c) for c in cities[1:]], now=3) == cities[1:2]
    assert tracker.short_of == frozenset()  # the next city waits for its turn, not for room
    assert sweeps._foreign(after, [], 6, every=2) == []
    assert sweeps._foreign(after, [], RECHECK_SECONDS, every=2) == ["x1"]  # the c5 job: every minute


def test_the_hand_off_interval_bounds_how_often_an_older_job_is_looked_at() -> None:
    sweeps, tracker, view, cities = one_of_two_instances_running()
    theirs = described(other("x0", created=T0 - dt.timedelta(hours=1)))
    seen(sweeps, [theirs], now=0)
    tracker.admit([Wait(c) for c in cities[1:]], now=0)
    after = Listing(T0, whole=False, account=True)
    assert sweeps._foreign(after, [], sweeps.cadence.handoff_interval - 1, every=RECHECK_SECONDS) == []
    assert sweeps._foreign(after, [], sweeps.cadence.handoff_interval, every=RECHECK_SECONDS) == ["x0"]


def test_a_pool_described_as_reused_holds_its_instances_until_a_listing_shows_the_new_job() -> None:
    """A description comes after the sweep's listing: the job that took the pool may have been created since, and
    no listing shows it yet. Its instances are not free: they are that job's until a listing shows it."""
    view = AccountView()
    older = T0 - dt.timedelta(hours=1)
    view.observe([other("x0", created=older)], 0, own=OWN)
    view.described("x0", described(other("x0", created=older)), 0)
    reused = {"Status": "Reused", "ReusedByJob": "x1"}
    view.described("x0", {**described(other("x0", "Completed", created=older)), "WarmPoolStatus": reused}, 5)
    assert "x0" not in view.jobs
    assert view.held(()) == {("ml.m5.xlarge", "instances"): 1}  # x1's, not listed yet
    view.observe([other("x1", "Completed", created=T0)], 6, own=OWN)  # the listing shows it, ended
    assert view.held(()) == {}
    # the run's own job took it: the run's tracker counts that one
    view.observe([other("x2", created=older)], 7, own=OWN)
    view.described("x2", described(other("x2", created=older)), 7)
    mine = {"Status": "Reused", "ReusedByJob": "mine"}
    view.described("x2", {**described(other("x2", "Completed")), "WarmPoolStatus": mine}, 8, own={"mine"})
    assert view.held(()) == {}
