"""The report says what ending the run's idle pools at its end saved (from the release task's result)."""

from __future__ import annotations

import dataclasses

from sagemaker_fleet.cost.export import report_json
from sagemaker_fleet.cost.report import ReleasedPools, released_pools
from sagemaker_fleet.cost.summary import summary_lines
from sagemaker_fleet.fleetspec.price_table import load_price_table
from sagemaker_fleet.jobs.prices import PriceBook
from unit.cost.cost_describes import demo_report, demo_spec

RELEASE = {
    "ended": [
        {
            "job_name": "demo-seoul-20261129",
            "instance_type": "ml.m5.xlarge",
            "instance_count": 1,
            "idle_seconds_left": 600,
        },
        {
            "job_name": "demo-vision-20261129",
            "instance_type": "ml.g5.xlarge",
            "instance_count": 4,
            "idle_seconds_left": 300,
        },
    ],
    "kept": ["demo-tokyo-20261129"],
    "idle_seconds_saved": 1800,
}


def test_the_saving_is_each_pools_seconds_left_times_its_instances_at_its_price() -> None:
    spec = demo_spec()
    book = PriceBook(spec.region, load_price_table())
    released = released_pools(RELEASE, book)
    m5, g5 = book.price("ml.m5.xlarge").usd_per_hour, book.price("ml.g5.xlarge").usd_per_hour
    assert released == ReleasedPools(
        pools=2,
        idle_seconds_saved=600 + 4 * 300,
        idle_cost_saved_usd=round((600 * m5 + 1200 * g5) / 3600, 2),
        kept=1,
    )


def test_report_json_and_summary_show_it_and_say_nothing_without_a_release() -> None:
    report = demo_report()
    assert report_json(report)["pools_released"] is None
    assert not any("idle warm pool" in line for line in summary_lines(report))
    released = dataclasses.replace(report, released=ReleasedPools(2, 1800, 0.45, kept=1))
    assert report_json(released)["pools_released"] == {
        "pools": 2,
        "idle_seconds_saved": 1800,
        "idle_cost_saved_usd": 0.45,
        "kept": 1,
    }
    assert (
        "at the run's end 2 idle warm pool(s) ended: 30 min 00 s of idle instance time "
        "($0.45) not billed · 1 kept for the next run"
    ) in summary_lines(released)
