"""Airflow DAG for the end-to-end tests: scheduled on the e2e fleet's models asset, as dags/city_models_changed.py
is on the demo fleet's; it writes the cities of the events that triggered it to
``$AIRFLOW_HOME/models-changed/<run id>.json`` for the test to read."""

from __future__ import annotations

import datetime as dt
import json
import os
from pathlib import Path
from typing import Any

from airflow.sdk import DAG, Asset, task

MODELS = Asset(name="e2e-models", uri="s3://sagemaker-fleet-e2e/fleets/e2e/models/")

with DAG(
    dag_id="e2e_models_changed",
    schedule=[MODELS],
    start_date=dt.datetime(2026, 1, 1, tzinfo=dt.UTC),
    catchup=False,
    tags=["e2e"],
    default_args={"owner": "ml-platform", "retries": 1},
):

    @task
    def record(triggering_asset_events: Any = None, run_id: str | None = None) -> None:
        events = [e.extra for e in (triggering_asset_events or {}).get(MODELS, [])]
        folder = Path(os.environ["AIRFLOW_HOME"]) / "models-changed"
        folder.mkdir(exist_ok=True)
        (folder / f"{str(run_id).replace(':', '_')}.json").write_text(json.dumps(events, default=str))

    record()
