"""Airflow DAG: retrain every city of the fleet in dags/fleets/weekly.yaml, weekly, in pool-aware order, then report the cost."""

from __future__ import annotations

from pathlib import Path

from sagemaker_fleet.dags import build_fleet_dag

dag = build_fleet_dag(
    Path(__file__).parent / "fleets" / "weekly.yaml",
    dag_id="city_training_weekly",
    schedule="@weekly",
    tags=["weekly"],
)
