"""Airflow DAG: after each run of the demo fleet that trained cities, act on the cities whose models changed.

The fleet DAGs' cost report emits the fleet's models asset (``citydemand-models``, ``{output_s3_uri}/models/``)
once per run in which a city trained, with the cities in the event's ``extra`` (docs/guides/observability.md, the models asset's event): each city, its training job, its model artifact's S3 URI and whether it started warm. This DAG is
scheduled on that asset and reads the events that triggered it: replace the log lines with your own step
(redeploy the endpoints of these cities, register the models, notify their owners).
"""

from __future__ import annotations

import datetime as dt
import logging
from typing import Any

from airflow.sdk import DAG, Asset, task

from sagemaker_fleet.observability.facets import event_cities

log = logging.getLogger(__name__)

#: The demo fleet's models asset, as the fleet DAG names it (``{fleet}-models``, ``{output_s3_uri}/models/``).
MODELS = Asset(name="citydemand-models", uri="s3://sagemaker-fleet-demo/fleets/citydemand/models/")


def changed_cities(events: list[Any]) -> dict[str, dict[str, Any]]:
    """The cities whose models the triggering runs produced, the latest run's model per city."""
    cities: dict[str, dict[str, Any]] = {}
    for event in events:
        extra = event.extra or {}
        for city in event_cities(extra):  # a list (on Airflow 3.0: its JSON text)
            cities[city["city"]] = {**city, "run_key": extra.get("run_key")}
    return cities


with DAG(
    dag_id="city_models_changed",
    schedule=[MODELS],
    start_date=dt.datetime(2026, 1, 1, tzinfo=dt.UTC),
    catchup=False,
    tags=["sagemaker-fleet-example"],
    default_args={"owner": "ml-platform", "retries": 1},
    doc_md=__doc__,
):

    @task
    def redeploy(triggering_asset_events: Any = None) -> list[str]:
        """Log (in place of redeploying) each city whose model changed; returns the cities."""
        events = list((triggering_asset_events or {}).get(MODELS, []))
        cities = changed_cities(events)
        for name, city in sorted(cities.items()):
            log.info(
                "%s: new model %s (job %s, %s start)",
                name,
                city["model_uri"],
                city["job_name"],
                city["start"],
            )
        log.info("%d cities changed in %d run(s)", len(cities), len(events))
        return sorted(cities)

    redeploy()
