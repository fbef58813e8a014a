"""Train the demo fleet on demand from the Airflow UI: a form picks cities, spot on/off, an instance-type
override, or a dry run that only plans and reports the expected cost."""

from __future__ import annotations

from pathlib import Path

from sagemaker_fleet.dags import build_fleet_dag

# [START howto_fleet_dag_manual]
dag = build_fleet_dag(
    Path(__file__).parent / "fleets" / "demo.yaml",
    dag_id="city_training_manual",
    schedule=None,
    manual=True,
    tags=["manual"],
)
# [END howto_fleet_dag_manual]
