"""The Fleet view's waiting reasons are the triggerer's: its tracker reads the account (other runs' jobs, the
account's board) as the triggerer's sweeps feed it, not the run's own jobs only."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

from sagemaker_fleet.cost.report import RunJobIndex
from sagemaker_fleet.dispatch import DispatchBook, build_run_dispatch
from sagemaker_fleet.dispatch.board import RunDemand
from sagemaker_fleet.dispatch.state import Wait
from sagemaker_fleet.fleetspec.names import job_name
from sagemaker_fleet.fleetspec.price_table import load_price_table
from sagemaker_fleet.fleetview.account import AccountSnapshot
from sagemaker_fleet.fleetview.model import RunContext, ViewInputs, build_fleet_view
from sagemaker_fleet.jobs.prices import PriceBook
from sagemaker_fleet.plan import plan_fleet
from unit.cost.cost_describes import RUN_KEY, T0, demo_spec, describe_job

NOW = T0 + timedelta(seconds=2600)
STAMP = NOW.timestamp()


def _jobs() -> list[dict[str, Any]]:
    """seoul done, tokyo training: every other planned city waits."""
    seoul = describe_job(job_name("demo", "seoul", RUN_KEY), training=1800, pool_status="Terminated")
    tokyo = describe_job(
        job_name("demo", "tokyo", RUN_KEY), status="InProgress", secondary="Training", created=2100.0
    )
    return [seoul, tokyo]


def _board() -> tuple[dict[str, Any], dict[str, Any]]:
    """The run's own record, as its triggerer posted it, and another fleet's run: its share of the m5 quota is
    half and it waits for 2 instances of it, so it ranks before this run (share 0) on that quota."""
    own = RunDemand("demo", RUN_KEY, held={"ml.m5.xlarge/instances": 1}, posted=STAMP).to_json()
    other = RunDemand(
        "other", RUN_KEY, share=0.5, blocked={"ml.m5.xlarge/instances": 2}, posted=STAMP
    ).to_json()
    return own, other


def test_a_waiting_citys_reason_in_the_view_is_the_one_the_triggerer_logs() -> None:
    spec = demo_spec()
    plan = plan_fleet(spec, RUN_KEY, None)
    book = DispatchBook.from_plan(plan, spec)
    names = RunJobIndex.for_run(spec, RUN_KEY).names
    jobs, board = _jobs(), list(_board())

    # the triggerer: its sweep reads the board (its own record among them, the one it last posted), then lists
    triggerer = build_run_dispatch(book, names)
    triggerer._board_records(board, STAMP, STAMP)
    triggerer._board_posted(board[0], STAMP)
    assert triggerer.tracker is not None
    triggerer.tracker.observe(jobs, whole=True)
    # before: the view counted the run's own jobs only
    before = build_run_dispatch(book, names, account=False).tracker
    assert before is not None
    before.observe(jobs, whole=True)

    prices = PriceBook(region=spec.region, table=load_price_table(), spec_prices={"ml.m5.xlarge": 3.6})
    account = AccountSnapshot(listed_since=NOW, board=board)
    view = build_fleet_view(
        RunContext("fleet_demo", "manual__1", RUN_KEY, "running"),
        ViewInputs(spec, plan.to_json(), jobs, prices, NOW, account=account),
    )

    shown = {w["city"]: w["reason"] for w in view["waiting"]}
    logged = {city: triggerer.tracker.waiting_reason(Wait(city, since=STAMP), STAMP) for city in shown}
    old = {city: before.waiting_reason(Wait(city, since=STAMP), STAMP) for city in shown}
    assert shown == logged
    quota = "waits for room in the ml.m5.xlarge instances quota (running jobs and idle pools)"
    # the m5 cities: the view used to leave out the room kept for the run ranked before this one
    assert {city: old[city] for city in shown if old[city] != logged[city]} == {
        city: quota for city in ("lagos", "lima", "quito", "perth")
    }
    assert {logged[city] for city in ("lagos", "lima", "quito", "perth")} == {
        quota + "; 2 instance(s) go first to runs ranked before this one (sharing)"
    }
    assert old["vision"] == logged["vision"]  # a g5 city: nobody ranked before it waits on that quota
