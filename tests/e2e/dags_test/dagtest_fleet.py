"""Airflow DAG that `airflow dags test` runs end to end (tests/e2e/test_dags_test.py): the ten-city fleet."""

from __future__ import annotations

import datetime as dt
from pathlib import Path

from sagemaker_fleet.dags import DispatchConfig, build_fleet_dag

dag = build_fleet_dag(
    Path(__file__).resolve().parent / "fleets" / "dagtest.yaml",
    dag_id="dagtest_fleet",
    schedule=None,
    # the city that fails once is retried 10 s later (the fleet DAG's default: a minute)
    default_args={"retry_delay": dt.timedelta(seconds=10)},
    dispatch=DispatchConfig(poll_interval=2.0),
)
