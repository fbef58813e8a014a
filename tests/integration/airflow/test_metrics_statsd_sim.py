"""The fleet's metrics through Airflow's own StatsD client to a real UDP listener on 127.0.0.1, while city triggers
run against the simulator (as one triggerer runs them): each value checked against the run's jobs as SageMaker
describes them."""

from __future__ import annotations

import threading
import time
from pathlib import Path
from types import SimpleNamespace
from typing import TYPE_CHECKING

import pytest

from sagemaker_fleet.cost import RunJobIndex, build_cost_report
from sagemaker_fleet.cost.collect import describe_run_jobs
from sagemaker_fleet.dispatch import DispatchBook
from sagemaker_fleet.fleetspec import load_fleet_spec
from sagemaker_fleet.jobs.prices import PriceBook
from sagemaker_fleet.jobs.reader import ClientJobReader
from sagemaker_fleet.operators.report import FleetCostReportOperator
from sagemaker_fleet.plan import plan_fleet
from statsd_listener import airflow_statsd
from trigger_runs import city_trigger, publish_plan, run_triggers

if TYPE_CHECKING:
    from sagemaker_fleet.triggers.city import FleetCityTrigger

pytestmark = pytest.mark.integration
RUN_KEY = "20261129"
FLEETS = Path(__file__).parent / "fleets"
DISPATCH, QUICK = FLEETS / "dispatch.yaml", FLEETS / "quick.yaml"


def trigger(spec_path: Path, city: str, **kwargs) -> FleetCityTrigger:
    values = {
        "run_key": RUN_KEY,
        "try_id": "manual__1/1",
        "poll_interval": 0.3,
        "capacity_retry_seconds": 0.5,
    }
    return city_trigger(spec_path, city, **{**values, **kwargs})


@pytest.fixture
def fast(aws_sim):
    for city in ("seoul", "tokyo", "oslo"):
        aws_sim.set_work(120, city=city)
    aws_sim.set_speed(200)
    yield aws_sim
    aws_sim.set_speed(1)


def wait_for(listener, suffix: str, count: int, timeout: float = 5.0) -> list:
    """UDP is asynchronous: the datagrams of the last sends may still be on their way."""
    deadline = time.monotonic() + timeout
    while len(listener.named(suffix)) < count and time.monotonic() < deadline:
        time.sleep(0.05)
    return listener.named(suffix)


def test_starts_hand_offs_and_waiting_cities_reach_statsd_as_the_run_went(fast, monkeypatch) -> None:
    spec = load_fleet_spec(DISPATCH)
    plan = plan_fleet(spec, RUN_KEY)
    publish_plan(monkeypatch, plan)
    book = DispatchBook.from_plan(plan, spec)
    (group,) = book.members
    ranked = list(book.members[group])
    width = book.widths[group]
    with airflow_statsd(monkeypatch) as listener:
        run_triggers([trigger(DISPATCH, c, plan_task_id="plan") for c in reversed(ranked)])
        client = fast.boto3_client("sagemaker")
        described = {c: client.describe_training_job(TrainingJobName=f"disp-{c}-{RUN_KEY}") for c in ranked}
        facts = {j["name"]: j for j in fast.state()["jobs"]}
        warm = sum(1 for j in facts.values() if j["start"] == "warm")
        prefix = "airflow.sagemaker_fleet.disp."
        warm_lines = wait_for(listener, ".warm_starts", warm)
        cold_lines = wait_for(listener, ".cold_starts", len(ranked) - warm)
        handoffs = wait_for(listener, ".handoff", len(ranked) - width)
    # Airflow's prefix, then ours with the fleet in the name: plain StatsD keeps fleets apart without tags
    assert {line.name for line in warm_lines} == {prefix + "warm_starts"}
    assert (sum(x.value for x in warm_lines), sum(x.value for x in cold_lines)) == (warm, len(ranked) - warm)
    assert warm == len(ranked) - width  # every successor took a pool: the counts are not trivially zero
    assert all(line.type == "c" for line in warm_lines + cold_lines)
    # the hand-off of each successor: its creation less the latest end of its group before it (AWS's clock)
    expected = []
    for rank, city in enumerate(ranked):
        if rank < width:
            continue
        created = described[city]["CreationTime"]
        ends = [
            d["TrainingEndTime"]
            for c, d in described.items()
            if c != city and d["TrainingEndTime"] <= created
        ]
        expected.append((created - max(ends)).total_seconds() * 1000)
    assert [line.type for line in handoffs] == ["ms"] * (len(ranked) - width)
    assert sorted(line.value for line in handoffs) == pytest.approx(sorted(expected), abs=1.0)
    # the gauge of waiting cities: the successors waited, and nobody waits at the run's end
    waiting = listener.named(".cities_waiting")
    assert {line.type for line in waiting} == {"g"}
    assert max(line.value for line in waiting) >= len(ranked) - width - 1
    assert waiting[-1].value == 0
    assert not listener.named(".capacity_backoffs")


def test_each_capacity_refusal_is_counted_once(fast, monkeypatch) -> None:
    """Another team's job holds the only instance: the city's creates are refused until it ends."""
    from sim_fixtures import make_request

    fast.set_quota("ml.m5.xlarge", instances=1, warm_pools=0)
    client = fast.boto3_client("sagemaker")
    fast.set_work(10**7, job="other-team-job-1")
    client.create_training_job(**make_request("other-team-job-1", max_runtime=28 * 86400))

    def release_after_two_refusals() -> None:
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline:
            if fast.calls()["errors"].get("CreateTrainingJob:ResourceLimitExceeded", 0) >= 2:
                break
            time.sleep(0.05)
        client.stop_training_job(TrainingJobName="other-team-job-1")

    releaser = threading.Thread(target=release_after_two_refusals, daemon=True)
    with airflow_statsd(monkeypatch) as listener:
        releaser.start()
        try:
            run_triggers([trigger(QUICK, "tokyo")])
        finally:
            releaser.join()
        refused = fast.calls()["errors"]["CreateTrainingJob:ResourceLimitExceeded"]
        backoffs = wait_for(listener, ".capacity_backoffs", refused)
    assert refused >= 2
    # one count as each refusal happens (an alert sees back-offs while the city still waits)
    assert {(b.name, b.value, b.type) for b in backoffs} == {
        ("airflow.sagemaker_fleet.quick.capacity_backoffs", 1, "c")
    }
    assert len(backoffs) == refused


def test_the_cost_report_sends_the_runs_billed_money(fast, monkeypatch, tmp_path) -> None:
    spec = load_fleet_spec(QUICK)
    run_triggers([trigger(QUICK, c) for c in ("seoul", "tokyo")])
    report = FleetCostReportOperator(
        task_id="cost_report", spec_path=str(QUICK), upload=False, out_dir=str(tmp_path)
    )
    context = {
        "params": {},
        "run_id": "scheduled__2026-11-29T00:00:00+00:00",
        "logical_date": None,
        "dag_run": SimpleNamespace(run_id="scheduled__2026-11-29T00:00:00+00:00", run_type="scheduled"),
        # no plan: the report says so and has no such section
        "ti": SimpleNamespace(xcom_pull=lambda **_: None),
        "outlet_events": {},
    }
    monkeypatch.setattr("sagemaker_fleet.operators.report.task_run_key", lambda _: RUN_KEY)
    with airflow_statsd(monkeypatch) as listener:
        report.execute(context)
        (cost,) = wait_for(listener, ".cost_usd", 1)
        (idle,) = wait_for(listener, ".idle_pool_seconds", 1)
    expected = build_cost_report(
        spec,
        RUN_KEY,
        describe_run_jobs(
            ClientJobReader(fast.boto3_client("sagemaker")), RunJobIndex.for_run(spec, RUN_KEY)
        ),
        PriceBook.for_spec(spec),
    )
    assert cost.name == "airflow.sagemaker_fleet.quick.cost_usd"
    assert cost.value == pytest.approx(expected.totals.cost_usd, abs=1e-5)
    assert expected.totals.cost_usd > 0
    assert idle.value == expected.totals.retained_billable_seconds
