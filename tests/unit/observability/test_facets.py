"""What the fleet says about lineage, as plain values: datasets, the city job facet, the run facet and the models
asset event's extra."""

from __future__ import annotations

import dataclasses

import pytest

from sagemaker_fleet.cost import build_cost_report
from sagemaker_fleet.fleetspec.price_table import load_price_table
from sagemaker_fleet.jobs.prices import PriceBook
from sagemaker_fleet.observability.facets import (
    job_facet_fields,
    model_artifact,
    models_event_extra,
    run_facet_fields,
    s3_dataset,
    trained_cities,
    training_inputs,
)
from unit.cost.cost_describes import RUN_KEY, demo_report, demo_run, demo_spec, describe_job


def with_artifact(description: dict) -> dict:
    name = description["TrainingJobName"]
    if description["TrainingJobStatus"] == "Completed":
        uri = f"s3://acme-reports/fleets/demo/models/x/{RUN_KEY}/{name}/output/model.tar.gz"
        return {**description, "ModelArtifacts": {"S3ModelArtifacts": uri}}
    return description


@pytest.mark.parametrize(
    ("uri", "dataset"),
    [
        ("s3://acme-ml/data/seoul/", ("s3://acme-ml", "data/seoul")),
        ("s3://acme-ml/m/seoul/job/output/model.tar.gz", ("s3://acme-ml", "m/seoul/job/output/model.tar.gz")),
        ("s3://acme-ml", ("s3://acme-ml", "/")),
    ],
)
def test_s3_datasets_are_named_by_bucket_and_key(uri: str, dataset: tuple[str, str]) -> None:
    assert s3_dataset(uri) == dataset


def test_inputs_are_the_jobs_channels_else_the_citys_data() -> None:
    job = describe_job("demo-seoul-20261129") | {
        "InputDataConfig": [
            {"ChannelName": "train", "DataSource": {"S3DataSource": {"S3Uri": "s3://a/train/"}}},
            {"ChannelName": "validation", "DataSource": {"S3DataSource": {"S3Uri": "s3://a/validation/"}}},
        ]
    }
    assert training_inputs(job, "s3://fallback/") == ["s3://a/train/", "s3://a/validation/"]
    assert training_inputs(describe_job("x"), "s3://fallback/") == ["s3://fallback/"]
    assert model_artifact(describe_job("x")) is None
    assert model_artifact(with_artifact(describe_job("x"))).endswith("/x/output/model.tar.gz")


def test_the_job_facet_prices_the_job_as_the_cost_report_does() -> None:
    spec = demo_spec()
    run = demo_run()
    report = build_cost_report(spec, RUN_KEY, run, PriceBook(spec.region, load_price_table()))
    lines = {line.job_name: line for line in report.lines}
    tokyo = run[1]  # warm: seoul's pool was ReusedByJob tokyo
    fields = job_facet_fields(spec, "tokyo", RUN_KEY, tokyo, 1, {"demo-tokyo-20261129"})
    line = lines["demo-tokyo-20261129"]
    assert fields["jobName"] == "demo-tokyo-20261129"
    assert (fields["start"], fields["startEvidence"]) == ("warm", "reused-pool")
    assert fields["billableSeconds"] == line.billable_seconds == 1500
    assert fields["retainedSeconds"] == line.retained_billable_seconds == 300
    assert fields["costUsd"] == pytest.approx(line.cost_usd, abs=1e-6)
    assert fields["pricePerHour"] == line.price_per_hour
    perth = run[5]  # spot, billed 100 of 500 trained seconds
    spot = job_facet_fields(spec, "perth", RUN_KEY, perth, 2, set())
    assert spot["spot"] is True
    assert spot["start"] == "cold"
    assert spot["spotSavingsUsd"] == pytest.approx(lines[perth["TrainingJobName"]].spot_savings_usd, abs=1e-6)
    assert spot["spotSavingsUsd"] > 0


def test_an_unpriced_instance_type_keeps_its_seconds_and_leaves_the_money_unknown() -> None:
    spec = demo_spec()
    job = describe_job("demo-seoul-20261129", instance_type="ml.p5.48xlarge")
    fields = job_facet_fields(
        dataclasses.replace(spec, region="xx-nowhere-1"), "seoul", RUN_KEY, job, 1, set()
    )
    assert fields["billableSeconds"] == 1000
    assert (fields["costUsd"], fields["pricePerHour"], fields["spotSavingsUsd"]) == (None, None, None)


def test_the_run_facet_is_the_reports_totals() -> None:
    report = demo_report()
    fields = run_facet_fields(report)
    totals = report.totals
    assert (fields["fleet"], fields["runKey"]) == ("demo", RUN_KEY)
    assert (fields["jobs"], fields["completed"], fields["failed"]) == (
        totals.jobs,
        totals.completed,
        totals.failed,
    )
    assert fields["costUsd"] == pytest.approx(totals.cost_usd, abs=1e-6)
    assert fields["idlePoolSeconds"] == totals.retained_billable_seconds


def test_the_models_event_names_each_city_trained_with_its_latest_completed_job_and_artifact() -> None:
    spec = demo_spec()
    run = [with_artifact(d) for d in demo_run()]
    report = build_cost_report(spec, RUN_KEY, run, PriceBook(spec.region, load_price_table()))
    cities = trained_cities(report, run)
    # lima failed: not among them; perth completed on its second submission
    assert [c["city"] for c in cities] == ["lagos", "perth", "seoul", "tokyo", "vision"]
    perth = next(c for c in cities if c["city"] == "perth")
    assert perth["job_name"] == "demo-perth-20261129-r2"
    assert perth["model_uri"].endswith("/demo-perth-20261129-r2/output/model.tar.gz")
    assert next(c for c in cities if c["city"] == "tokyo")["start"] == "warm"
    extra = models_event_extra(report, run, "s3://acme-reports/fleets/demo/models/")
    assert extra == {
        "version": 1,
        "fleet": "demo",
        "run_key": RUN_KEY,
        "models_uri": "s3://acme-reports/fleets/demo/models/",
        "trained": 5,
        "cities": cities,
    }
