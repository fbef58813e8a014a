"""Airflow DAG for the browser test: the shipped manual DAG's form on the 12-city small fleet, polling fast."""

from __future__ import annotations

from pathlib import Path

from sagemaker_fleet.dags import DispatchConfig, build_fleet_dag

dag = build_fleet_dag(
    Path(__file__).resolve().parents[3] / "dags" / "fleets" / "small.yaml",
    dag_id="city_training_manual",
    schedule=None,
    manual=True,
    tags=["manual"],
    dispatch=DispatchConfig(poll_interval=1.0, capacity_retry_seconds=2.0),
)
