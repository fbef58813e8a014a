"""Cost of a run from what SageMaker billed: per submission, city, warm-pool group and run (issue 7).

The model (``describe`` → ``starts`` → ``model`` → ``totals``/``lanes`` → ``report``) is pure and imports neither
boto3 nor Airflow; ``collect``, ``publish`` and ``pricelist`` are thin I/O wrappers that take their clients as
arguments; ``export`` and ``page`` render the JSON, CSV and HTML; ``metrics`` reads each city's final metrics
(jobs with MetricDefinitions) and the best and worst city of each.
"""

from __future__ import annotations

from sagemaker_fleet.cost.errors import (
    CostReportError,
    PriceListError,
    UnattributedJobError,
    UnknownPriceError,
    UnsupportedTrainingJobError,
)
from sagemaker_fleet.cost.export import JOB_FIELDS, render_csv, render_json, report_json
from sagemaker_fleet.cost.lanes import Lane, PoolChain, build_lanes
from sagemaker_fleet.cost.model import CostLine, cost_line
from sagemaker_fleet.cost.page import render_html
from sagemaker_fleet.cost.report import CostReport, GroupInfo, RunJobIndex, build_cost_report
from sagemaker_fleet.cost.summary import summary_lines
from sagemaker_fleet.cost.totals import CostTotals, total, totals_by
from sagemaker_fleet.jobs.prices import Price, PriceBook, PriceSource, PriceTable, load_price_table
from sagemaker_fleet.jobs.record import (
    StatusTransition,
    TrainingJobRecord,
    WarmPoolState,
    parse_training_job,
)
from sagemaker_fleet.jobs.starts import StartObservation, observe_start

__all__ = [
    "JOB_FIELDS",
    "CostLine",
    "CostReport",
    "CostReportError",
    "CostTotals",
    "GroupInfo",
    "Lane",
    "PoolChain",
    "Price",
    "PriceBook",
    "PriceListError",
    "PriceSource",
    "PriceTable",
    "RunJobIndex",
    "StartObservation",
    "StatusTransition",
    "TrainingJobRecord",
    "UnattributedJobError",
    "UnknownPriceError",
    "UnsupportedTrainingJobError",
    "WarmPoolState",
    "build_cost_report",
    "build_lanes",
    "cost_line",
    "load_price_table",
    "observe_start",
    "parse_training_job",
    "render_csv",
    "render_html",
    "render_json",
    "report_json",
    "summary_lines",
    "total",
    "totals_by",
]
