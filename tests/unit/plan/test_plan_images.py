"""The training image as the planner's secondary ordering key.

The image is no warm-pool matching criterion, so cities with different images share a group; a warm start whose
image differs from its lane predecessor's pulls it again. Within a group, jobs of one image should run back to back
on a lane, without lengthening the makespan by more than 1 % against the same fleet planned without the image key.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from sagemaker_fleet.fleetspec import load_fleet_spec
from sagemaker_fleet.fleetspec.model import InstanceQuota
from sagemaker_fleet.plan import FleetPlan, PlanError, plan_fleet
from sagemaker_fleet.plan.durations import StartupSeconds
from sagemaker_fleet.plan.groups import JobTask
from sagemaker_fleet.plan.lane_images import group_lane_images
from sagemaker_fleet.plan.render import render_table
from sagemaker_fleet.plan.schedule import ScheduledLane
from unit.plan.plan_fleets import RUN_KEY, TYPES, FleetShape, check_plan, random_fleet

TWO_IMAGES = Path(__file__).resolve().parents[3] / "benchmarks" / "fleets" / "two_images.yaml"
SETTINGS = settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def lane_images(plan: FleetPlan) -> list[list[str]]:
    spec = load_fleet_spec(TWO_IMAGES)
    return [
        [spec.city(job.city).image_uri for job in lane.jobs] for lane in plan.lanes if lane.kind == "warm"
    ]


def blocks(images: list[str]) -> int:
    """How many runs of one image a lane has (1 + its image changes)."""
    return 1 + sum(1 for before, after in zip(images, images[1:], strict=False) if before != after)


@pytest.fixture(scope="module")
def plans() -> tuple[FleetPlan, FleetPlan]:
    spec = load_fleet_spec(TWO_IMAGES)
    return plan_fleet(spec, RUN_KEY), plan_fleet(spec, RUN_KEY, image_order=False)


def test_interleaved_images_run_back_to_back_on_each_warm_lane(plans: tuple[FleetPlan, FleetPlan]) -> None:
    ordered, plain = plans
    assert plain.summary.image_changes >= 8  # spec order interleaves the two images
    assert ordered.summary.image_changes <= 4
    assert all(blocks(images) <= 2 for images in lane_images(ordered)), "an image comes back on a lane"
    assert ordered.summary.planned_makespan_seconds <= plain.summary.planned_makespan_seconds


def test_each_image_change_costs_its_pull_in_the_plan(plans: tuple[FleetPlan, FleetPlan]) -> None:
    spec = load_fleet_spec(TWO_IMAGES)
    for plan in plans:
        check_plan(plan, spec)  # the oracle adds the pull to each changed warm start and checks the flags


def test_plan_json_and_table_count_image_changes(plans: tuple[FleetPlan, FleetPlan]) -> None:
    _, plain = plans
    data = plain.to_json()
    assert data["summary"]["image_changes"] == sum(job["image_change"] for job in data["jobs"]) > 0
    assert FleetPlan.from_json(plain.dumps()) == plain
    for job in data["jobs"]:
        del job["image_change"]
    del data["summary"]["image_changes"]
    old = FleetPlan.from_json(data)  # a plan written before the field existed
    assert old.summary.image_changes == 0
    assert not any(job.image_change for job in old.jobs)
    table = render_table(plain)
    assert f"{plain.summary.image_changes} image change(s)" in table
    assert table.count("image change: pulled again") == plain.summary.image_changes


def test_one_image_plans_exactly_as_without_the_key() -> None:
    spec = random_fleet(
        FleetShape(cities=60, keys=2, types=1, seed=4, quotas={TYPES[0]: InstanceQuota(8, 4)})
    )
    assert plan_fleet(spec, RUN_KEY) == plan_fleet(spec, RUN_KEY, image_order=False)


@st.composite
def image_shapes(draw: st.DrawFn) -> FleetShape:
    instances = draw(st.integers(2, 30))
    return FleetShape(
        cities=draw(st.one_of(st.integers(2, 40), st.integers(41, 300))),
        keys=draw(st.integers(1, 3)),
        types=1,
        seed=draw(st.integers(0, 2**32 - 1)),
        explicit_keep_alive_share=draw(st.sampled_from([0.0, 0.0, 0.2])),
        latency=draw(st.sampled_from([0, 30, 120, 600])),
        input_mode=draw(st.sampled_from(["FastFile", "File"])),
        quotas={TYPES[0]: InstanceQuota(instances=instances, warm_pools=draw(st.integers(1, instances)))},
        images=draw(st.integers(2, 5)),
    )


@SETTINGS
@given(image_shapes())
def test_the_image_key_costs_at_most_one_percent_of_makespan(shape: FleetShape) -> None:
    spec = random_fleet(shape)
    try:
        ordered = plan_fleet(spec, RUN_KEY)
    except PlanError:
        return
    plain = plan_fleet(spec, RUN_KEY, image_order=False)
    check_plan(ordered, spec)
    assert ordered.summary.planned_makespan_seconds <= 1.01 * plain.summary.planned_makespan_seconds
    assert ordered.summary.image_changes <= plain.summary.image_changes


# ------------------------------------------------------------------------------ regrouping one lane


STARTUP = StartupSeconds(cold=143, warm=21, image_pull=34)


def task(name: str, image: str, training: int, keep_alive: int | None = None) -> JobTask:
    return JobTask(city=0, name=name, training=training, keep_alive=keep_alive, image=image)


def lane_of(tasks: list[JobTask], latency: int = 120) -> ScheduledLane:
    from sagemaker_fleet.plan.lane_images import retime

    lane = ScheduledLane(group=0, warm=True, slot=0, budget=None, jobs=retime(tasks, 0, STARTUP, latency))
    lane.released_at = lane.end + lane.jobs[-1].keep_alive
    return lane


def test_a_lane_is_regrouped_by_image_and_ends_one_pull_earlier_per_change_saved() -> None:
    lane = lane_of([task("a1", "A", 900), task("b1", "B", 800), task("a2", "A", 700), task("b2", "B", 600)])
    assert [job.image_change for job in lane.jobs] == [False, True, True, True]
    end = lane.end
    group_lane_images([lane], STARTUP, 120)
    assert [job.task.name for job in lane.jobs] == ["a1", "a2", "b1", "b2"]
    assert [job.image_change for job in lane.jobs] == [False, False, True, False]
    assert lane.end == end - 2 * 34
    assert lane.released_at == lane.end


@pytest.mark.parametrize("keep_alive", [50, 3600])
def test_a_regrouping_that_would_leave_an_explicit_pool_idle_at_the_end_is_not_taken(keep_alive: int) -> None:
    # regrouped, b2 (explicit keep-alive) would end the lane and its pool idle after it instead of auto's 0 —
    # even where the three pulls saved (102 s) would still free the slot earlier (keep-alive 50)
    tasks = [task("a1", "A", 900), task("b1", "B", 850), task("a2", "A", 800)]
    tasks += [task("b2", "B", 750, keep_alive=keep_alive), task("a3", "A", 700)]
    lane = lane_of(tasks, latency=30)
    before = [job.task.name for job in lane.jobs]
    group_lane_images([lane], STARTUP, 30)
    assert [job.task.name for job in lane.jobs] == before


def test_cold_lanes_are_left_as_they_are() -> None:
    lane = lane_of([task("a1", "A", 900), task("b1", "B", 800), task("a2", "A", 700)])
    lane.warm = False
    before = list(lane.jobs)
    group_lane_images([lane], STARTUP, 120)
    assert lane.jobs == before
