"""Airflow DAG: retrain every city of the fleet in dags/fleets/demo.yaml, daily, in pool-aware order, then report the cost."""

from __future__ import annotations

# [START howto_fleet_dag]
from pathlib import Path

from sagemaker_fleet.dags import build_fleet_dag

dag = build_fleet_dag(
    Path(__file__).parent / "fleets" / "demo.yaml",
    dag_id="city_training_daily",
    schedule="@daily",
    tags=["daily"],
)
# [END howto_fleet_dag]
