"""Airflow DAG for the end-to-end tests: the deploy step after the registry fleet, as dags/city_models_changed.py is
after the demo fleet. Scheduled on the fleet's models asset, it "deploys" the cities of each event — with
register:, the approved ones — by writing them to ``$AIRFLOW_HOME/deployed/<run id>.json`` for the test to read."""

from __future__ import annotations

import datetime as dt
import json
import os
from pathlib import Path
from typing import Any

from airflow.sdk import DAG, Asset, task

from sagemaker_fleet.observability.facets import event_cities

MODELS = Asset(name="e2ereg-models", uri="s3://sagemaker-fleet-e2e/fleets/e2ereg/models/")

with DAG(
    dag_id="e2e_registry_deploy",
    schedule=[MODELS],
    start_date=dt.datetime(2026, 1, 1, tzinfo=dt.UTC),
    catchup=False,
    tags=["e2e"],
    default_args={"owner": "ml-platform", "retries": 1},
):

    @task
    def deploy(triggering_asset_events: Any = None, run_id: str | None = None) -> None:
        deployed = [
            {
                "run_key": (event.extra or {}).get("run_key"),
                "cities": {c["city"]: c["package_arn"] for c in event_cities(event.extra)},
                "pending": sorted(c["city"] for c in event_cities(event.extra, "pending")),
            }
            for event in (triggering_asset_events or {}).get(MODELS, [])
        ]
        folder = Path(os.environ["AIRFLOW_HOME"]) / "deployed"
        folder.mkdir(exist_ok=True)
        (folder / f"{str(run_id).replace(':', '_')}.json").write_text(json.dumps(deployed))

    deploy()
