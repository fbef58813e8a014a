"""Airflow DAG: after each run of the demo fleet that trained cities, deploy the cities whose models changed.

The fleet DAGs' cost report emits the fleet's models asset (``citydemand-models``, ``{output_s3_uri}/models/``)
once per run in which a city trained, with the cities in the event's ``extra`` (docs/guides/observability.md, the
models asset's event): each city, its training job, its model artifact's S3 URI and whether it started warm. A
fleet with ``register:`` (docs/guides/model-registry.md) lists there only the cities whose model passed the
champion gate and was approved, each with its model package's ARN, and the ones waiting for a person's approval
apart (``pending``): a deploy step that reads ``cities`` never ships a model that did not pass.

This DAG is scheduled on that asset and reads the events that triggered it: it logs (in place of deploying) each
city to deploy and each one waiting for approval. Replace the log lines with your own step (update the city's
endpoint to the approved package, notify the approvers of the pending ones).
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


def changed_cities(events: list[Any], key: str = "cities") -> dict[str, dict[str, Any]]:
    """The cities to deploy of the triggering runs (``key="pending"``: those waiting for approval), the latest
    run's model per city."""
    cities: dict[str, dict[str, Any]] = {}
    for event in events:
        extra = event.extra or {}
        for city in event_cities(extra, key):  # a list (on Airflow 3.0: its JSON text)
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
        """Log (in place of deploying) each city whose model changed, and each approved model's package; returns
        the cities deployed."""
        events = list((triggering_asset_events or {}).get(MODELS, []))
        cities = changed_cities(events)
        for name, city in sorted(cities.items()):
            package = f", package {city['package_arn']}" if city.get("package_arn") else ""
            log.info(
                "%s: deploy model %s (job %s, %s start%s)",
                name,
                city["model_uri"],
                city["job_name"],
                city["start"],
                package,
            )
        for name, city in sorted(changed_cities(events, "pending").items()):
            log.info(
                "%s: model package %s waits for a person's approval; not deployed", name, city["package_arn"]
            )
        log.info("%d cities deployed from %d run(s)", len(cities), len(events))
        return sorted(cities)

    redeploy()
