"""Shares and priorities between the runs of one account (the board's records, the ranking, and the tracker that keeps
to them): a run ranked after another leaves it the room it waits for, a group hands its pools on only so often
while such a run waits, and a run with no city left of a key keeps its pools for the other run's cities."""

from __future__ import annotations

import math
from typing import Any

import pytest

from sagemaker_fleet.dispatch import DispatchBook, Wait, build_run_dispatch
from sagemaker_fleet.dispatch.board import (
    RunDemand,
    ShareBoard,
    key_digest,
)
from sagemaker_fleet.dispatch.cadence import Cadence
from sagemaker_fleet.dispatch.holdings import cold_budget, holdings
from sagemaker_fleet.dispatch.sweep import Listing, RunSweeps
from sagemaker_fleet.fleetspec.model import InstanceQuota, SharingSettings
from sagemaker_fleet.jobs.progress import run_job_names
from sagemaker_fleet.plan import plan_fleet
from unit.dispatch.test_dispatch_tracker import RUN_KEY, summary
from unit.plan.plan_fleets import city, fleet

CADENCE = Cadence()

Q = "ml.m5.xlarge/instances"
BOARD = "s3://acme-ml/sagemaker-fleet/board/"


def sharing(share: float = 0.0, priority: int = 0) -> SharingSettings:
    return SharingSettings(share, priority, BOARD)


def record(fleet_name: str, **values: Any) -> dict[str, Any]:
    return RunDemand(fleet_name, "20261129", **{"posted": 1000.0, **values}).to_json()


# ------------------------------------------------------------------------------------------ records and ranking


def test_a_record_round_trips_and_anything_else_is_skipped() -> None:
    demand = RunDemand("daily", "20261129", 0.4, 7, {Q: 3}, {Q: 2}, {Q: 1}, {"k": 2}, ("g",), 5.0)
    assert RunDemand.from_json(demand.to_json()) == demand
    for bad in (
        None,
        [],
        {"version": 99},
        {**demand.to_json(), "held": "three"},
        {**demand.to_json(), "posted": "x"},
    ):
        assert RunDemand.from_json(bad) is None


def test_a_record_owns_its_runs_jobs_only() -> None:
    demand = RunDemand("daily", "20261129")
    assert demand.owns("daily-paris-20261129")
    assert demand.owns("daily-paris-20261129-r2")
    assert not demand.owns("weekly-paris-20261129")
    assert not demand.owns("daily-paris-20261130")


def test_within_share_then_priority_then_furthest_below_share_then_name() -> None:
    within = RunDemand("a", "k", share=0.5, held={Q: 2})  # 3 of its 5 guaranteed
    borrowing_high = RunDemand("b", "k", share=0.1, priority=9, held={Q: 6})
    borrowing_low = RunDemand("c", "k", share=0.5, held={Q: 7})
    no_share = RunDemand("d", "k", held={Q: 0})
    ranks = sorted([no_share, borrowing_low, borrowing_high, within], key=lambda r: r.rank(Q, 10))
    assert [r.fleet for r in ranks] == ["a", "b", "c", "d"]
    # equal priority, both borrowing: the one furthest below its share first
    assert RunDemand("x", "k", share=0.5, held={Q: 6}).rank(Q, 10) < RunDemand(
        "y", "k", share=0.2, held={Q: 3}
    ).rank(Q, 10)


def test_reserve_is_what_the_runs_ranked_before_this_one_wait_for() -> None:
    board = ShareBoard("big", "20261129", sharing(0.0))
    board.read(
        [record("small", share=0.4, blocked={Q: 3}), record("other", share=0.0, held={Q: 9}, blocked={Q: 5})],
        0,
        1000,
    )
    assert board.reserve(Q, 12) == 3  # "other" borrows like this run, and holds more: it comes after
    board.read([record("small", share=0.4, blocked={Q: 30})], 0, 1000)
    assert board.reserve(Q, 12) == 12  # never more than the quota
    board.read([record("small", share=0.4)], 0, 1000)
    assert board.reserve(Q, 12) == 0  # idle capacity is borrowed by whoever has work


def test_stale_and_own_records_are_skipped() -> None:
    board = ShareBoard("big", "20261129", sharing())
    board.read(
        [record("small", blocked={Q: 2}), record("big", blocked={Q: 9})], 0, 1000 + CADENCE.stale_seconds + 1
    )
    assert board.others == {}
    board.read(
        [record("small", blocked={Q: 2}), record("big", blocked={Q: 9})], 0, 1000 + CADENCE.stale_seconds
    )
    assert list(board.others) == [("small", "20261129")]


def test_a_viewer_ranks_the_run_by_its_own_record_on_the_board_and_not_by_a_stale_one() -> None:
    records = [record("small", blocked={Q: 2}), record("big", held={Q: 3})]
    viewer = ShareBoard("big", "20261129", sharing())
    viewer.read_as_viewer(records, 0, 1000 + CADENCE.stale_seconds)
    assert list(viewer.others) == [("small", "20261129")]
    assert viewer.ready  # the run's triggerer has posted: it ranks, and the viewer sees it as ranked
    assert viewer.last is not None
    assert viewer.last.held == {Q: 3}
    late = ShareBoard("big", "20261129", sharing())
    late.read_as_viewer(records, 0, 1000 + CADENCE.stale_seconds + 1)
    assert (late.others, late.last, late.ready) == ({}, None, False)  # no triggerer runs it any more


def test_a_record_is_posted_when_it_changes_or_at_the_heartbeat() -> None:
    board = ShareBoard("big", "20261129", sharing(0.5, 3))
    first = board.to_post(0, 1000)
    assert first is not None
    assert first["share"] == 0.5
    assert first["priority"] == 3
    board.posted(first, 0)
    assert board.to_post(1, 1001) is None
    assert board.to_post(CADENCE.heartbeat_seconds, 1030) is not None
    board.update(RunDemand("big", "20261129", 0.5, 3, blocked={Q: 1}))
    assert board.to_post(2, 1002) is not None
    assert board.object_key == "sagemaker-fleet/board/big/20261129.json"
    assert (board.bucket, board.prefix) == ("acme-ml", "sagemaker-fleet/board/")


# ------------------------------------------------------------------------------------------ the tracker


def run(
    n: int = 6,
    instances: int = 4,
    warm_pools: int = 4,
    share: float = 0.0,
    priority: int = 0,
    *,
    name: str = "demo",
    settled: bool = True,
):
    """A run of a fleet with ``sharing``; ``settled``: long past its start (its first record read by the others)."""
    spec = fleet(
        [city(f"c{i}", 900 - 10 * i) for i in range(n)],  # c0 the longest: first in start order
        quotas={"ml.m5.xlarge": InstanceQuota(instances=instances, warm_pools=warm_pools)},
        sharing=sharing(share, priority),
        fleet=name,
    )
    book = DispatchBook.from_plan(plan_fleet(spec, RUN_KEY), spec)
    sweeps = build_run_dispatch(book, run_job_names(spec, RUN_KEY))
    assert sweeps.board is not None
    if settled:
        sweeps.board.first_post = -math.inf
    assert sweeps.tracker is not None
    assert sweeps.tracker.shares is not None
    return spec, book, sweeps


def sweep(sweeps: RunSweeps, jobs: list[dict[str, Any]], waiting: list[Wait], now: float = 0.0) -> list[str]:
    listing = Listing(None, whole=True, account=True)
    sweeps._foreign(listing, [], now)
    return list(sweeps._listed(listing, jobs, now, waiting).admitted)


def test_a_run_leaves_the_room_a_run_ranked_before_it_waits_for_and_posts_what_it_waits_for() -> None:
    spec, book, sweeps = run(n=6, instances=4, share=0.0)
    assert sweeps.board is not None
    waits = [Wait(c) for c in ("c0", "c1", "c2", "c3")]
    sweeps._board_records([record("small", share=0.5, blocked={Q: 2}, need={Q: 1})], 0, 1000)
    admitted = sweep(sweeps, [], waits)
    assert len(admitted) == 2  # 4 instances, 2 left to the run ranked before it
    post = sweeps._board_post(0, 1000)
    assert post is not None
    bucket, key, body = post
    assert (bucket, key) == ("acme-ml", f"sagemaker-fleet/board/demo/{RUN_KEY}.json")
    assert body["held"] == {Q: 2}
    assert body["blocked"] == {Q: 2}
    assert body["wants"] == {key_digest(book.keys["g0"]): 2}
    reason = sweeps.tracker.waiting_reason(Wait("c2"), 0)  # type: ignore[union-attr]
    assert "2 instance(s) go first to runs ranked before this one" in reason
    # the other run no longer waits: its room is this run's again
    sweeps._board_records([record("small", share=0.5)], 10, 1010)
    assert (
        len(sweep(sweeps, [summary(spec, c) for c in admitted], [w for w in waits if w.city not in admitted]))
        == 2
    )


def test_a_run_within_its_share_does_not_wait_for_a_borrower() -> None:
    _, _, sweeps = run(n=6, instances=4, share=0.5)
    sweeps._board_records([record("big", share=0.0, held={Q: 0}, blocked={Q: 4})], 0, 1000)
    assert len(sweep(sweeps, [], [Wait(c) for c in ("c0", "c1", "c2", "c3")])) == 4


def test_a_group_hands_its_pools_on_once_per_lane_while_a_run_ranked_before_it_waits_then_yields() -> None:
    spec, book, sweeps = run(n=8, instances=2, warm_pools=2)
    tracker = sweeps.tracker
    assert tracker is not None
    assert tracker.shares is not None
    assert book.widths["g0"] == 2
    sweep(sweeps, [], [Wait("c0"), Wait("c1")])
    sweeps._board_records([record("small", share=0.5, blocked={Q: 1})], 0, 1000)
    jobs = [
        summary(spec, "c0", "Completed", pool="Available"),
        summary(spec, "c1", "Completed", pool="Available"),
    ]
    admitted = sweep(sweeps, jobs, [Wait("c2"), Wait("c3")])
    assert admitted == ["c2", "c3"]  # one hand-on per lane: the group's pools are still its own
    assert tracker.shares.yielding == {"g0"}
    jobs = [
        summary(spec, "c0", "Completed", pool="Reused"),
        summary(spec, "c1", "Completed", pool="Reused"),
        summary(spec, "c2", "Completed", pool="Available"),
        summary(spec, "c3", "InProgress"),
    ]
    assert sweep(sweeps, jobs, [Wait("c4"), Wait("c5")]) == []  # it yields: no hand-on, no room
    assert tracker.surplus_pools() == [f"demo-c2-{RUN_KEY}"]  # ended, so its instances go to the other run
    # the other run waits for this key: the pool is left to it instead, and offered on the board
    digest = key_digest(book.keys["g0"])
    sweeps._board_records([record("small", share=0.5, blocked={Q: 1}, wants={digest: 1})], 10, 1010)
    sweep(sweeps, jobs, [Wait("c4"), Wait("c5")], now=10)
    assert tracker.surplus_pools() == []
    post = sweeps._board_post(10, 1010)
    assert post is not None
    assert post[2]["gives"] == [digest]
    # nobody waits any more: the group has its pools back
    sweeps._board_records([record("small", share=0.5)], 20, 1020)
    assert len(sweep(sweeps, jobs, [Wait("c4"), Wait("c5")], now=20)) == 1  # one takes the pool again
    assert tracker.shares.yielding == set()


def test_a_group_gives_its_key_away_only_once_its_cities_handed_a_pool_are_listed() -> None:
    """The pass that hands the group's last owed pools on makes it yield; its record says so only once a listing
    shows those cities' jobs: until their creates, another run's listing (or description) still shows the pools
    Available, and taking one of them there met ResourceLimitExceeded (simulate, two runs sweeping in the same
    instant: 1 refusal)."""
    spec, book, sweeps = run(n=8, instances=2, warm_pools=2)
    tracker = sweeps.tracker
    assert tracker is not None
    assert tracker.shares is not None
    digest = key_digest(book.keys["g0"])
    sweep(sweeps, [], [Wait("c0"), Wait("c1")])
    sweeps._board_records([record("small", share=0.5, blocked={Q: 1}, wants={digest: 1})], 0, 1000)
    ended = [
        summary(spec, "c0", "Completed", pool="Available"),
        summary(spec, "c1", "Completed", pool="Available"),
    ]
    assert sweep(sweeps, ended, [Wait("c2"), Wait("c3")]) == ["c2", "c3"]  # handed on, the group now yields
    assert tracker.shares.yielding == {"g0"}
    post = sweeps._board_post(0, 1000)
    assert post is not None
    assert post[2]["gives"] == []  # c2 and c3 may be taking the pools the others still see Available
    sweeps._board_posted(post[2], 0)
    listed = [
        summary(spec, "c0", "Completed", pool="Reused"),
        summary(spec, "c1", "Completed", pool="Reused"),
        summary(spec, "c2", "InProgress"),
        summary(spec, "c3", "InProgress"),
    ]
    sweep(sweeps, listed, [Wait("c4"), Wait("c5")], now=1)
    post = sweeps._board_post(1, 1001)
    assert post is not None
    assert post[2]["gives"] == [digest]


def test_a_run_with_no_city_left_of_a_key_keeps_its_pools_for_another_runs_cities_of_it() -> None:
    spec, book, sweeps = run(n=4, instances=2, warm_pools=2)
    tracker = sweeps.tracker
    assert tracker is not None
    digest = key_digest(book.keys["g0"])
    jobs = [
        summary(spec, "c0", "Completed", pool="Reused"),
        summary(spec, "c1", "Completed", pool="Available"),
        summary(spec, "c2", "InProgress"),
        summary(spec, "c3", "InProgress"),
    ]
    sweep(sweeps, jobs, [])
    post = sweeps._board_post(0, 1000)  # no city waits, yet the record says the key is given away
    assert post is not None
    assert post[2]["gives"] == [digest]
    assert post[2]["blocked"] == {}
    c1, c2, c3 = (f"demo-{c}-{RUN_KEY}" for c in ("c1", "c2", "c3"))
    assert (tracker.surplus_pools(), sorted(tracker.tail_jobs())) == ([c1], [c2, c3])  # nobody wants them
    sweeps._board_records([record("weekly", wants={digest: 2})], 0, 1000)
    assert (tracker.surplus_pools(), len(tracker.tail_jobs())) == ([], 1)  # the idle pool and one more kept
    assert tracker.keep_alive_at_create("c3", 240) == 240
    sweeps._board_records([record("weekly", wants={digest: 1})], 10, 1010)
    assert (tracker.surplus_pools(), sorted(tracker.tail_jobs())) == ([], [c2, c3])


def test_another_runs_pool_is_taken_at_once_when_its_run_gives_the_key_away() -> None:
    from unit.dispatch.test_account import described, other

    pool = other(f"weekly-x-{RUN_KEY}", "Completed", "Available")
    listing = Listing(None, whole=True, account=True)
    for gives in (False, True):
        _, book, sweeps = run(n=4, instances=1, warm_pools=1)
        if gives:
            sweeps._board_records([record("weekly", gives=[key_digest(book.keys["g0"])])], 0, 1000)
        for name in sweeps._foreign(listing, [pool], 0):
            sweeps._foreign_described(name, described(pool), 0)
        # at the first look, only a pool its run gives away is this run's (else its own run may take it)
        assert sweeps._listed(listing, [], 0, [Wait("c0")]).admitted == (("c0",) if gives else ())


def test_another_runs_pool_is_left_to_its_run_while_its_record_keeps_the_key() -> None:
    """The owner is on the board and does not give the key away: its next city takes the pool, however late its
    sweep comes (throttled) and however often this run looks; once its record is gone (stale: its run ended, or no
    triggerer sweeps it) the looks over time decide again."""
    CLAIM_AFTER_SECONDS = Cadence().claim_after_seconds  # noqa: N806 - the cadence's, as a name
    from unit.dispatch.test_account import described, other

    pool = other(f"weekly-x-{RUN_KEY}", "Completed", "Available")
    listing = Listing(None, whole=True, account=True)
    _, book, sweeps = run(n=4, instances=1, warm_pools=1)
    keeps = record("weekly", wants={key_digest(book.keys["g0"]): 2}, posted=1000)
    for now in (0.0, 1.0, 5.0, 30.0, 90.0):
        sweeps._board_records([keeps], now, 1000 + now)
        for name in sweeps._foreign(listing, [pool], now):
            sweeps._foreign_described(name, described(pool), now)
        assert sweeps._listed(listing, [], now, [Wait("c0")]).admitted == (), now
    later = 1000 + CADENCE.stale_seconds + 1  # its record not renewed: its run let everything go
    sweeps._board_records([keeps], 121, later)
    for now in (121.0, 121.0 + CLAIM_AFTER_SECONDS):
        sweeps._foreign(listing, [pool], now)
    assert sweeps._listed(listing, [], 121 + CLAIM_AFTER_SECONDS, [Wait("c0")]).admitted == ("c0",)


def test_a_pool_another_run_took_is_not_the_givers_warm_start() -> None:
    spec, book, sweeps = run(n=6, instances=3, warm_pools=3)
    tracker = sweeps.tracker
    assert tracker is not None
    base = [summary(spec, c, "InProgress") for c in ("c1", "c2")]
    ours = {**summary(spec, "c0", "Completed", pool="Reused")}
    ours["WarmPoolStatus"]["ReusedByJob"] = f"demo-c3-{RUN_KEY}"
    theirs = {**summary(spec, "c0", "Completed", pool="Reused")}
    theirs["WarmPoolStatus"]["ReusedByJob"] = f"weekly-x-{RUN_KEY}"
    tracker.observe([*base, ours], whole=True)
    own_left, _ = cold_budget(tracker.view, holdings(tracker.view).pending_warm)
    tracker.observe([theirs])
    their_left, _ = cold_budget(tracker.view, holdings(tracker.view).pending_warm)
    assert their_left["g0"] == own_left["g0"] - 1  # the giver started its three cities cold, not two


@pytest.mark.parametrize("share", [0.0, 0.5])
def test_without_a_board_record_of_another_run_nothing_is_held_back(share: float) -> None:
    _, _, sweeps = run(n=6, instances=4, share=share)
    assert len(sweep(sweeps, [], [Wait(c) for c in ("c0", "c1", "c2", "c3")])) == 4


# ------------------------------------------------------------------------------------------ the start


def test_a_run_takes_no_new_instances_before_it_read_the_board_after_its_first_post() -> None:
    spec, _, sweeps = run(n=6, instances=4, settled=False)
    assert sweeps.board is not None
    waits = [Wait(c) for c in ("c0", "c1", "c2", "c3")]
    assert sweeps._board_read(0) is not None
    sweeps._board_records([], 0, 1000)
    assert sweep(sweeps, [], waits) == []
    post = sweeps._board_post(0, 1000)
    assert post is not None
    assert post[2]["blocked"] == {Q: 4}  # what its cities wait for is on the board before anything starts
    sweeps._board_posted(post[2], 0)
    assert "waits for the account's board" in sweeps.tracker.waiting_reason(waits[0], 0)  # type: ignore[union-attr]
    sweeps._board_records([], CADENCE.start_settle_seconds - 1, 1004)
    assert sweep(sweeps, [], waits, now=CADENCE.start_settle_seconds - 1) == []
    sweeps._board_records(
        [], CADENCE.start_settle_seconds, 1005
    )  # a read that any run started with it has posted to
    assert len(sweep(sweeps, [], waits, now=CADENCE.start_settle_seconds)) == 4


def test_a_run_whose_record_is_on_the_board_already_does_not_settle_again() -> None:
    """A restarted triggerer, or ``airflow dags test``'s next city (each city's trigger runs in an event loop of its
    own, with a poller of its own): the others have ranked the run since its first record, so its cities start at
    the first sweep instead of waiting the settle again (5 s per city in ``airflow dags test``)."""
    spec, _, sweeps = run(n=6, instances=4, settled=False, name="demo")
    waits = [Wait(c) for c in ("c0", "c1", "c2", "c3")]
    assert sweeps._board_read(0) is not None
    sweeps._board_records([record("demo", posted=990.0)], 0, 1000)
    assert len(sweep(sweeps, [], waits)) == 4
    # the own record is still skipped as a rival: nothing is reserved for it
    assert sweeps.board is not None
    assert sweeps.board.others == {}


def test_a_run_settles_when_only_its_own_later_record_is_read() -> None:
    """Only the first read decides: the run's own record read later is the one it posted itself."""
    spec, _, sweeps = run(n=6, instances=4, settled=False, name="demo")
    waits = [Wait(c) for c in ("c0", "c1", "c2", "c3")]
    assert sweeps._board_read(0) is not None
    sweeps._board_records([], 0, 1000)
    assert sweep(sweeps, [], waits) == []
    post = sweeps._board_post(0, 1000)
    assert post is not None
    sweeps._board_posted(post[2], 0)
    sweeps._board_records([post[2]], 1, 1001)
    assert sweep(sweeps, [], waits, now=1) == []


def test_two_runs_starting_in_the_same_second_do_not_both_take_the_free_room() -> None:
    """Each posts what it waits for before it admits; after the settle each ranks both records alike, so one takes
    the room and the other leaves it — and the other still leaves it when it reads the first one's record after that
    run admitted, before any listing shows its jobs (the record holds them)."""
    runs = {name: run(n=6, instances=4, name=name, settled=False) for name in ("fa", "fb")}
    waits = [Wait(c) for c in ("c0", "c1", "c2", "c3")]
    board: dict[str, dict[str, Any]] = {}

    def one_sweep(name: str, now: float) -> list[str]:
        _, _, sweeps = runs[name]
        if sweeps._board_read(now, 1.0) is not None:
            sweeps._board_records(list(board.values()), now, 1000 + now)
        admitted = sweep(sweeps, [], waits, now)
        if (post := sweeps._board_post(now, 1000 + now)) is not None:
            board[name] = post[2]
            sweeps._board_posted(post[2], now)
        return admitted

    assert one_sweep("fa", 0) == one_sweep("fb", 0) == []
    now = CADENCE.start_settle_seconds
    assert len(one_sweep("fa", now)) == 4  # ranked first: by name, nothing else tells them apart
    assert board["fa"]["held"] == {Q: 4}
    assert one_sweep("fb", now) == []  # no listing shows fa's jobs yet: its record does
    assert board["fb"]["blocked"] == {Q: 4}
    # in the other order of the same instant: fb reads fa's waiting record, fa ranked before it
    runs.update({name: run(n=6, instances=4, name=name, settled=False) for name in ("fa", "fb")})
    board.clear()
    one_sweep("fa", 0), one_sweep("fb", 0)
    assert one_sweep("fb", now) == []
    assert len(one_sweep("fa", now)) == 4


@pytest.mark.parametrize("posted", [True, False])
def test_another_fleets_jobs_it_may_not_describe_count_as_its_board_record_says(posted: bool) -> None:
    """The generated IAM policy scopes DescribeTrainingJob to the fleet's own jobs (docs/security.md): another
    fleet's jobs are listed but denied. What a fleet with sharing holds is still counted, from its record on the
    board; a fleet that posts nothing counts for nothing (its capacity then shows as ResourceLimitExceeded)."""
    from unit.dispatch.test_account import other

    _, _, sweeps = run(n=6, instances=4)
    theirs = [other(f"weekly-x{i}-{RUN_KEY}") for i in range(3)]
    listing = Listing(None, whole=True, account=True)
    asked = sweeps._foreign(listing, theirs, 0)
    assert sorted(asked) == sorted(job["TrainingJobName"] for job in theirs)
    for name in asked:
        sweeps._foreign_denied(name)
    assert sweeps._foreign(listing, theirs, 1) == []  # a denied job is not asked for again
    if posted:
        sweeps._board_records([record("weekly", held={Q: 3})], 1, 1000)
    admitted = sweeps._listed(listing, [], 1, [Wait(c) for c in ("c0", "c1", "c2", "c3")]).admitted
    assert len(admitted) == (1 if posted else 4)
