"""report.json and report.csv keep the stable field names, order and formula of docs/formats.md."""

from __future__ import annotations

import csv
import dataclasses
import io
import json
from typing import TYPE_CHECKING

import pytest

from sagemaker_fleet.cost import render_csv, render_json
from sagemaker_fleet.cost.export import JOB_FIELDS, STABLE_JOB_FIELDS, STABLE_TOTAL_FIELDS
from unit.cost.cost_describes import RUN_KEY, demo_report

if TYPE_CHECKING:
    from sagemaker_fleet.cost.report import CostReport

STABLE_JOB = [
    "city",
    "job_name",
    "status",
    "secondary_status",
    "failure_reason",
    "instance_type",
    "instance_count",
    "spot",
    "start",
    "startup_seconds",
    "training_seconds",
    "billable_seconds",
    "retained_billable_seconds",
    "price_per_hour",
    "cost_usd",
    "on_demand_cost_usd",
    "spot_savings_pct",
]
STABLE_TOTALS = [
    "jobs",
    "completed",
    "failed",
    "cost_usd",
    "on_demand_cost_usd",
    "spot_savings_usd",
    "retained_cost_usd",
    "warm_starts",
    "cold_starts",
    "startup_seconds_saved",
]


@pytest.fixture
def report() -> CostReport:
    return demo_report()


def test_contract_field_lists_are_the_contract() -> None:
    # written out by hand from docs/formats.md, so a rename in code cannot pass unnoticed
    assert list(STABLE_JOB_FIELDS) == STABLE_JOB
    assert list(STABLE_TOTAL_FIELDS) == STABLE_TOTALS


def test_json_has_contract_fields_first_in_order(report: CostReport) -> None:
    doc = json.loads(render_json(report))
    assert list(doc)[:4] == ["fleet", "run_key", "jobs", "totals"]
    assert (doc["fleet"], doc["run_key"]) == ("demo", RUN_KEY)
    assert len(doc["jobs"]) == 7
    for job in doc["jobs"]:
        assert list(job)[: len(STABLE_JOB)] == STABLE_JOB
        assert job["start"] in ("cold", "warm")
        assert isinstance(job["spot"], bool)
    assert list(doc["totals"])[: len(STABLE_TOTALS)] == STABLE_TOTALS


def test_json_cost_follows_the_contract_formula(report: CostReport) -> None:
    for job in json.loads(render_json(report))["jobs"]:
        expected = (
            (job["billable_seconds"] + job["retained_billable_seconds"])
            * job["instance_count"]
            * job["price_per_hour"]
            / 3600
        )
        assert job["cost_usd"] == pytest.approx(expected, abs=1e-6)


def test_json_totals_are_sums_of_jobs(report: CostReport) -> None:
    doc = json.loads(render_json(report))
    totals = doc["totals"]
    assert totals["cost_usd"] == pytest.approx(sum(j["cost_usd"] for j in doc["jobs"]), abs=1e-5)
    assert totals["jobs"] == len(doc["jobs"])
    assert totals["warm_starts"] + totals["cold_starts"] == totals["jobs"]
    assert totals["spot_savings_usd"] == pytest.approx(
        totals["on_demand_cost_usd"] - totals["cost_usd"], abs=1e-5
    )
    assert [c["city"] for c in doc["by_city"]] == ["lagos", "lima", "perth", "seoul", "tokyo", "vision"]
    assert {g["group"] for g in doc["by_group"]} == {"g0", "g1", "g2"}
    assert doc["prices"]["ml.m5.xlarge"]["source"] == "table"


def test_csv_has_one_row_per_job_with_the_json_columns(report: CostReport) -> None:
    rows = list(csv.DictReader(io.StringIO(render_csv(report))))
    doc = json.loads(render_json(report))
    assert len(rows) == len(doc["jobs"])
    assert list(rows[0]) == list(JOB_FIELDS) == list(doc["jobs"][0])
    for row, job in zip(rows, doc["jobs"], strict=True):
        for name in JOB_FIELDS:
            value = job[name]
            expected = (
                ""
                if value is None
                else ("true" if value is True else "false" if value is False else str(value))
            )
            assert row[name] == expected, name


def test_csv_quotes_awkward_text(report: CostReport) -> None:
    rows = list(csv.DictReader(io.StringIO(render_csv(report))))
    lima = next(r for r in rows if r["city"] == "lima")
    assert lima["failure_reason"] == 'AlgorithmError: <script>alert("x")</script> & exit 1'


@pytest.mark.parametrize(
    ("reason", "written"),
    [
        ('=HYPERLINK("http://x","y")', '\'=HYPERLINK("http://x","y")'),
        ("+1+1", "'+1+1"),
        ("-2+3", "'-2+3"),
        ("@SUM(A1)", "'@SUM(A1)"),
        ("\tx", "'\tx"),
        ("\rx", "'\nx"),
        ("ok, then\r\nfailed", "ok, then\nfailed"),
        ("a\rb", "a\nb"),  # a CR would end the row for a reader
    ],
)
def test_csv_neutralises_text_a_spreadsheet_would_run(report: CostReport, reason: str, written: str) -> None:
    lima = next(line for line in report.lines if line.city == "lima")
    changed = dataclasses.replace(
        report,
        lines=tuple(
            dataclasses.replace(line, failure_reason=reason) if line is lima else line
            for line in report.lines
        ),
    )
    rows = list(csv.DictReader(io.StringIO(render_csv(changed), newline="")))
    cell = next(r for r in rows if r["city"] == "lima")["failure_reason"]
    assert cell == written
    assert len(rows) == len(report.lines)
    numbers = [
        float(r["cost_usd"]) for r in rows
    ]  # numbers stay numbers (a negative one would keep its sign)
    assert all(n >= 0 for n in numbers)


def test_a_warm_start_with_its_image_re_pulled_keeps_start_warm_and_says_so(report: CostReport) -> None:
    doc = json.loads(render_json(report))
    pulled = [job for job in doc["jobs"] if job["image_pulled"]]
    assert [(job["city"], job["start"], job["start_evidence"]) for job in pulled] == [
        ("lagos", "warm", "reused-pool")  # start stays cold|warm; the pull is a field of its own
    ]
    assert all(isinstance(job["image_pulled"], bool) for job in doc["jobs"])
    assert doc["totals"]["warm_image_pulls"] == len(pulled) == 1
    assert all(group["warm_image_pulls"] in (0, 1) for group in doc["by_group"])
    rows = list(csv.DictReader(io.StringIO(render_csv(report))))
    assert sorted(row["image_pulled"] for row in rows) == ["false"] * 6 + ["true"]
