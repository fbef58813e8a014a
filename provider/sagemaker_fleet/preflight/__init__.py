"""The AWS account a fleet runs in, checked before a run (``sagemaker-fleet preflight``) and read by the plan task:
no Airflow, the boto3 clients passed in.

- ``quotas.py``: the account's training quotas per instance type from Service Quotas (``read_account_quotas``);
- ``quota_checks.py``: those quotas against the plan's needs and the spec's ``quotas:`` (pure);
- ``effective.py``: the quotas a DAG run plans and dispatches within — the lower of the spec's and the account's,
  the account's when the spec has none (pure; ``PlanFleetOperator`` reads the account);
- ``targets.py``: what a spec asks of the account — roles, images, S3 locations with their cities (pure);
- ``resources.py``: whether they exist (IAM GetRole, S3 ListObjectsV2, ECR DescribeImages);
- ``findings.py``: one finding a line (OK, NOTE, WARNING, ERROR) and the exit code they make;
- ``checks.py``: every check of one spec and its plan, in order.
"""

from __future__ import annotations

from sagemaker_fleet.preflight.findings import Finding, exit_code
from sagemaker_fleet.preflight.quotas import QuotaReadError, read_account_quotas

__all__ = ["Finding", "QuotaReadError", "exit_code", "read_account_quotas"]
