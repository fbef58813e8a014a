"""Writing the three files and putting them under the run's report prefix (docs/formats.md, S3 layout)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from sagemaker_fleet.cost import build_cost_report, summary_lines
from sagemaker_fleet.cost.publish import upload_report_files, write_report_files
from sagemaker_fleet.fleetspec.names import report_s3_uri, split_s3_uri
from sagemaker_fleet.fleetspec.price_table import load_price_table
from sagemaker_fleet.jobs.prices import PriceBook
from unit.cost.cost_describes import RUN_KEY, demo_report, demo_run, demo_spec


class FakeS3:
    def __init__(self) -> None:
        self.puts: list[dict[str, Any]] = []

    def put_object(self, **kwargs: Any) -> dict[str, Any]:
        self.puts.append(kwargs)
        return {}


def test_files_are_written_and_uploaded_under_the_report_prefix(tmp_path: Path) -> None:
    spec = demo_spec()
    report = demo_report()
    files = write_report_files(report, tmp_path / "nested" / "dir")
    assert [p.name for p in files.all()] == ["report.json", "report.csv", "report.html"]
    s3 = FakeS3()
    uploaded = upload_report_files(s3, files, report_s3_uri(spec.output_s3_uri, RUN_KEY))
    assert uploaded == [
        f"s3://acme-reports/fleets/demo/reports/{RUN_KEY}/report.{ext}" for ext in ("json", "csv", "html")
    ]
    assert {p["ContentType"].split(";")[0] for p in s3.puts} == {"application/json", "text/csv", "text/html"}
    assert s3.puts[2]["Body"] == files.html.read_bytes()


def test_split_s3_uri() -> None:
    assert split_s3_uri("s3://bucket/a/b/") == ("bucket", "a/b/")
    assert split_s3_uri("s3://bucket") == ("bucket", "")
    with pytest.raises(ValueError, match="not an S3 URI"):
        split_s3_uri("https://bucket/a")
    # a value not checked yet (the default board's bucket) or one AWS gave back splits without the scheme too
    assert split_s3_uri("bucket/a/", scheme_optional=True) == ("bucket", "a/")
    assert split_s3_uri("s3://bucket/a/", scheme_optional=True) == ("bucket", "a/")


def test_summary_lines_state_the_totals() -> None:
    spec = demo_spec()
    report = build_cost_report(spec, RUN_KEY, demo_run(), PriceBook(spec.region, load_price_table()))
    text = "\n".join(summary_lines(report))
    assert "7 submissions (5 completed, 1 failed, 1 stopped" in text
    assert "cost $1.74" in text
    assert "2 warm, 5 cold (1 warm with the image re-pulled)" in text
