"""Hand-computed costs: on-demand, spot with savings, retained warm pool, failed, re-submitted, multi-instance."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import TYPE_CHECKING

import pytest

from sagemaker_fleet.cost import build_cost_report
from sagemaker_fleet.fleetspec.price_table import load_price_table
from sagemaker_fleet.jobs.prices import PriceBook
from unit.cost.cost_describes import RUN_KEY, demo_run, demo_spec, describe_job

if TYPE_CHECKING:
    from sagemaker_fleet.cost.report import CostReport

M5 = 0.23  # ml.m5.xlarge, us-east-1, docs/sagemaker-behaviour.md, prices
G5 = 1.408  # ml.g5.xlarge


def report_of(*describes: dict[str, object]) -> CostReport:
    spec = demo_spec()
    book = PriceBook(spec.region, load_price_table(), spec.prices)
    return build_cost_report(
        spec, RUN_KEY, describes, book, generated_at=datetime(2026, 11, 29, 12, tzinfo=UTC)
    )


def only_line(*describes: dict[str, object]):  # type: ignore[no-untyped-def]
    report = report_of(*describes)
    assert len(report.lines) == 1
    return report.lines[0]


def test_on_demand_job_costs_billable_hours_times_price() -> None:
    line = only_line(describe_job("demo-seoul-20261129", training=3600))
    assert line.cost_usd == pytest.approx(0.23)
    assert line.on_demand_cost_usd == pytest.approx(0.23)
    assert line.spot_savings_pct == 0.0
    assert line.price_source == "table"
    assert line.price_per_hour == M5


def test_spot_job_is_billed_for_billable_seconds_and_saves_against_training_seconds() -> None:
    line = only_line(describe_job("demo-perth-20261129", spot=True, training=500, billable=100))
    assert line.cost_usd == pytest.approx(100 * M5 / 3600)  # 0.006389
    assert line.on_demand_cost_usd == pytest.approx(500 * M5 / 3600)  # 0.031944
    assert line.spot_savings_pct == pytest.approx(80.0)
    assert line.spot_savings_usd == pytest.approx(400 * M5 / 3600)


def test_spot_job_without_training_time_has_zero_savings_not_a_division_error() -> None:
    line = only_line(
        describe_job(
            "demo-perth-20261129",
            spot=True,
            status="Stopped",
            secondary="MaxWaitTimeExceeded",
            training=0,
            billable=0,
            phases=[("Starting", 3600), ("Stopping", 5)],
        )
    )
    assert line.spot_savings_pct == 0.0
    assert line.cost_usd == 0.0
    assert line.start == "cold"


def test_retained_warm_pool_time_is_billed_on_demand_and_in_both_costs() -> None:
    line = only_line(
        describe_job(
            "demo-seoul-20261129", training=1800, keep_alive=900, retained=600, pool_status="Terminated"
        )
    )
    assert line.retained_billable_seconds == 600
    assert line.cost_usd == pytest.approx(2400 * M5 / 3600)  # 0.153333
    assert line.on_demand_cost_usd == pytest.approx(2400 * M5 / 3600)
    assert line.retained_cost_usd == pytest.approx(600 * M5 / 3600)  # 0.038333


def test_failed_job_still_costs_what_was_billed() -> None:
    report = report_of(
        describe_job(
            "demo-lima-20261129", status="Failed", training=120, failure_reason="AlgorithmError: boom"
        )
    )
    line = report.lines[0]
    assert line.cost_usd == pytest.approx(120 * M5 / 3600)
    assert line.failure_reason == "AlgorithmError: boom"
    assert report.totals.failed == 1
    assert report.totals.completed == 0


def test_multi_instance_job_multiplies_by_instance_count() -> None:
    line = only_line(
        describe_job("demo-vision-20261129", instance_type="ml.g5.xlarge", count=4, training=900)
    )
    assert line.cost_usd == pytest.approx(900 * 4 * G5 / 3600)  # 1.408
    assert line.instance_count == 4


def test_every_submission_counts_including_resubmissions() -> None:
    first = describe_job(
        "demo-perth-20261129",
        spot=True,
        status="Stopped",
        secondary="MaxWaitTimeExceeded",
        training=200,
        billable=50,
    )
    second = describe_job("demo-perth-20261129-r2", spot=False, created=4000, training=1000)
    report = report_of(first, second)
    assert [(line.city, line.attempt) for line in report.lines] == [("perth", 1), ("perth", 2)]
    assert report.totals.jobs == 2
    assert report.totals.resubmitted == 1
    assert report.totals.stopped == 1
    assert report.by_city["perth"].cost_usd == pytest.approx((50 + 1000) * M5 / 3600)
    assert report.by_city["perth"].on_demand_cost_usd == pytest.approx((200 + 1000) * M5 / 3600)


def test_in_progress_job_counts_with_the_billing_reported_so_far() -> None:
    line = only_line(
        describe_job(
            "demo-seoul-20261129",
            status="InProgress",
            phases=[("Starting", 100), ("Downloading", 40), ("Training", 600)],
        )
    )
    assert line.status == "InProgress"
    assert line.cost_usd == 0.0
    assert line.ended_at == datetime(2026, 11, 29, 12, tzinfo=UTC)  # drawn up to the report time


def test_demo_run_totals_by_hand() -> None:
    report = report_of(*demo_run())
    t = report.totals
    m5_billed = 1800 + 1500 + 600 + 120 + 50 + 100  # seoul tokyo lagos lima perth perth-r2
    m5_retained = 120 + 300 + 600
    expected_cost = (m5_billed + m5_retained) * M5 / 3600 + 900 * 4 * G5 / 3600
    assert t.cost_usd == pytest.approx(expected_cost)
    assert t.retained_cost_usd == pytest.approx(m5_retained * M5 / 3600)
    spot_on_demand = (200 + 500) * M5 / 3600
    assert t.spot_savings_usd == pytest.approx(spot_on_demand - 150 * M5 / 3600)
    assert t.spot_savings_pct == pytest.approx((1 - 150 / 700) * 100)
    assert t.on_demand_cost_usd == pytest.approx(t.cost_usd + t.spot_savings_usd)
    assert (t.jobs, t.completed, t.failed, t.stopped, t.resubmitted) == (7, 5, 1, 1, 1)
    assert (t.warm_starts, t.cold_starts) == (2, 5)
    # tokyo 20 s and lagos 56 s (its image re-pulled) against FastFile's cold P90 of 143 s
    assert t.startup_seconds_saved == pytest.approx((143 - 20) + (143 - 56))
    assert t.warm_image_pulls == 1
    assert report.cities_without_jobs == ("quito",)


def test_totals_per_city_group_and_instance_type_add_up_to_the_run() -> None:
    report = report_of(*demo_run())
    for breakdown in (report.by_city, report.by_group, report.by_instance_type):
        assert sum(t.cost_usd for t in breakdown.values()) == pytest.approx(report.totals.cost_usd)
        assert sum(t.jobs for t in breakdown.values()) == report.totals.jobs
    assert set(report.by_instance_type) == {"ml.m5.xlarge", "ml.g5.xlarge"}


def test_groups_split_by_matching_key_and_spot() -> None:
    report = report_of(*demo_run())
    labels = {g.id: g.label for g in report.groups}
    # numbered as the plan numbers them: in the order each group's first city appears in the spec
    assert labels == {
        "g0": "ml.m5.xlarge ×1 · FleetTraining · 30 GB",
        "g1": "ml.m5.xlarge ×1 · FleetTraining · 30 GB · spot",
        "g2": "ml.g5.xlarge ×4 · FleetTraining · 30 GB",
    }
    # quito ran under another role than its spec's (the file changed since): it stays in its city's group
    other_role = describe_job("demo-quito-20261129", role="arn:aws:iam::111122223333:role/TeamB")
    report = report_of(*demo_run(), other_role)
    assert len(report.groups) == 3
    assert {line.city: line.group for line in report.lines}["quito"] == "g0"


def test_spec_price_override_wins_and_is_recorded() -> None:
    spec = demo_spec("prices: {ml.m5.xlarge: 0.5}\n")
    book = PriceBook(spec.region, load_price_table(), spec.prices)
    report = build_cost_report(spec, RUN_KEY, [describe_job("demo-seoul-20261129", training=3600)], book)
    line = report.lines[0]
    assert (line.price_per_hour, line.price_source, line.cost_usd) == (0.5, "spec", 0.5)


def test_city_comes_from_tags_when_describe_has_them() -> None:
    tagged = describe_job(
        "renamed-by-hand", tags={"sagemaker-fleet:city": "lima", "sagemaker-fleet:attempt": "3"}
    )
    line = only_line(tagged)
    assert (line.city, line.attempt) == ("lima", 3)


def test_a_job_of_no_city_is_a_clear_error() -> None:
    from sagemaker_fleet.cost import UnattributedJobError

    with pytest.raises(UnattributedJobError, match="other-job"):
        report_of(describe_job("other-job"))
