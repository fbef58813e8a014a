"""Final metrics in lineage: the city job facet's ``finalMetrics`` (valid against the shipped schema) and each
trained city's ``metrics`` in the models asset event's ``extra``; nothing of them without metric definitions."""

from __future__ import annotations

import json
from importlib import resources

import jsonschema
import pytest

from sagemaker_fleet.cost import build_cost_report
from sagemaker_fleet.fleetspec.price_table import load_price_table
from sagemaker_fleet.jobs.prices import PriceBook
from sagemaker_fleet.observability.facets import job_facet_fields, models_event_extra
from unit.cost.cost_describes import RUN_KEY, demo_run, demo_spec
from unit.cost.test_cost_metrics import with_metrics


def test_the_job_facet_carries_the_final_metrics_and_fits_its_schema() -> None:
    spec = demo_spec()
    tokyo = next(d for d in with_metrics(demo_run()) if d["TrainingJobName"] == "demo-tokyo-20261129")
    fields = job_facet_fields(spec, "tokyo", RUN_KEY, tokyo, 1, set())
    assert fields["finalMetrics"] == {"validation:rmse": 0.12, "validation:accuracy": 0.95}
    schema = json.loads(
        resources.files("sagemaker_fleet")
        .joinpath("data/openlineage/SageMakerFleetJobRunFacet.json")
        .read_text()
    )
    facet = schema["$defs"]["SageMakerFleetJobRunFacet"]["allOf"][1]
    jsonschema.validate(fields, facet)
    plain = next(d for d in demo_run() if d["TrainingJobName"] == "demo-tokyo-20261129")
    assert "finalMetrics" not in job_facet_fields(spec, "tokyo", RUN_KEY, plain, 1, set())


@pytest.mark.parametrize("metrics", [True, False])
def test_each_trained_city_s_metrics_ride_in_the_models_event(metrics: bool) -> None:
    spec = demo_spec()
    run = with_metrics(demo_run()) if metrics else demo_run()
    report = build_cost_report(spec, RUN_KEY, run, PriceBook(spec.region, load_price_table()))
    cities = {city["city"]: city for city in models_event_extra(report, run, "s3://m/")["cities"]}
    if metrics:
        assert cities["lagos"]["metrics"] == {"validation:rmse": 0.34, "validation:accuracy": 0.8}
    else:
        assert all("metrics" not in city for city in cities.values())
