"""Airflow DAG for the end-to-end tests: the manual DAG of the twice fleet (tests/e2e/fleets/twice.yaml), as
dags/city_training_manual.py is the demo fleet's beside its daily DAG. The test triggers it while the daily DAG's
scheduled run trains (a fleet DAG has one active run at a time, so a manual run beside a scheduled one comes from a
DAG of its own): both runs declare the account's whole quota and must share it (tests/e2e/test_fleet_e2e.py)."""

from __future__ import annotations

import datetime as dt
from pathlib import Path

from sagemaker_fleet.dags import DispatchConfig, build_fleet_dag

dag = build_fleet_dag(
    Path(__file__).resolve().parents[1] / "fleets" / "twice.yaml",
    dag_id="e2e_twice_manual",
    schedule=None,
    manual=True,
    tags=["e2e", "manual"],
    dispatch=DispatchConfig(poll_interval=2.0, capacity_retry_seconds=3.0),
    default_args={"retries": 3, "retry_delay": dt.timedelta(seconds=5)},
)
