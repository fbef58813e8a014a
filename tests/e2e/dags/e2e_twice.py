"""Airflow DAG for the end-to-end tests: a small fleet on a daily schedule, whose scheduled run of today and a
manual run on the same day must each train every city once (tests/e2e/test_fleet_e2e.py)."""

from __future__ import annotations

import datetime as dt
from pathlib import Path

from airflow.timetables.trigger import CronTriggerTimetable

from sagemaker_fleet.dags import DispatchConfig, build_fleet_dag

dag = build_fleet_dag(
    Path(__file__).resolve().parents[1] / "fleets" / "twice.yaml",
    dag_id="e2e_twice",
    # no catch-up: unpausing creates one scheduled run, logical date today 00:00 UTC
    schedule=CronTriggerTimetable("0 0 * * *", timezone="UTC"),
    start_date=dt.datetime(2026, 1, 1, tzinfo=dt.UTC),
    tags=["e2e"],
    dispatch=DispatchConfig(poll_interval=2.0, capacity_retry_seconds=3.0),
    default_args={"retries": 3, "retry_delay": dt.timedelta(seconds=5)},
)
