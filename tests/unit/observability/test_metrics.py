"""The fleet's metrics (pure): their names, the run's ledger, the hand-off, a city's values at its end and the cost
report's."""

from __future__ import annotations

import datetime as dt
from pathlib import Path
from typing import Any

import pytest

from sagemaker_fleet.dispatch import DispatchBook, RunTracker
from sagemaker_fleet.dispatch.cadence import Cadence
from sagemaker_fleet.dispatch.city_run import CityRun
from sagemaker_fleet.fleetspec.model import InstanceQuota
from sagemaker_fleet.fleetspec.names import job_name
from sagemaker_fleet.jobs.progress import run_job_names
from sagemaker_fleet.observability.metrics import (
    METRICS,
    RunLedger,
    city_measurements,
    handoff_seconds,
    metric_name,
    report_measurements,
    resubmission_reason,
)
from sagemaker_fleet.plan import plan_fleet
from unit.cost.cost_describes import T0, demo_report, describe_job, end_of
from unit.plan.plan_fleets import RUN_KEY, city, fleet, spot


def at(seconds: float) -> dt.datetime:
    return T0 + dt.timedelta(seconds=seconds)


def one_group(n: int = 6, width: int = 2):
    spec = fleet(
        [city(f"c{i}", 600 + 10 * i) for i in range(n)],
        quotas={"ml.m5.xlarge": InstanceQuota(instances=width, warm_pools=width)},
    )
    book = DispatchBook.from_plan(plan_fleet(spec, RUN_KEY), spec)
    return spec, book, RunTracker(book, run_job_names(spec, RUN_KEY))


def name(spec: Any, city_name: str, attempt: int = 1) -> str:
    return job_name(spec.fleet, city_name, RUN_KEY, attempt)


def test_names_carry_the_fleet_so_plain_statsd_keeps_fleets_apart() -> None:
    assert metric_name("citydemand", "warm_starts") == "sagemaker_fleet.citydemand.warm_starts"
    assert metric_name("weekly", "handoff") == "sagemaker_fleet.weekly.handoff"
    with pytest.raises(KeyError, match="warm_start"):
        metric_name("citydemand", "warm_start")
    assert {m.kind for m in METRICS.values()} == {"counter", "gauge", "timer"}
    assert all(m.tags[:2] == ("fleet", "run_key") for m in METRICS.values())


def test_the_ledger_keeps_ends_and_reused_names_from_summaries_and_engine_seconds() -> None:
    ledger = RunLedger()
    ledger.observe(
        [
            {"TrainingJobName": "a", "TrainingEndTime": at(10), "WarmPoolStatus": {"ReusedByJob": "b"}},
            {"TrainingJobName": "b", "TrainingJobStatus": "InProgress"},
            {"TrainingJobName": "c", "TrainingEndTime": at(30).timestamp()},  # the engine's epoch seconds
        ]
    )
    assert ledger.ended == {"a": at(10), "c": at(30)}
    assert ledger.reused == {"b"}


def test_the_hand_off_is_the_gap_from_the_groups_latest_end_before_the_citys_creation() -> None:
    spec, book, tracker = one_group(6, width=2)
    (group,) = book.members
    ranked = list(book.members[group])
    successor = ranked[3]  # rank 3 ≥ width 2: it waited on a predecessor
    ledger = RunLedger()
    ledger.observe(
        [
            {"TrainingJobName": name(spec, ranked[0]), "TrainingEndTime": at(500)},
            {"TrainingJobName": name(spec, ranked[1]), "TrainingEndTime": at(550)},
            {"TrainingJobName": name(spec, ranked[2]), "TrainingEndTime": at(900)},  # after: not its hand-off
            {"TrainingJobName": name(spec, successor), "TrainingEndTime": at(590)},  # its own: never
            {"TrainingJobName": "other-fleet-x-20261129", "TrainingEndTime": at(599)},  # not the run's
        ]
    )
    assert handoff_seconds(tracker, ledger, successor, at(600)) == 50.0
    assert handoff_seconds(tracker, ledger, ranked[0], at(600)) is None  # the first wave waited on nobody
    assert handoff_seconds(tracker, ledger, "not-planned", at(600)) is None
    assert handoff_seconds(None, ledger, successor, at(600)) is None  # no plan, no turns
    assert handoff_seconds(tracker, RunLedger(), successor, at(600)) is None  # no end seen


def test_why_a_city_was_submitted_again() -> None:
    maxwait = describe_job("x", spot=True, status="Stopped", secondary="MaxWaitTimeExceeded")
    assert resubmission_reason(maxwait, describe_job("x-r2", spot=True)) == "spot"
    assert resubmission_reason(maxwait, describe_job("x-r2")) == "fallback"
    assert resubmission_reason(describe_job("x"), describe_job("x-r2")) == "forced"
    assert resubmission_reason(describe_job("x", status="Failed"), describe_job("x-r2")) == "retry"


class NoIO:
    """A city run's I/O is never used here: the run's state is set as a trigger leaves it."""


def city_run(spec: Any, city_name: str, tracker: RunTracker | None, history: list[dict]) -> CityRun:
    run = CityRun(
        spec,
        spec.city(city_name),
        RUN_KEY,
        NoIO(),  # type: ignore[arg-type]
        NoIO(),  # type: ignore[arg-type]
        tracker,
        cadence=Cadence(capacity_retry_seconds=60.0, capacity_timeout_seconds=600.0),
    )
    run.history = history
    return run


def values(measurements: list) -> list[tuple[str, float, dict]]:
    return [(m.metric, m.value, dict(m.tags)) for m in measurements]


def test_a_city_counts_each_job_whose_end_it_saw_its_hand_off_and_its_capacity_back_offs() -> None:
    spec, book, tracker = one_group(6, width=2)
    (group,) = book.members
    ranked = list(book.members[group])
    first, successor = ranked[0], ranked[2]
    predecessor = describe_job(name(spec, first), training=300)
    ledger = RunLedger()
    ledger.observe(
        [predecessor | {"WarmPoolStatus": {"Status": "Reused", "ReusedByJob": name(spec, successor)}}]
    )
    created = end_of(predecessor) + 12
    warm = describe_job(name(spec, successor), created=created, startup=21)  # took the predecessor's pool
    run = city_run(spec, successor, tracker, [warm])
    tags = {"fleet": "demo", "run_key": RUN_KEY, "instance_type": "ml.m5.xlarge"}
    assert values(city_measurements(run, [warm], ledger, refusals=2)) == [
        ("warm_starts", 1, tags),
        ("handoff", 12.0, tags),
        ("capacity_backoffs", 2, tags),
    ]
    # a restarted trigger that found the job ended counts nothing again (it saw no end)
    assert values(city_measurements(run, [], ledger, refusals=0)) == []


def test_a_spot_chain_counts_cold_starts_and_each_resubmission_with_its_reason() -> None:
    spec = fleet([city("perth", spot=spot(10800))])
    first = describe_job(name(spec, "perth"), spot=True, status="Stopped", secondary="MaxWaitTimeExceeded")
    second = describe_job(
        name(spec, "perth", 2), spot=True, created=2000, status="Stopped", secondary="MaxWaitTimeExceeded"
    )
    third = describe_job(name(spec, "perth", 3), created=4000, startup=150)  # the on-demand fallback: cold
    run = city_run(spec, "perth", None, [first, second, third])
    got = values(city_measurements(run, [second, third], RunLedger(), refusals=0))
    tags = {"fleet": "demo", "run_key": RUN_KEY, "instance_type": "ml.m5.xlarge"}
    assert got == [
        ("cold_starts", 1, tags),
        ("resubmissions", 1, {**tags, "reason": "spot"}),
        ("cold_starts", 1, tags),
        ("resubmissions", 1, {**tags, "reason": "fallback"}),
    ]


def test_the_report_sends_the_runs_money_and_idle_pools_per_instance_type() -> None:
    report = demo_report()
    sent = {(m.metric, m.tags["instance_type"]): m.value for m in report_measurements(report)}
    for instance_type, totals in report.by_instance_type.items():
        assert sent["cost_usd", instance_type] == pytest.approx(totals.cost_usd, abs=1e-6)
        assert sent["idle_pool_seconds", instance_type] == totals.retained_billable_seconds
        assert sent["idle_pool_cost_usd", instance_type] == pytest.approx(totals.retained_cost_usd, abs=1e-6)
        assert sent["spot_savings_usd", instance_type] == pytest.approx(totals.spot_savings_usd, abs=1e-6)
    # summed over the instance types, as plain StatsD sums them: the report's totals
    assert sum(v for (m, _), v in sent.items() if m == "cost_usd") == pytest.approx(
        report.totals.cost_usd, abs=1e-5
    )
    assert sum(v for (m, _), v in sent.items() if m == "idle_pool_seconds") == 1020  # 120 + 300 + 600
    assert all(m.tags["run_key"] == RUN_KEY and m.fleet == "demo" for m in report_measurements(report))


def test_the_reference_documents_every_metric_with_its_type() -> None:
    """docs/guides/observability.md's metrics table is the contract: the same metrics, types and tags as METRICS."""
    reference = Path(__file__).resolve().parents[3] / "docs" / "guides" / "observability.md"
    section = reference.read_text(encoding="utf-8").split("\n## Every metric\n", 1)[1].split("\n## ", 1)[0]
    rows = [line.split("|")[1:-1] for line in section.splitlines() if line.startswith("| `")]
    documented = {
        cells[0].strip().strip("`"): (cells[1].strip(), tuple(t.strip() for t in cells[3].split(",")))
        for cells in rows
    }
    assert documented == {name: (m.kind, m.tags) for name, m in METRICS.items()}
