"""build_run_dispatch: a run's tracker, sweeps, account view and board built in one place, with one cadence."""

from __future__ import annotations

import datetime as dt

from sagemaker_fleet.dispatch import Cadence, DispatchBook, DispatchRules, RunOptions, build_run_dispatch
from sagemaker_fleet.dispatch.sweep import RunSweeps
from sagemaker_fleet.fleetspec.model import InstanceQuota
from sagemaker_fleet.jobs.progress import run_job_names
from sagemaker_fleet.plan import plan_fleet
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
    assert sweeps.listing().account  # its sweeps list the account's jobs


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
    assert not own.listing().account


def test_the_dispatch_is_attached_to_the_sweeps_that_watch_already() -> None:
    floor = dt.datetime(2026, 11, 28, tzinfo=dt.UTC)
    watching = RunSweeps(floor=floor)
    watching.watch("x", None)
    sweeps = build_run_dispatch(
        *book(shares=False), CADENCE, options=RunOptions(one_at_a_time=True), sweeps=watching
    )
    assert sweeps is watching
    assert "x" in sweeps.watches
    assert sweeps.floor == floor
    assert sweeps.tracker is not None
    assert sweeps.tracker.view.options.one_at_a_time


def test_measurement_rules_reach_the_tracker_and_production_needs_none() -> None:
    options = RunOptions(rules=DispatchRules(image_handoff=False))
    assert build_run_dispatch(*book(shares=False), options=options).tracker.view.options is options  # type: ignore[union-attr]
    assert build_run_dispatch(*book(shares=False)).tracker.view.options == RunOptions()  # type: ignore[union-attr]
    assert RunOptions().rules == DispatchRules()
