"""Airflow DAG that `airflow dags test` runs end to end (tests/e2e/test_dags_test.py): the ten-city fleet."""

from __future__ import annotations

from pathlib import Path

from sagemaker_fleet.dags import DispatchConfig, build_fleet_dag

dag = build_fleet_dag(
    Path(__file__).resolve().parent / "fleets" / "dagtest.yaml",
    dag_id="dagtest_fleet",
    schedule=None,
    dispatch=DispatchConfig(poll_interval=2.0),
)
