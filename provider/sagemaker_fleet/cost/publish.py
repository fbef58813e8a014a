"""Write ``report.json``, ``report.csv`` and ``report.html`` to a folder and upload them next to the run's models.

Uploading goes to ``{output_s3_uri}/reports/{run_key}/`` (docs/formats.md, S3 layout) through a client passed in. An
upload S3 refuses for good (:data:`UPLOAD_REFUSALS`: no such bucket, access denied) is a warning wherever a report is
made — the ``report`` command and the fleet DAG's ``cost_report`` task keep the local files and say why: a run's
outcome is its cities', and a retry meets the same refusal.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

from sagemaker_fleet.cost.export import render_csv, render_json
from sagemaker_fleet.cost.page import render_html
from sagemaker_fleet.fleetspec.names import split_s3_uri
from sagemaker_fleet.jobs.statuses import ACCESS_DENIED_CODES

if TYPE_CHECKING:
    from sagemaker_fleet.cost.report import CostReport

#: S3 error codes of an upload that no retry mends: the report stays local, with a warning.
UPLOAD_REFUSALS: frozenset[str] = frozenset({"NoSuchBucket", *ACCESS_DENIED_CODES})

CONTENT_TYPES = {
    "report.json": "application/json",
    "report.csv": "text/csv; charset=utf-8",
    "report.html": "text/html; charset=utf-8",
}


class ObjectWriter(Protocol):
    """The one S3 call used (a boto3 ``s3`` client satisfies it)."""

    def put_object(self, **kwargs: Any) -> Any: ...


@dataclass(frozen=True)
class ReportFiles:
    json: Path
    csv: Path
    html: Path

    def all(self) -> tuple[Path, Path, Path]:
        return (self.json, self.csv, self.html)


def write_report_files(report: CostReport, out_dir: Path) -> ReportFiles:
    out_dir.mkdir(parents=True, exist_ok=True)
    files = ReportFiles(out_dir / "report.json", out_dir / "report.csv", out_dir / "report.html")
    files.json.write_text(render_json(report), encoding="utf-8")
    files.csv.write_text(render_csv(report), encoding="utf-8", newline="")
    files.html.write_text(render_html(report), encoding="utf-8")
    return files


def upload_report_files(client: ObjectWriter, files: ReportFiles, prefix_uri: str) -> list[str]:
    """Put the three files under ``prefix_uri``; returns their S3 URIs."""
    bucket, prefix = split_s3_uri(prefix_uri if prefix_uri.endswith("/") else prefix_uri + "/")
    uploaded = []
    for path in files.all():
        key = f"{prefix}{path.name}"
        client.put_object(
            Bucket=bucket, Key=key, Body=path.read_bytes(), ContentType=CONTENT_TYPES[path.name]
        )
        uploaded.append(f"s3://{bucket}/{key}")
    return uploaded


def upload_refusal(code: str, target: str, local: Path) -> str | None:
    """The warning for an upload to ``target`` that S3 refused with ``code`` for good (None: not such a refusal:
    the caller fails, and a retry may succeed)."""
    if code not in UPLOAD_REFUSALS:
        return None
    why = "its bucket does not exist" if code == "NoSuchBucket" else f"S3 refused it ({code})"
    return f"not uploaded to {target}: {why}; the report stays in {local}"
