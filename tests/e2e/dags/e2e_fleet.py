"""Airflow DAG for the end-to-end tests: the 60-city e2e fleet, triggered by the test (no schedule)."""

from __future__ import annotations

import datetime as dt
from pathlib import Path

from sagemaker_fleet.dags import build_fleet_dag

dag = build_fleet_dag(
    Path(__file__).resolve().parents[1] / "fleets" / "e2e.yaml",
    dag_id="e2e_fleet",
    schedule=None,
    tags=["e2e"],
    poll_interval=2.0,
    capacity_retry_seconds=3.0,
    default_args={"retries": 3, "retry_delay": dt.timedelta(seconds=5)},
)
