"""The log lines that name a group name it as the plan does and say what is done once: the plan task's line per
group, and a city's line when ``airflow dags test`` starts the run's cities one at a time."""

from __future__ import annotations

from sagemaker_fleet.dispatch import DispatchBook
from sagemaker_fleet.fleetspec.model import InstanceQuota
from sagemaker_fleet.jobs.groups import city_groups
from sagemaker_fleet.operators.plan import group_lines
from sagemaker_fleet.plan import plan_fleet
from sagemaker_fleet.triggers.inline import one_at_a_time_line
from unit.plan.plan_fleets import RUN_KEY, city, fleet, spot


def _fleet():  # type: ignore[no-untyped-def]
    """ml.m5.xlarge first in the spec (g0, one lane of three), a spot city (g1), ml.c5.xlarge last (g2, no pool)."""
    spec = fleet(
        [
            city("caen", 900),
            city("brest", 800, spot=spot()),
            city("lyon", 700),
            city("metz", 600, instance_type="ml.c5.xlarge"),
            city("nice", 500),
        ],
        {
            "ml.m5.xlarge": InstanceQuota(instances=1, warm_pools=1, spot_instances=1),
            "ml.c5.xlarge": InstanceQuota(instances=1, warm_pools=0),  # no warm-pool quota: no pool
        },
    )
    plan = plan_fleet(spec, RUN_KEY)
    return spec, plan, DispatchBook.from_plan(plan, spec)


def test_the_plan_task_names_each_group_as_the_plan_and_the_report_do() -> None:
    spec, plan, book = _fleet()
    assert city_groups(spec) == {job.city: job.group for job in plan.jobs}
    lines = group_lines(plan, book.widths)
    assert lines == [
        "group g0 (ml.m5.xlarge ×1 · Team0 · 30 GB): 3 job(s) in 1 lane(s), up to 1 at once; 2 warm start(s) planned",
        "group g1 (ml.m5.xlarge ×1 · Team0 · 30 GB · spot): 1 job(s) in 1 lane(s), up to 1 at once; spot: no warm "
        "pool",
        "group g2 (ml.c5.xlarge ×1 · Team0 · 30 GB): 1 job(s) in 1 lane(s), up to 1 at once; no warm pool planned",
    ]


def test_under_dags_test_the_group_line_says_the_cities_start_one_at_a_time() -> None:
    _, plan, book = _fleet()
    first = group_lines(plan, book.widths, one_at_a_time=True)[0]
    assert "up to 1 at once as planned; airflow dags test starts them one at a time" in first


def test_the_one_at_a_time_line_promises_a_pool_only_where_the_job_keeps_one() -> None:
    _, plan, book = _fleet()
    caen = one_at_a_time_line("caen", book.turns["caen"], len(book.turns), 680, 40.0)
    assert caen.startswith(
        "caen: the run's cities start one at a time in the order Airflow runs them (airflow dags test): this one "
        "starts now (planned 1 of 5, group g0); while a city of group g0 is still to come, its job keeps its pool "
        "at least 680 s (Airflow's own gap between tasks at the endpoint's speed 40)"
    )
    brest = one_at_a_time_line("brest", book.turns["brest"], len(book.turns), 680, 40.0)
    assert brest.endswith(
        f"(planned {book.turns['brest'].order + 1} of 5, group g1); spot jobs keep no warm pool"
    )
    assert "keeps its pool" not in brest
    metz = one_at_a_time_line("metz", book.turns["metz"], len(book.turns), 680, 1.0)
    assert metz.endswith("group g2); its group keeps no warm pool")
