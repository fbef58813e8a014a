"""``plan_fleet`` on hand-made fleets: grouping, lanes within quotas, cold lanes, keep-alive, durations."""

from __future__ import annotations

from pathlib import Path

import pytest

from sagemaker_fleet.fleetspec import load_fleet_spec
from sagemaker_fleet.fleetspec.model import InstanceQuota
from sagemaker_fleet.fleetspec.names import InvalidRunKeyError
from sagemaker_fleet.plan import DurationHistory, PlanError, plan_fleet
from unit.plan.plan_fleets import RUN_KEY, check_plan, city, fleet, role, spot

M5 = "ml.m5.xlarge"
COLD, WARM = 143, 21  # FastFile P90 start-up (docs/sagemaker-behaviour.md, start-up times)


def one_key(jobs: int, seconds: int = 1200) -> list:
    return [city(f"c{i:03d}", seconds) for i in range(jobs)]


# ------------------------------------------------------------------------------------------------ grouping


def test_small_example_fleet_groups_by_key_and_keeps_spot_apart(fleets_dir: Path) -> None:
    spec = load_fleet_spec(fleets_dir / "small.yaml")
    plan = plan_fleet(spec, RUN_KEY)
    check_plan(plan, spec)
    groups = {g.group: g for g in plan.groups}
    assert [g.group for g in plan.groups] == ["g0", "g1", "g2"]
    assert groups["g0"].key.role_arn.endswith("/FleetTraining")
    assert not groups["g0"].spot
    assert groups["g1"].key.instance_type == "ml.m5.2xlarge"
    assert groups["g1"].key.role_arn.endswith("/TeamB")
    assert groups["g2"].spot
    assert not groups["g2"].warm_pool
    assert {job.city for job in plan.jobs if job.group == "g2"} == {"perth", "dakar", "hanoi"}
    assert all(job.job_name == f"small-{job.city}-{RUN_KEY}" for job in plan.jobs)


def test_groups_are_numbered_by_first_appearance_and_spot_splits_a_key() -> None:
    cities = [
        city("x", role_arn=role(5)),
        city("y", role_arn=role(1)),
        city("z", role_arn=role(5), spot=spot()),
        city("w", role_arn=role(5)),
    ]
    plan = plan_fleet(fleet(cities), RUN_KEY)
    group_of = {job.city: job.group for job in plan.jobs}
    assert group_of == {"x": "g0", "w": "g0", "y": "g1", "z": "g2"}
    assert plan.group("g2").spot
    assert plan.group("g2").key == plan.group("g0").key


# ---------------------------------------------------------------------------------- lanes and keep-alive


def test_one_key_with_enough_pools_runs_warm_lanes_only_with_one_cold_start_each() -> None:
    spec = fleet(one_key(100), {M5: InstanceQuota(instances=10, warm_pools=10)})
    plan = plan_fleet(spec, RUN_KEY)
    check_plan(plan, spec)
    assert plan.summary.lanes == 10
    assert plan.summary.warm_lanes == 10
    assert plan.summary.cold_starts == 10
    assert plan.summary.warm_starts == 90
    for lane in plan.lanes:
        assert [job.start for job in lane.jobs] == ["cold"] + ["warm"] * (len(lane.jobs) - 1)
        # keep-alive covers the gap to the successor (one latency) plus one latency of margin; last job 0
        assert [job.keep_alive_seconds for job in lane.jobs] == [240] * (len(lane.jobs) - 1) + [0]
        assert lane.jobs[1].planned_start_seconds == lane.jobs[0].planned_end_seconds + 120
        assert lane.jobs[1].planned_seconds == WARM + 1200
    assert plan.summary.planned_retained_seconds == 90 * 120
    assert plan.summary.planned_makespan_seconds == COLD + 1200 + 9 * (120 + WARM + 1200)


@pytest.mark.parametrize(
    ("latency", "keep_alive"),
    [(0, 60), (120, 240), (1000, 2000), (3000, 3600)],
)
def test_auto_keep_alive_is_gap_plus_margin_capped_at_3600(latency: int, keep_alive: int) -> None:
    spec = fleet(
        one_key(4), {M5: InstanceQuota(instances=1, warm_pools=1)}, orchestration_latency_seconds=latency
    )
    lane = plan_fleet(spec, RUN_KEY).lanes[0]
    assert [job.keep_alive_seconds for job in lane.jobs] == [keep_alive] * 3 + [0]
    assert [job.start for job in lane.jobs] == ["cold", "warm", "warm", "warm"]


def test_a_latency_no_pool_can_outlive_plans_cold_lanes_and_says_why() -> None:
    spec = fleet(
        one_key(4), {M5: InstanceQuota(instances=1, warm_pools=1)}, orchestration_latency_seconds=3600
    )
    plan = plan_fleet(spec, RUN_KEY)
    check_plan(plan, spec)
    assert all(job.start == "cold" and job.keep_alive_seconds == 0 for job in plan.jobs)
    assert any("orchestration_latency_seconds 3600" in warning for warning in plan.warnings)


def test_explicit_keep_alive_overrides_auto_even_on_a_lanes_last_job() -> None:
    cities = [city("a", 2000, keep_alive=900), city("b", 1000), city("c", 500, keep_alive=1800)]
    spec = fleet(cities, {M5: InstanceQuota(instances=1, warm_pools=1)})
    plan = plan_fleet(spec, RUN_KEY)
    check_plan(plan, spec)
    keep = {job.city: job.keep_alive_seconds for job in plan.jobs}
    assert keep["a"] == 900
    assert keep["c"] == 1800
    last = plan.lanes[0].jobs[-1]
    assert (
        last.keep_alive_seconds == 0
    )  # b has no explicit keep-alive and no successor: its pool ends with it
    # a job with an explicit keep-alive is placed where its pool is handed on, not left idle at the end
    assert last.city == "b"


def test_explicit_zero_keep_alive_ends_the_pool_so_the_successor_starts_cold() -> None:
    cities = [city("a", 2000, keep_alive=0), city("b", 1000)]
    spec = fleet(cities, {M5: InstanceQuota(instances=1, warm_pools=1)})
    lane = plan_fleet(spec, RUN_KEY).lanes[0]
    assert [(job.city, job.start, job.keep_alive_seconds) for job in lane.jobs] == [
        ("a", "cold", 0),
        ("b", "cold", 0),
    ]


def test_spot_jobs_never_keep_pools_and_use_their_own_quota() -> None:
    cities = [city(f"s{i}", 1000, spot=spot()) for i in range(12)] + one_key(4)
    spec = fleet(cities, {M5: InstanceQuota(instances=2, warm_pools=2, spot_instances=3)})
    plan = plan_fleet(spec, RUN_KEY)
    check_plan(plan, spec)
    spot_lanes = [lane for lane in plan.lanes if lane.kind == "spot"]
    assert len(spot_lanes) == 3
    assert all(
        job.keep_alive_seconds == 0 and job.start == "cold" for lane in spot_lanes for job in lane.jobs
    )
    assert plan.summary.warm_lanes == 2


def test_spot_without_its_own_quota_shares_the_instance_quota() -> None:
    cities = [city(f"s{i}", 1000, spot=spot()) for i in range(6)] + one_key(6)
    spec = fleet(cities, {M5: InstanceQuota(instances=4, warm_pools=2)})
    plan = plan_fleet(spec, RUN_KEY)
    check_plan(plan, spec)  # the oracle counts spot and on-demand instances against the same 4


def test_jobs_using_several_instances_count_them_all() -> None:
    cities = [city(f"c{i}", 1000, instance_count=2) for i in range(10)]
    spec = fleet(cities, {M5: InstanceQuota(instances=5, warm_pools=4)})
    plan = plan_fleet(spec, RUN_KEY)
    check_plan(plan, spec)
    assert plan.summary.lanes == 2  # 5 instances hold two lanes of 2


def test_lanes_take_the_longest_jobs_first() -> None:
    seconds = [300, 2400, 900, 1500, 600, 1200, 1800, 2100]
    spec = fleet([city(f"c{i}", s) for i, s in enumerate(seconds)], {M5: InstanceQuota(2, 2)})
    plan = plan_fleet(spec, RUN_KEY)
    firsts = sorted(lane.jobs[0].expected_seconds for lane in plan.lanes)
    assert firsts == [2100, 2400]
    for lane in plan.lanes:
        assert [job.expected_seconds for job in lane.jobs] == sorted(
            (job.expected_seconds for job in lane.jobs), reverse=True
        )


# --------------------------------------------------------------------- warm-pool quota and cold lanes


def test_fewer_warm_pools_than_groups_time_slices_the_pools() -> None:
    """One instance, one pool, three keys: the groups take turns on the pool, each lane starting cold."""
    cities = (
        [city(f"a{i}", 1000, role_arn=role(0)) for i in range(3)]
        + [city(f"b{i}", 900, role_arn=role(1)) for i in range(3)]
        + [city(f"c{i}", 800, role_arn=role(2)) for i in range(2)]
    )
    spec = fleet(cities, {M5: InstanceQuota(instances=1, warm_pools=1)})
    plan = plan_fleet(spec, RUN_KEY)
    check_plan(plan, spec)
    assert [lane.kind for lane in plan.lanes] == ["warm", "warm", "warm"]
    assert plan.summary.cold_starts == 3
    assert plan.summary.warm_starts == 5
    ordered = sorted(plan.lanes, key=lambda lane: lane.start_seconds)
    for before, after in zip(ordered, ordered[1:], strict=False):
        assert after.start_seconds >= before.end_seconds + 120  # one lane after the other on the pool


def test_spare_instances_beyond_the_pools_run_cold_lanes_when_that_pays() -> None:
    spec = fleet(one_key(100), {M5: InstanceQuota(instances=20, warm_pools=8)})
    plan = plan_fleet(spec, RUN_KEY)
    check_plan(plan, spec)
    assert plan.summary.warm_lanes == 8
    assert plan.summary.cold_lanes == 12
    assert all(job.start == "cold" for lane in plan.lanes if lane.kind == "cold" for job in lane.jobs)
    assert plan.summary.cold_starts == 8 + sum(len(lane.jobs) for lane in plan.lanes if lane.kind == "cold")


def varied(jobs: int) -> list:
    return [city(f"c{i:03d}", 600 + (i * 377) % 1200) for i in range(jobs)]


def test_a_cold_lane_that_saves_under_five_percent_is_left_out() -> None:
    plan = plan_fleet(fleet(varied(200), {M5: InstanceQuota(instances=21, warm_pools=20)}), RUN_KEY)
    assert plan.summary.lanes == 20
    assert plan.summary.cold_lanes == 0


def test_a_deadline_the_warm_lanes_miss_brings_in_cold_lanes() -> None:
    quotas = {M5: InstanceQuota(instances=21, warm_pools=20)}
    without = plan_fleet(fleet(varied(200), quotas), RUN_KEY)
    deadline = int(0.98 * without.summary.planned_makespan_seconds)
    spec = fleet(varied(200), quotas, deadline_seconds=deadline)
    plan = plan_fleet(spec, RUN_KEY)
    check_plan(plan, spec)
    assert plan.summary.cold_lanes == 1
    assert plan.summary.planned_makespan_seconds <= deadline


def test_no_warm_pool_quota_plans_cold_lanes_and_warns() -> None:
    spec = fleet(one_key(30), {M5: InstanceQuota(instances=5, warm_pools=0)})
    plan = plan_fleet(spec, RUN_KEY)
    check_plan(plan, spec)
    assert plan.summary.warm_starts == 0
    assert plan.summary.lanes == 5
    assert any("no warm-pool quota" in warning for warning in plan.warnings)


def test_cold_lanes_are_not_added_where_they_would_not_shorten_the_run() -> None:
    """The m5 work ends long after the c5 work: the c5 pool keeps to its warm lanes."""
    cities = [city(f"m{i}", 3000) for i in range(100)] + [
        city(f"c{i}", 600, instance_type="ml.c5.xlarge", role_arn=role(1)) for i in range(20)
    ]
    quotas = {M5: InstanceQuota(instances=10, warm_pools=4), "ml.c5.xlarge": InstanceQuota(10, 2)}
    spec = fleet(cities, quotas)
    plan = plan_fleet(spec, RUN_KEY)
    check_plan(plan, spec)
    c5 = [lane for lane in plan.lanes if plan.group(lane.group).key.instance_type == "ml.c5.xlarge"]
    assert {lane.kind for lane in c5} == {"warm"}
    m5 = [lane for lane in plan.lanes if plan.group(lane.group).key.instance_type == M5]
    assert len(m5) == 10


def test_groups_sharing_a_pool_finish_together() -> None:
    cities = [city(f"a{i}", 1200, role_arn=role(0)) for i in range(120)] + [
        city(f"b{i}", 1200, role_arn=role(1)) for i in range(40)
    ]
    spec = fleet(cities, {M5: InstanceQuota(instances=16, warm_pools=16)})
    plan = plan_fleet(spec, RUN_KEY)
    check_plan(plan, spec)
    ends = {
        g.group: max(lane.end_seconds for lane in plan.lanes if lane.group == g.group) for g in plan.groups
    }
    assert abs(ends["g0"] - ends["g1"]) <= 1400  # within about one job
    assert plan.summary.planned_makespan_seconds <= 1.03 * plan.summary.makespan_lower_bound_seconds


# ---------------------------------------------------------------------------------------- errors, inputs


def test_a_job_larger_than_its_quota_is_a_plan_error() -> None:
    spec = fleet([city("big", instance_count=4)], {M5: InstanceQuota(instances=3, warm_pools=3)})
    with pytest.raises(PlanError, match=r"quotas\.ml\.m5\.xlarge\.instances is 3"):
        plan_fleet(spec, RUN_KEY)


def test_spot_cities_with_a_zero_spot_quota_are_a_plan_error() -> None:
    spec = fleet([city("s", spot=spot())], {M5: InstanceQuota(instances=3, warm_pools=0, spot_instances=0)})
    with pytest.raises(PlanError, match="spot_instances is 0"):
        plan_fleet(spec, RUN_KEY)


def test_an_instance_type_without_quota_is_a_plan_error() -> None:
    spec = fleet([city("x", instance_type="ml.g5.xlarge")], {M5: InstanceQuota(3, 0)})
    with pytest.raises(PlanError, match="no entry for ml.g5.xlarge"):
        plan_fleet(spec, RUN_KEY)


def test_a_bad_run_key_is_rejected() -> None:
    with pytest.raises(InvalidRunKeyError):
        plan_fleet(fleet(one_key(2)), "Not-A-Key")


def test_history_replaces_expected_seconds_and_calibrates_start_up() -> None:
    report = {
        "jobs": [
            {
                "city": "c000",
                "status": "Completed",
                "start": "cold",
                "training_seconds": 3000,
                "startup_seconds": 100,
            },
            *(
                {
                    "city": f"c{i:03d}",
                    "status": "Completed",
                    "start": "warm",
                    "training_seconds": 600,
                    "startup_seconds": 10,
                }
                for i in range(1, 6)
            ),
        ]
    }
    spec = fleet(one_key(8), {M5: InstanceQuota(instances=1, warm_pools=1)})
    plan = plan_fleet(spec, RUN_KEY, DurationHistory.from_report(report))
    expected = {job.city: job.expected_seconds for job in plan.jobs}
    assert expected["c000"] == 3000
    assert expected["c001"] == 600
    assert expected["c007"] == 1200
    warm_job = next(job for job in plan.jobs if job.start == "warm")
    assert warm_job.planned_seconds == warm_job.expected_seconds + 10  # five warm samples: P90 measured
    cold_job = plan.lanes[0].jobs[0]
    assert cold_job.planned_seconds == cold_job.expected_seconds + COLD  # one cold sample: table value kept


def test_file_mode_uses_its_own_start_up_times() -> None:
    spec = fleet(one_key(2), {M5: InstanceQuota(instances=1, warm_pools=1)}, input_mode="File")
    lane = plan_fleet(spec, RUN_KEY).lanes[0]
    assert [job.planned_seconds - job.expected_seconds for job in lane.jobs] == [176, 70]
