"""The report names groups as the plan does, and sets the run against its plan group by group: warm starts planned
and got, why each missed one started cold (expiry with the gap and the keep-alive, taken, quota, never existed,
ordering, spot), and the idle pools nobody took."""

from __future__ import annotations

from dataclasses import replace
from datetime import UTC, datetime, timedelta
from typing import TYPE_CHECKING, Any

import pytest

from sagemaker_fleet.cost import build_cost_report
from sagemaker_fleet.cost.against_plan import NO_PLAN, plan_against_actual
from sagemaker_fleet.cost.export import JOB_FIELDS, render_csv, report_json
from sagemaker_fleet.cost.groups import GroupInfo
from sagemaker_fleet.cost.model import CostLine
from sagemaker_fleet.cost.page import render_html
from sagemaker_fleet.cost.summary import WARNING, summary_lines
from sagemaker_fleet.cost.totals import totals_by
from sagemaker_fleet.fleetspec.model import InstanceQuota
from sagemaker_fleet.fleetspec.price_table import load_price_table
from sagemaker_fleet.jobs.groups import city_groups
from sagemaker_fleet.jobs.prices import PriceBook
from sagemaker_fleet.plan import FleetPlan, plan_fleet
from unit.cost.cost_describes import RUN_KEY, demo_spec, describe_job, end_of
from unit.plan.plan_fleets import city, fleet

if TYPE_CHECKING:
    from sagemaker_fleet.cost.report import CostReport
    from sagemaker_fleet.fleetspec.model import FleetSpec

BEGAN = datetime(2026, 11, 29, tzinfo=UTC)
M5 = 0.23


def _at(seconds: float) -> datetime:
    return BEGAN + timedelta(seconds=seconds)


def _line(city_name: str, *, created: float, ended: float, **changes: object) -> CostLine:
    base = CostLine(
        city=city_name, job_name=f"demo-{city_name}-{RUN_KEY}", attempt=1, status="Completed",
        secondary_status="Completed", failure_reason=None, instance_type="ml.m5.xlarge", instance_count=1,
        spot=False, start="cold", start_evidence="timing", startup_seconds=180.0, startup_seconds_saved=0.0,
        training_seconds=600, billable_seconds=780, retained_billable_seconds=0, price_per_hour=M5,
        price_source="table", group="g0", created_at=_at(created), training_started_at=_at(created + 180),
        ended_at=_at(ended),
    )  # fmt: skip
    return replace(base, **changes)  # type: ignore[arg-type]


@pytest.fixture
def lane_plan() -> FleetPlan:
    """One warm lane a → b (and a third city c that may take a's pool)."""
    spec = fleet([city("a", 600), city("b", 600)], {"ml.m5.xlarge": InstanceQuota(instances=1, warm_pools=1)})
    plan = plan_fleet(spec, RUN_KEY)
    assert [(j.city, j.start) for j in plan.jobs] == [("a", "cold"), ("b", "warm")]
    return plan


def _against(plan: FleetPlan, lines: tuple[CostLine, ...]):  # type: ignore[no-untyped-def]
    group = GroupInfo.of("g0", plan.groups[0].key, False, "ml.m5.xlarge", 1)
    return plan_against_actual(plan, lines, [group], totals_by(lines, lambda line: line.group))


@pytest.mark.parametrize(
    ("a", "b", "reason", "words", "figures"),
    [
        ({"keep_alive_seconds": 240, "warm_pool_status": "Terminated", "retained_billable_seconds": 240},
         {"created": 1200}, "expiry",
         "a's pool expired: b was created 6 min 40 s after a ended, past its keep-alive of 240 s",
         {"gap_seconds": 400.0, "keep_alive_seconds": 240, "predecessor": "a"}),
        ({"keep_alive_seconds": 240, "warm_pool_status": "Terminated"}, {"created": 850}, "quota",
         "the warm-pool quota was full", {"gap_seconds": 50.0}),
        ({"keep_alive_seconds": 240, "warm_pool_status": "Reused", "reused_by_job": f"demo-c-{RUN_KEY}"},
         {"created": 900}, "taken", "c took a's pool first (b was created 1 min 40 s after a ended)",
         {"taken_by_job": f"demo-c-{RUN_KEY}"}),
        # another fleet's job took it: the report does not name it (disclosure), the pool says Reused
        ({"keep_alive_seconds": 240, "warm_pool_status": "Reused"}, {"created": 900}, "taken",
         "another run's job took a's pool first", {"taken_by_job": None}),
        ({"keep_alive_seconds": 240}, {"created": 500}, "ordering", "created 5 min 00 s before a ended",
         {"gap_seconds": -300.0}),
        ({"keep_alive_seconds": 240}, {"created": 900, "spot": True}, "spot", "never uses a warm pool", {}),
        ({"keep_alive_seconds": 0}, {"created": 900}, "predecessor", "a ran without keep-alive", {}),
        ({"keep_alive_seconds": 240, "spot": True}, {"created": 900}, "predecessor", "a ran on spot", {}),
        ({"keep_alive_seconds": 240, "status": "Failed", "training_started_at": None}, {"created": 900},
         "predecessor", "a failed before training", {}),
    ],
)  # fmt: skip
def test_each_reason_from_what_sagemaker_said_of_the_predecessor_s_pool(
    lane_plan: FleetPlan,
    a: dict[str, Any],
    b: dict[str, Any],
    reason: str,
    words: str,
    figures: dict[str, Any],
) -> None:
    lines = (
        _line("a", created=0, ended=800, **a),
        _line("b", created=b.pop("created"), ended=2000, **b),
        _line("c", created=850, ended=1500, start="warm"),
    )
    (missed,) = _against(lane_plan, lines).missed
    assert (missed.city, missed.reason, missed.group) == ("b", reason, "g0")
    assert words in missed.detail
    assert {name: getattr(missed, name) for name in figures} == figures


def test_a_city_whose_predecessor_never_ran_missed_a_pool_that_never_existed(lane_plan: FleetPlan) -> None:
    (missed,) = _against(lane_plan, (_line("b", created=900, ended=1600),)).missed
    assert missed.reason == "predecessor"
    assert "has no job in the run" in missed.detail


def test_a_planned_warm_start_that_happened_is_not_listed_and_counts_as_got(lane_plan: FleetPlan) -> None:
    lines = (_line("a", created=0, ended=800), _line("b", created=900, ended=1600, start="warm"))
    against = _against(lane_plan, lines)
    assert against.missed == ()
    (group,) = against.groups
    assert (group.planned_jobs, group.planned_warm_starts, group.warm_starts) == (2, 1, 1)
    assert not against.short


def test_a_planned_warm_city_without_a_job_is_not_started_not_missed(lane_plan: FleetPlan) -> None:
    against = _against(lane_plan, (_line("a", created=0, ended=800),))
    assert against.missed == ()
    assert against.groups[0].not_started == 1


def test_pools_nobody_took_are_counted_and_priced_reused_and_available_ones_are_not(
    lane_plan: FleetPlan,
) -> None:
    lines = (
        _line("a", created=0, ended=800, keep_alive_seconds=240, warm_pool_status="Terminated",
              retained_billable_seconds=240),
        _line("b", created=1200, ended=2000, keep_alive_seconds=240, warm_pool_status="Reused",
              retained_billable_seconds=100, reused_by_job="demo-x-1"),
        _line("c", created=0, ended=900, keep_alive_seconds=240, warm_pool_status="Available",
              retained_billable_seconds=60, instance_count=2),
    )  # fmt: skip
    against = _against(lane_plan, lines)
    (group,) = against.groups
    assert (group.untaken_pools, group.untaken_retained_billable_seconds) == (1, 240)
    assert group.untaken_retained_cost_usd == pytest.approx(240 * M5 / 3600)
    assert against.untaken_retained_cost_usd == pytest.approx(240 * M5 / 3600)
    assert [line.pool_untaken for line in lines] == [True, False, False]


def test_far_fewer_warm_starts_than_planned_is_flagged_with_the_figures(lane_plan: FleetPlan) -> None:
    lines = (
        _line("a", created=0, ended=800, keep_alive_seconds=240, warm_pool_status="Terminated",
              retained_billable_seconds=240),
        _line("b", created=1200, ended=2000),
    )  # fmt: skip
    against = _against(lane_plan, lines)
    assert against.short
    assert against.headline() == (
        "planned 1 warm, got 0: 1 missed (expiry 1) · $0.02 of idle pools nobody took (1 pool(s))"
    )


# ------------------------------------------------------------------------------------------ the report


def _report(spec: FleetSpec, describes: list[dict[str, Any]], plan: FleetPlan | None = None) -> CostReport:
    book = PriceBook(spec.region, load_price_table(), spec.prices)
    return build_cost_report(
        spec, RUN_KEY, describes, book, generated_at=datetime(2026, 11, 29, 12, tzinfo=UTC), plan=plan
    )


def test_the_report_names_each_job_s_group_as_the_plan_does_not_by_instance_type() -> None:
    """The plan numbers groups in spec order (seoul's ml.m5.xlarge g0, perth's spot g1, vision's ml.g5.xlarge g2);
    the report numbered them by instance type (ml.g5.xlarge first) before."""
    spec = demo_spec()
    describes = [
        describe_job("demo-vision-20261129", instance_type="ml.g5.xlarge", count=4),
        describe_job("demo-seoul-20261129"),
        describe_job("demo-perth-20261129", spot=True, billable=300),
    ]
    plan = plan_fleet(spec, RUN_KEY)
    for with_plan in (plan, None):
        report = _report(spec, describes, with_plan)
        groups = {line.city: line.group for line in report.lines}
        assert (
            groups
            == {name: plan.job(name).group for name in groups}
            == {
                "vision": "g2",
                "seoul": "g0",
                "perth": "g1",
            }
        )
    assert city_groups(spec) == {job.city: job.group for job in plan.jobs}
    shown = [g.id for g in _report(spec, describes).groups]
    assert shown == ["g0", "g1", "g2"]
    doc = report_json(_report(spec, describes, plan))
    assert [(g["group"], g["instance_type"], g["spot"]) for g in doc["by_group"]] == [
        ("g0", "ml.m5.xlarge", False),
        ("g1", "ml.m5.xlarge", True),
        ("g2", "ml.g5.xlarge", False),
    ]


def test_a_job_whose_city_is_in_neither_plan_nor_spec_joins_the_group_of_its_key_or_one_of_its_own() -> None:
    spec = demo_spec()
    describes = [
        describe_job("demo-seoul-20261129"),
        # cities removed from the file since the run, found by their tags
        describe_job(
            "demo-old-20261129", tags={"sagemaker-fleet:city": "old", "sagemaker-fleet:attempt": "1"}
        ),
        describe_job(
            "demo-odd-20261129",
            instance_type="ml.c5.xlarge",
            tags={"sagemaker-fleet:city": "odd", "sagemaker-fleet:attempt": "1"},
        ),
    ]
    report = _report(spec, describes, plan_fleet(spec, RUN_KEY))
    assert {line.city: line.group for line in report.lines} == {"seoul": "g0", "old": "g0", "odd": "g3"}
    odd = report.groups[-1]
    assert (odd.id, odd.instance_type, odd.planned) == ("g3", "ml.c5.xlarge", False)
    assert report_json(report)["by_group"][-1]["planned"] is False


def _run_that_missed() -> tuple[FleetSpec, FleetPlan, list[dict[str, Any]]]:
    """Two cities on one warm lane; the first's pool expired 400 s before the second was created."""
    spec = demo_spec()
    spec = replace(spec, cities=tuple(c for c in spec.cities if c.name in ("seoul", "tokyo")))
    spec = replace(spec, quotas={"ml.m5.xlarge": InstanceQuota(instances=1, warm_pools=1)})
    plan = plan_fleet(spec, RUN_KEY)
    assert sorted(job.start for job in plan.jobs) == ["cold", "warm"]
    first, second = sorted(plan.jobs, key=lambda job: job.position)
    a = describe_job(first.job_name, keep_alive=240, retained=240, pool_status="Terminated")
    b = describe_job(second.job_name, created=end_of(a) + 640)
    return spec, plan, [a, b]


def test_report_json_csv_html_and_summary_show_the_plan_against_actual() -> None:
    spec, plan, describes = _run_that_missed()
    report = _report(spec, describes, plan)
    second = max(plan.jobs, key=lambda job: job.position)
    doc = report_json(report)
    against = doc["plan_against_actual"]
    assert (against["planned_warm_starts"], against["warm_starts"], against["missed_warm_starts"]) == (
        1,
        0,
        1,
    )
    assert against["short"] is True
    (group,) = against["groups"]
    assert (group["group"], group["untaken_pools"]) == ("g0", 1)
    assert group["untaken_retained_cost_usd"] == pytest.approx(240 * M5 / 3600, abs=1e-6)
    (missed,) = group["missed_warm_starts"]
    assert (missed["city"], missed["reason"], missed["gap_seconds"], missed["keep_alive_seconds"]) == (
        second.city,
        "expiry",
        640.0,
        240,
    )
    assert doc["totals"]["untaken_pools"] == 1
    jobs = {job["city"]: job for job in doc["jobs"]}
    assert jobs[second.city]["planned_start"] == "warm"
    assert jobs[second.city]["missed_warm_start"] == "expiry"
    assert [job["pool_untaken"] for job in doc["jobs"]].count(True) == 1
    header = render_csv(report).splitlines()[0].split(",")
    assert header == list(JOB_FIELDS)
    assert {"planned_start", "missed_warm_start", "pool_untaken"} <= set(header)
    page = render_html(report)
    assert 'id="plan-short"' in page
    assert 'id="plan-groups"' in page
    assert "expired" in page
    lines = summary_lines(report)
    flagged = [line for line in lines if line.startswith(WARNING)]
    assert flagged == [
        f"{WARNING}far fewer warm starts than planned — planned 1 warm, got 0: 1 missed (expiry 1) · $0.02 of "
        "idle pools nobody took (1 pool(s))"
    ]
    assert any(line.startswith(f"  {second.city} (g0): expiry — ") for line in lines)


def test_without_the_plan_the_section_is_one_line_saying_how_to_get_it() -> None:
    spec, _, describes = _run_that_missed()
    report = _report(spec, describes)
    assert report.against_plan is None
    assert report_json(report)["plan_against_actual"] is None
    assert NO_PLAN in summary_lines(report)
    assert "--plan PLAN.json" in NO_PLAN
    assert 'id="no-plan"' in render_html(report)
    assert all(job["planned_start"] is None for job in report_json(report)["jobs"])
    # the idle money nobody took needs no plan: it is in the totals
    assert report_json(report)["totals"]["untaken_pools"] == 1
