"""Which idle pools a run ends at its end, from DescribeTrainingJob-shaped descriptions (pure)."""

from __future__ import annotations

import datetime as dt

from sagemaker_fleet.jobs.release import IdlePool, idle_pool, release_decision

T0 = dt.datetime(2026, 12, 1, 8, tzinfo=dt.UTC)


def described(name: str, status: str | None = "Available", keep_alive: int = 600, count: int = 1) -> dict:
    return {
        "TrainingJobName": name,
        "TrainingEndTime": T0,
        "ResourceConfig": {
            "InstanceType": "ml.m5.xlarge",
            "InstanceCount": count,
            "KeepAlivePeriodInSeconds": keep_alive,
        },
        **({"WarmPoolStatus": {"Status": status}} if status else {}),
    }


def test_only_an_available_pool_with_a_known_expiry_is_idle() -> None:
    assert idle_pool(described("a")) == IdlePool("a", "ml.m5.xlarge", 1, T0 + dt.timedelta(seconds=600))
    for status in ("InUse", "Reused", "Terminated", None):
        assert idle_pool(described("a", status)) is None
    assert idle_pool(described("a", keep_alive=0)) is None


def test_every_pool_is_ended_and_the_saving_is_what_each_had_left_times_its_instances() -> None:
    pools = [idle_pool(described("b", keep_alive=600, count=2)), idle_pool(described("a", keep_alive=300))]
    now = T0 + dt.timedelta(seconds=100)
    decision = release_decision([p for p in pools if p], now)
    assert [p.job_name for p in decision.end] == ["a", "b"]
    assert decision.keep == ()
    assert decision.seconds_saved(now) == 200 * 1 + 500 * 2
    # a pool past its expiry (SageMaker has not reported it ended yet) saves nothing
    assert decision.seconds_saved(T0 + dt.timedelta(hours=1)) == 0


def test_carrying_keeps_only_pools_alive_when_the_next_run_starts() -> None:
    short, long_ = (
        idle_pool(described("short", keep_alive=300)),
        idle_pool(described("long", keep_alive=3600)),
    )
    assert short is not None
    assert long_ is not None
    now = T0 + dt.timedelta(seconds=60)
    decision = release_decision([short, long_], now, next_run_at=T0 + dt.timedelta(seconds=1800))
    assert [p.job_name for p in decision.end] == ["short"]
    assert [p.job_name for p in decision.keep] == ["long"]
    # a next run already past (a missed schedule) carries nothing
    assert release_decision([long_], now, next_run_at=T0).keep == ()
