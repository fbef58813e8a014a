"""Airflow fleet DAGs for the Fleet view's app tests (the app reads their plan tasks and tags from the serialized
DAGs): the run's fleet, and another team's (``other``), whose jobs a reader of the first sees only as counts
unless they may read this DAG too."""

from __future__ import annotations

from pathlib import Path

from sagemaker_fleet.dags import build_fleet_dag

FLEETS = Path(__file__).resolve().parents[1] / "fleets"

dag = build_fleet_dag(FLEETS / "quick.yaml", dag_id="fleetview_quick")
other = build_fleet_dag(FLEETS / "other.yaml", dag_id="fleetview_other")
