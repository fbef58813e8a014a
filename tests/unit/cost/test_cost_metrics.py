"""Each city's final metrics (FinalMetricDataList) in the cost report: JSON, CSV and HTML, with the best and worst
city of each metric; a run without metrics is written as before."""

from __future__ import annotations

import csv
import io
from typing import Any

from sagemaker_fleet.cost import build_cost_report
from sagemaker_fleet.cost.export import JOB_FIELDS, render_csv, report_json
from sagemaker_fleet.cost.metrics import higher_is_better
from sagemaker_fleet.cost.page import render_html
from sagemaker_fleet.fleetspec.price_table import load_price_table
from sagemaker_fleet.jobs.prices import PriceBook
from sagemaker_fleet.jobs.record import parse_training_job
from unit.cost.cost_describes import GENERATED_AT, RUN_KEY, demo_report, demo_run, demo_spec

#: city -> (rmse, accuracy) of its completed job
VALUES = {
    "seoul": (0.21, 0.91),
    "tokyo": (0.12, 0.95),
    "lagos": (0.34, 0.80),
    "perth": (0.25, 0.88),
    "vision": (0.18, 0.93),
}


def with_metrics(describes: list[dict[str, Any]]) -> list[dict[str, Any]]:
    for describe in describes:
        city = describe["TrainingJobName"].split("-")[1]
        if describe["TrainingJobStatus"] == "Completed" and city in VALUES:
            rmse, accuracy = VALUES[city]
            describe["FinalMetricDataList"] = [
                {"MetricName": "validation:rmse", "Value": rmse, "Timestamp": GENERATED_AT},
                {"MetricName": "validation:accuracy", "Value": accuracy, "Timestamp": GENERATED_AT},
            ]
    return describes


def report_with_metrics():  # type: ignore[no-untyped-def]
    spec = demo_spec()
    book = PriceBook(spec.region, load_price_table())
    return build_cost_report(spec, RUN_KEY, with_metrics(demo_run()), book, generated_at=GENERATED_AT)


def test_a_description_s_final_metrics_are_read() -> None:
    record = parse_training_job(with_metrics(demo_run())[0])
    assert record.final_metrics == (("validation:rmse", 0.21), ("validation:accuracy", 0.91))


def test_report_json_has_each_city_s_metrics_and_the_best_and_worst() -> None:
    document = report_json(report_with_metrics())
    metrics = document["metrics"]
    assert metrics["names"] == ["validation:rmse", "validation:accuracy"]
    assert metrics["by_city"]["tokyo"] == {"validation:rmse": 0.12, "validation:accuracy": 0.95}
    assert "lima" not in metrics["by_city"]  # failed: no metrics
    rmse, accuracy = metrics["summary"]
    assert rmse == {
        "metric": "validation:rmse",
        "better": "lower",
        "cities": 5,
        "best": {"city": "tokyo", "value": 0.12},
        "worst": {"city": "lagos", "value": 0.34},
    }
    assert (accuracy["better"], accuracy["best"]["city"], accuracy["worst"]["city"]) == (
        "higher",
        "tokyo",
        "lagos",
    )
    jobs = {job["job_name"]: job for job in document["jobs"]}
    assert jobs["demo-perth-20261129-r2"]["metrics"]["validation:rmse"] == 0.25
    assert jobs["demo-lima-20261129"]["metrics"] == {}


def test_report_csv_has_a_column_per_metric() -> None:
    rows = list(csv.DictReader(io.StringIO(render_csv(report_with_metrics()))))
    assert list(rows[0])[len(JOB_FIELDS) :] == ["metric:validation:rmse", "metric:validation:accuracy"]
    by_job = {row["job_name"]: row for row in rows}
    assert by_job["demo-seoul-20261129"]["metric:validation:accuracy"] == "0.91"
    assert by_job["demo-lima-20261129"]["metric:validation:rmse"] == ""


def test_report_html_has_a_metrics_table_and_the_best_and_worst_cities() -> None:
    html = render_html(report_with_metrics())
    assert "<h2>Final metrics</h2>" in html
    assert 'id="metrics"' in html
    assert "<b>validation:rmse</b> (lower is better, 5 cities): best tokyo 0.12, worst lagos 0.34" in html


def test_a_run_without_metrics_is_written_as_before() -> None:
    report = demo_report()
    assert "metrics" not in report_json(report)
    assert all("metrics" not in job for job in report_json(report)["jobs"])
    assert next(csv.reader(io.StringIO(render_csv(report)))) == list(JOB_FIELDS)
    assert "Final metrics" not in render_html(report)


def test_which_way_is_better_is_read_from_the_name() -> None:
    assert [
        higher_is_better(n)
        for n in ("validation:accuracy", "test:auc", "f1", "val_rmse", "train:loss", "mape")
    ] == [True, True, True, False, False, False]
