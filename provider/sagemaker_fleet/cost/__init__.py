"""Cost of a run from what SageMaker billed: per submission, city, warm-pool group and run.

The model is pure (no boto3, no Airflow) and reads descriptions through :mod:`sagemaker_fleet.jobs`; the thin I/O
wrappers (``collect``, ``publish``, ``pricelist``) take their clients as arguments.

- ``model.py``: one cost line per submission — what it cost, what on-demand would have, how it started;
- ``totals.py``: totals over cost lines, for the run, per city, warm-pool group and instance type;
- ``lanes.py``: the run's lanes as SageMaker ran them, rebuilt from ``WarmPoolStatus.ReusedByJob``;
- ``crossruns.py``: warm pools handed between the run and other runs of the account;
- ``metrics.py``: each city's final metrics and the best and worst city of each metric;
- ``groups.py``: each job's warm-pool group, named as the run's plan names it (its city's group);
- ``against_plan.py``: the run against its plan per group: warm starts planned and got, why each missed one
  started cold, the idle pools nobody took;
- ``report.py``: the cost report of one run, from its lines, totals, lanes and plan;
- ``estimate.py``: what a plan is expected to cost before anything is launched (the dry run);
- ``summary.py``: the few lines the CLI prints and the report task logs;
- ``collect.py``: fetches one run's DescribeTrainingJob responses (thin I/O);
- ``pricelist.py``: the optional AWS Price List look-up with its local cache, and the regions' usage-type prefixes;
- ``offers.py``: the Price List's bulk offer files of SageMaker read into a price table (``prices refresh``);
- ``offers_fetch.py``: fetches those files, bounded, over HTTP or from disk (thin I/O);
- ``export.py``: ``report.json`` and ``report.csv``;
- ``page.py``: ``report.html``, one self-contained page;
- ``charts.py``: its bar charts (spend, warm vs cold starts, cost per city);
- ``gantt.py``: its lane timeline, each job drawn phase by phase;
- ``svg.py``: escaping-by-default helpers for its SVG and HTML;
- ``publish.py``: writes the three files to a folder and uploads them next to the run's models;
- ``errors.py``: the report's own errors (the package exports them with the job model's, which prices and
  descriptions raise: ``sagemaker_fleet.jobs.errors``).
"""

from __future__ import annotations

from sagemaker_fleet.cost.errors import PriceListError, UnattributedJobError
from sagemaker_fleet.cost.export import JOB_FIELDS, render_csv, render_json, report_json
from sagemaker_fleet.cost.groups import GroupInfo
from sagemaker_fleet.cost.lanes import Lane, PoolChain, build_lanes
from sagemaker_fleet.cost.model import CostLine, cost_line
from sagemaker_fleet.cost.page import render_html
from sagemaker_fleet.cost.report import CostReport, RunJobIndex, build_cost_report
from sagemaker_fleet.cost.summary import summary_lines
from sagemaker_fleet.cost.totals import CostTotals, total, totals_by

# The report's errors are caught where users meet them: here, with the three the job model raises (jobs/errors.py)
from sagemaker_fleet.jobs.errors import CostReportError, UnknownPriceError, UnsupportedTrainingJobError

__all__ = [
    "JOB_FIELDS",
    "CostLine",
    "CostReport",
    "CostReportError",
    "CostTotals",
    "GroupInfo",
    "Lane",
    "PoolChain",
    "PriceListError",
    "RunJobIndex",
    "UnattributedJobError",
    "UnknownPriceError",
    "UnsupportedTrainingJobError",
    "build_cost_report",
    "build_lanes",
    "cost_line",
    "render_csv",
    "render_html",
    "render_json",
    "report_json",
    "summary_lines",
    "total",
    "totals_by",
]
