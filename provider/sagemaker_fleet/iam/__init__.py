"""The fleet's least-privilege IAM policies, generated from its spec (``sagemaker-fleet iam``; pure, no AWS SDK).

- ``scope.py``: the account, partition, region, job-name prefix, roles and S3 prefixes the policies name, and
  their ARNs;
- ``context.py``: the IAM request context of a CreateTrainingJob request (the condition keys SageMaker fills);
- ``launch.py``: CreateTrainingJob allowed only within the spec, one statement per instance type;
- ``statement.py``: a statement and a policy part as values, rendered as IAM's JSON;
- ``parts.py``: the sections (one concern each) and the parts — Airflow, the Fleet view, the command line.
"""

from __future__ import annotations

from sagemaker_fleet.iam.parts import PARTS, policy_part
from sagemaker_fleet.iam.scope import PolicyScope, PolicyScopeError
from sagemaker_fleet.iam.statement import PolicyPart, Statement

__all__ = ["PARTS", "PolicyPart", "PolicyScope", "PolicyScopeError", "Statement", "policy_part"]
