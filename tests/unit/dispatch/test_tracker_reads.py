"""The tracker's rules read its state and write nothing, but for an admission (its pending cities, its board)."""

from __future__ import annotations

import copy

from sagemaker_fleet.dispatch import Wait
from sagemaker_fleet.dispatch.admission import Ledger, waiting_reason
from sagemaker_fleet.dispatch.handoff import handoffs
from sagemaker_fleet.dispatch.holdings import cold_budget, group_counts, holdings
from sagemaker_fleet.dispatch.pool_ends import keep_alive_at_create, surplus_pools, tail_jobs
from unit.dispatch.test_dispatch_tracker import freed, hand_book, tracker_for


def test_every_read_leaves_the_state_as_it_was() -> None:
    spec, book = hand_book("XYYXXYYY")
    tracker = tracker_for(spec, book, freed(spec, "c0", ["c1"]))
    before = copy.deepcopy(tracker.state)
    view = tracker.view
    reads = [
        group_counts(view),
        holdings(view),
        cold_budget(view, holdings(view).pending_warm),
        Ledger.read(view),
        handoffs(view),
        surplus_pools(view),
        tail_jobs(view),
        keep_alive_at_create(view, "c3", 600),
        [waiting_reason(view, Wait(f"c{i}"), 0.0) for i in range(2, 8)],
    ]
    assert all(read is not None for read in reads)
    assert tracker.state == before


def test_an_admission_is_the_write_its_pending_cities_and_short_of() -> None:
    spec, book = hand_book("XYYXXYYY")
    tracker = tracker_for(spec, book, freed(spec, "c0", ["c1"]))
    assert tracker.admit([Wait(f"c{i}") for i in range(2, 8)], now=0) == ["c3"]
    assert tracker.state.pending == {"c3": 1}
    tracker.release("c3")
    assert tracker.state.pending == {}


def test_holdings_are_fresh_counters_each_read() -> None:
    spec, book = hand_book("XX")
    tracker = tracker_for(spec, book, freed(spec, "c0", []))
    first = holdings(tracker.view)
    first.idle.clear()
    first.used.clear()
    assert holdings(tracker.view) != first
