"""dispatch_from_plan and build_run_dispatch: a run's tracker, sweeps, account view and board built in one place, with one cadence."""

from __future__ import annotations

import datetime as dt
from pathlib import Path

import pytest

import sagemaker_fleet
from sagemaker_fleet.dispatch import (
    Cadence,
    DispatchBook,
    DispatchRules,
    RunOptions,
    build_run_dispatch,
    dispatch_from_plan,
)
from sagemaker_fleet.dispatch.sweep import Listing
from sagemaker_fleet.fleetspec.model import InstanceQuota
from sagemaker_fleet.fleetspec.overrides import only_cities
from sagemaker_fleet.jobs.progress import run_job_names
from sagemaker_fleet.plan import plan_fleet
from sagemaker_fleet.plan.errors import ForeignPlanError
from unit.dispatch.test_board import sharing
from unit.dispatch.test_dispatch_tracker import RUN_KEY
from unit.plan.plan_fleets import city, fleet

CADENCE = Cadence(handoff_interval=3.0, stall_seconds=60.0, board_read_seconds=4.0)


def book(shares: bool) -> tuple[DispatchBook, dict[str, tuple[str, int]]]:
    spec = fleet(
        [city(f"c{i}", 600 + 10 * i) for i in range(4)],
        quotas={"ml.m5.xlarge": InstanceQuota(instances=2, warm_pools=2)},
        **({"sharing": sharing()} if shares else {}),
    )
    return DispatchBook.from_plan(plan_fleet(spec, RUN_KEY), spec), run_job_names(spec, RUN_KEY)


def test_a_planned_run_of_a_fleet_that_shares_gets_its_view_and_board_with_the_one_cadence() -> None:
    sweeps = build_run_dispatch(*book(shares=True), CADENCE)
    tracker = sweeps.tracker
    assert tracker is not None
    assert tracker.account is not None
    assert tracker.shares is not None
    assert sweeps.account is tracker.account
    assert sweeps.board is tracker.shares.board is tracker.account.board
    assert sweeps.cadence is tracker.cadence is tracker.account.cadence is sweeps.board.cadence is CADENCE
    assert sweeps._listing().account  # its sweeps list the account's jobs


def test_a_run_without_a_plan_or_sharing_gets_what_it_uses() -> None:
    plain = build_run_dispatch(*book(shares=False))
    assert plain.account is not None
    assert plain.board is None
    assert plain.tracker is not None
    assert plain.tracker.shares is None
    empty = build_run_dispatch(DispatchBook.empty(), {})
    assert (empty.account, empty.board) == (None, None)
    own = build_run_dispatch(*book(shares=True), account=False)
    assert (own.account, own.board) == (None, None)
    assert not own._listing().account


def test_the_dispatch_lists_from_its_floor_with_its_options() -> None:
    floor = dt.datetime(2026, 11, 28, tzinfo=dt.UTC)
    sweeps = build_run_dispatch(
        *book(shares=False), CADENCE, options=RunOptions(one_at_a_time=True), floor=floor
    )
    assert sweeps.floor == floor
    assert sweeps._listing() == Listing(floor, whole=True, account=True)
    assert sweeps.tracker is not None
    assert sweeps.tracker.view.options.one_at_a_time


def test_measurement_rules_reach_the_tracker_and_production_needs_none() -> None:
    options = RunOptions(rules=DispatchRules(image_handoff=False))
    assert build_run_dispatch(*book(shares=False), options=options).tracker.view.options is options  # type: ignore[union-attr]
    assert build_run_dispatch(*book(shares=False)).tracker.view.options == RunOptions()  # type: ignore[union-attr]
    assert RunOptions().rules == DispatchRules()


def test_a_plan_of_another_fleet_is_refused_naming_both_fleets() -> None:
    spec = fleet([city("c0", 600)], fleet="mine")
    other = fleet([city("c0", 600)], fleet="theirs")
    with pytest.raises(ForeignPlanError, match=r"the plan is for fleet 'theirs', not 'mine'"):
        dispatch_from_plan(plan_fleet(other, RUN_KEY), spec, RUN_KEY)


def test_the_run_s_cities_are_the_plan_s_and_no_plan_starts_every_city() -> None:
    spec = fleet([city(f"c{i}", 600 + 10 * i) for i in range(4)])
    planned = plan_fleet(only_cities(spec, {"c1", "c2"}), RUN_KEY)
    tracker = dispatch_from_plan(planned, spec, RUN_KEY, account=False).tracker
    assert tracker is not None
    assert set(tracker.book.turns) == {"c1", "c2"}
    assert {city for city, _ in tracker.names.values()} == {"c1", "c2"}
    unplanned = dispatch_from_plan(None, spec, RUN_KEY).tracker
    assert unplanned is not None
    assert unplanned.book.turns == {}
    assert {city for city, _ in unplanned.names.values()} == {"c0", "c1", "c2", "c3"}


#: Where a book may be read from a plan outside dispatch/, and why: neither builds a dispatch.
BOOK_READERS = {
    # the plan task logs each group's width (book.widths); the run's dispatch is built in the triggerer
    "operators/plan.py",
    # the pilot's dry run, ceiling and summary read each store's turn; its dispatch is dispatch_from_plan's
    "cli/pilot/fleet.py",
}


def test_no_shell_builds_a_dispatch_from_a_plan_itself() -> None:
    """Plan -> book -> dispatch is dispatch_from_plan's alone, so the fleet check and the plan's cities apply to
    every shell (the triggerer, simulate, the Fleet view, the pilot)."""
    package = Path(sagemaker_fleet.__file__).parent
    found = []
    for path in package.rglob("*.py"):
        where = path.relative_to(package).as_posix()
        if where.startswith("dispatch/"):
            continue
        text = path.read_text(encoding="utf-8")
        if "build_run_dispatch(" in text or ("DispatchBook.from_plan(" in text and where not in BOOK_READERS):
            found.append(where)
    assert found == [], f"build the run's dispatch with dispatch_from_plan: {found}"
