"""An Airflow fleet DAG for the Fleet view's app tests (the app reads its plan task and tags from the serialized DAG)."""

from __future__ import annotations

from pathlib import Path

from sagemaker_fleet.dags import build_fleet_dag

dag = build_fleet_dag(
    Path(__file__).resolve().parents[1] / "fleets" / "quick.yaml",
    dag_id="fleetview_quick",
)
