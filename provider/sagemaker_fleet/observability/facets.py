"""What the fleet says about lineage, as plain values (pure): a city job's datasets and run facet, the run's totals
facet, and the cities whose models a run produced (the models asset event's ``extra``).

:mod:`sagemaker_fleet.observability.lineage` turns the facets into OpenLineage objects; the field names here are the
contract (docs/guides/observability.md, lineage), camelCase as OpenLineage's own facets.
"""

from __future__ import annotations

import functools
import json
from collections.abc import Mapping, Sequence
from importlib import metadata
from typing import TYPE_CHECKING, Any

from sagemaker_fleet.cost.model import cost_line
from sagemaker_fleet.fleetspec.names import split_s3_uri
from sagemaker_fleet.jobs.errors import UnknownPriceError
from sagemaker_fleet.jobs.prices import PriceBook
from sagemaker_fleet.jobs.record import parse_training_job
from sagemaker_fleet.jobs.starts import observe_start

if TYPE_CHECKING:
    from sagemaker_fleet.cost.report import CostReport
    from sagemaker_fleet.fleetspec.model import FleetSpec
    from sagemaker_fleet.jobs.record import Description
    from sagemaker_fleet.registry.decision import CityDecision

#: The run facet of a city's training task (its latest job).
JOB_FACET = "sagemakerFleetJob"
#: The run facet of the cost report task (the run's totals).
RUN_FACET = "sagemakerFleetRun"
#: The schemas of both facets ship in the package (``sagemaker_fleet/data/openlineage/``); this prefix names them.
SCHEMA_URL_BASE = "urn:airflow-provider-sagemaker-fleet:openlineage:1-0-0:"
JOB_FACET_SCHEMA_URL = f"{SCHEMA_URL_BASE}SageMakerFleetJobRunFacet.json#/$defs/SageMakerFleetJobRunFacet"
RUN_FACET_SCHEMA_URL = f"{SCHEMA_URL_BASE}SageMakerFleetRunFacet.json#/$defs/SageMakerFleetRunFacet"
#: Version of the ``extra`` of the models asset event (:func:`models_event_extra`).
MODELS_EXTRA_VERSION = 1


@functools.cache
def producer() -> str:
    """The ``_producer`` of the fleet's facets: this package and its version."""
    try:
        version = metadata.version("airflow-provider-sagemaker-fleet")
    except metadata.PackageNotFoundError:  # pragma: no cover - a source tree without its metadata
        version = "unknown"
    return f"urn:airflow-provider-sagemaker-fleet:{version}"


def s3_dataset(uri: str) -> tuple[str, str]:
    """OpenLineage's (namespace, name) of an S3 object or prefix: ``s3://bucket`` and the key, without a leading or
    trailing ``/`` (a prefix names the folder dataset, as OpenLineage's naming rules for object stores say)."""
    bucket, key = split_s3_uri(uri, scheme_optional=True)
    return f"s3://{bucket}", key.strip("/") or "/"


def training_inputs(description: Description, fallback: str | None = None) -> list[str]:
    """The S3 URIs of the job's training channels (``InputDataConfig``), or ``fallback`` (the city's
    ``train_s3_uri``) when the description lists none."""
    uris: list[str] = []
    for channel in description.get("InputDataConfig") or []:
        source = (channel.get("DataSource") or {}).get("S3DataSource") or {}
        if source.get("S3Uri"):
            uris.append(str(source["S3Uri"]))
    return uris or ([fallback] if fallback else [])


def model_artifact(description: Description) -> str | None:
    """The job's model artifact (``ModelArtifacts.S3ModelArtifacts``); None when it made none."""
    artifacts = description.get("ModelArtifacts") or {}
    uri = artifacts.get("S3ModelArtifacts") if isinstance(artifacts, Mapping) else None
    return str(uri) if uri else None


@functools.lru_cache(maxsize=16)
def _price_book(region: str, prices: tuple[tuple[str, float], ...]) -> PriceBook:
    from sagemaker_fleet.fleetspec.price_table import load_price_table

    return PriceBook(region, load_price_table(), dict(prices))


def job_facet_fields(
    spec: FleetSpec,
    city: str,
    run_key: str,
    description: Description,
    attempt: int,
    reused: Sequence[str] | set[str],
) -> dict[str, Any]:
    """The city facet's fields for its latest job: name, start (as the cost report tells it, from what the run's
    listings showed so far), billed, trained and retained seconds, spot savings and cost at the job's end (its
    pool's idle time may still grow; the cost report has the final figure). Prices come from the spec or the
    shipped table: no call."""
    record = parse_training_job(description)
    start = observe_start(record, reused, spec.input_mode)
    book = _price_book(spec.region, tuple(sorted(spec.prices.items())))
    try:
        line = cost_line(
            record, city=city, attempt=attempt, price=book.price(record.instance_type), start=start
        )
        money: dict[str, Any] = {
            "pricePerHour": line.price_per_hour,
            "costUsd": round(line.cost_usd, 6),
            "spotSavingsUsd": round(line.spot_savings_usd, 6),
        }
    except UnknownPriceError:  # an unpriced type: the seconds stand, the money is unknown
        money = {"pricePerHour": None, "costUsd": None, "spotSavingsUsd": None}
    return {
        "fleet": spec.fleet,
        "city": city,
        "runKey": run_key,
        "jobName": record.name,
        "attempt": attempt,
        "status": record.status,
        "start": start.kind,
        "startEvidence": start.evidence,
        "instanceType": record.instance_type,
        "instanceCount": record.instance_count,
        "spot": record.spot,
        "trainingSeconds": record.training_seconds,
        "billableSeconds": record.billable_seconds,
        "retainedSeconds": record.retained_billable_seconds,
        **money,
        # FinalMetricDataList of a job with MetricDefinitions (docs/guides/job-template.md#final-metrics)
        **({"finalMetrics": dict(record.final_metrics)} if record.final_metrics else {}),
    }


def run_facet_fields(report: CostReport) -> dict[str, Any]:
    """The report facet's fields: the run's totals, as report.json's ``totals`` says them."""
    totals = report.totals
    return {
        "fleet": report.fleet,
        "runKey": report.run_key,
        "jobs": totals.jobs,
        "completed": totals.completed,
        "failed": totals.failed,
        "warmStarts": totals.warm_starts,
        "coldStarts": totals.cold_starts,
        "costUsd": round(totals.cost_usd, 6),
        "onDemandCostUsd": round(totals.on_demand_cost_usd, 6),
        "spotSavingsUsd": round(totals.spot_savings_usd, 6),
        "idlePoolSeconds": totals.retained_billable_seconds,
        "idlePoolCostUsd": round(totals.retained_cost_usd, 6),
    }


def trained_cities(report: CostReport, descriptions: Sequence[Description]) -> list[dict[str, Any]]:
    """Each city whose model this run produced: its latest completed job, that job's model artifact, start and (for a
    job with MetricDefinitions) final metrics, in city order."""
    artifacts = {str(d.get("TrainingJobName")): model_artifact(d) for d in descriptions}
    latest: dict[str, Any] = {}
    for line in report.lines:
        if line.status == "Completed" and (
            line.city not in latest or line.attempt > latest[line.city].attempt
        ):
            latest[line.city] = line
    return [
        {
            "city": city,
            "job_name": line.job_name,
            "model_uri": artifacts.get(line.job_name),
            "start": line.start,
            **({"metrics": dict(line.metrics)} if line.metrics else {}),
        }
        for city, line in sorted(latest.items())
    ]


def models_event_extra(
    report: CostReport, descriptions: Sequence[Description], models_uri: str
) -> dict[str, Any]:
    """The ``extra`` of the run's models asset event (docs/guides/observability.md, the models asset).

    A run whose models went through the registry's gate (``register:``) lists in ``cities`` only the cities whose
    model was approved, each with its package; ``pending`` the ones waiting for a person; ``registry`` the counts.
    A deploy DAG that acts on ``cities`` thus never ships a model that did not pass."""
    cities = trained_cities(report, descriptions)
    extra: dict[str, Any] = {
        "version": MODELS_EXTRA_VERSION,
        "fleet": report.fleet,
        "run_key": report.run_key,
        "models_uri": models_uri,
        "trained": len(cities),
        "cities": cities,
    }
    if report.models is not None:
        decisions = report.models.by_city()
        extra["cities"] = [_gated(c, decisions[c["city"]]) for c in cities if _is(decisions, c, "approved")]
        extra["pending"] = [_gated(c, decisions[c["city"]]) for c in cities if _is(decisions, c, "pending")]
        extra["registry"] = report.models.counts
    return extra


def _is(decisions: Mapping[str, CityDecision], city: Mapping[str, Any], decision: str) -> bool:
    found = decisions.get(city["city"])
    return found is not None and found.decision == decision and found.job_name == city["job_name"]


def _gated(city: Mapping[str, Any], decision: CityDecision) -> dict[str, Any]:
    """A trained city of the event, with what the gate decided: its package, the metric, the champion's value."""
    return {
        **city,
        "package_arn": decision.package_arn,
        "metric": decision.metric,
        "value": decision.challenger,
        "champion_value": decision.champion,
        "champion_arn": decision.champion_arn,
    }


def event_cities(extra: Mapping[str, Any] | None, key: str = "cities") -> list[dict[str, Any]]:
    """The cities of a models asset event's ``extra`` (:func:`models_event_extra`): those whose model the run
    produced (with ``register:``: the approved ones), or ``key="pending"`` those waiting for a person's approval.
    A list, or on Airflow 3.0 the list's JSON text (3.0 cannot record an alias's event whose extra holds a list)."""
    cities = (extra or {}).get(key) or []
    if isinstance(cities, str):
        cities = json.loads(cities)
    return [dict(city) for city in cities]
