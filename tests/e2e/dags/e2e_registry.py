"""Airflow DAG for the end-to-end tests: the 20-city fleet with register: (tests/e2e/fleets/registry.yaml), triggered
twice by the test (tests/e2e/registry.py): each run's models go through the champion gate into the registry."""

from __future__ import annotations

import datetime as dt
from pathlib import Path

from sagemaker_fleet.dags import DispatchConfig, build_fleet_dag

dag = build_fleet_dag(
    Path(__file__).resolve().parents[1] / "fleets" / "registry.yaml",
    dag_id="e2e_registry",
    schedule=None,
    tags=["e2e"],
    default_args={"retries": 3, "retry_delay": dt.timedelta(seconds=5)},
    dispatch=DispatchConfig(poll_interval=2.0, capacity_retry_seconds=3.0),
)
