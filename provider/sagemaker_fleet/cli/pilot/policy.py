"""The least IAM policies a pilot needs, written for its settings (``sagemaker-fleet pilot --policy …``): the
caller's — whoever runs the command — and the execution role's, which SageMaker's jobs run as.

The caller's grants exactly the calls the dry run lists (:mod:`.calls`), each on the narrowest resource: the
pilot's jobs (``training-job/pilot-*``: every job name starts with the fleet's), the user's prefix, the one role,
passed to SageMaker only. ListTrainingJobs and ListServiceQuotas have no resource-level permissions. CreateTrainingJob
needs ``sagemaker:AddTags`` because the jobs are created with the provider's tags. ``s3:DeleteObject`` only with
``--delete-data``. The execution role's: its data read, its models and checkpoints written, its logs and metrics;
no ECR permission, because SageMaker pulls its built-in algorithms' images with its own credentials.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from sagemaker_fleet.cli.pilot.settings import FLEET
from sagemaker_fleet.iam.statement import POLICY_VERSION as VERSION

if TYPE_CHECKING:
    from sagemaker_fleet.cli.pilot.settings import PilotSettings


def _prefix_pattern(settings: PilotSettings) -> str:
    """Every run's keys under the user's prefix: ``prefix/*`` (``*`` for the bucket's root)."""
    return f"{settings.prefix}/*" if settings.prefix else "*"


def _bucket_arn(settings: PilotSettings) -> str:
    return f"arn:{settings.partition}:s3:::{settings.bucket}"


def _list_bucket(settings: PilotSettings, sid: str) -> dict[str, Any]:
    """ListObjectsV2 of the user's prefix only (the whole bucket when the pilot writes at its root)."""
    statement: dict[str, Any] = {
        "Sid": sid,
        "Effect": "Allow",
        "Action": "s3:ListBucket",
        "Resource": _bucket_arn(settings),
    }
    if settings.prefix:
        statement["Condition"] = {"StringLike": {"s3:prefix": _prefix_pattern(settings)}}
    return statement


def caller_policy(settings: PilotSettings) -> dict[str, Any]:
    """What whoever runs ``sagemaker-fleet pilot`` needs (see the module docstring)."""
    jobs = f"arn:{settings.partition}:sagemaker:{settings.region}:{settings.account}:training-job/{FLEET}-*"
    objects = ["s3:PutObject", "s3:DeleteObject"] if settings.delete_data else "s3:PutObject"
    return {
        "Version": VERSION,
        "Statement": [
            {
                "Sid": "ThePilotsTrainingJobs",
                "Effect": "Allow",
                "Action": [
                    "sagemaker:CreateTrainingJob",
                    "sagemaker:AddTags",
                    "sagemaker:DescribeTrainingJob",
                    "sagemaker:UpdateTrainingJob",
                    "sagemaker:StopTrainingJob",
                ],
                "Resource": jobs,
            },
            {
                "Sid": "ListTrainingJobsHasNoResourceLevelPermissions",
                "Effect": "Allow",
                "Action": "sagemaker:ListTrainingJobs",
                "Resource": "*",
            },
            {
                "Sid": "ReadTheTrainingQuotas",
                "Effect": "Allow",
                "Action": "servicequotas:ListServiceQuotas",
                "Resource": "*",
            },
            {
                "Sid": "PassTheExecutionRoleToSageMakerOnly",
                "Effect": "Allow",
                "Action": "iam:PassRole",
                "Resource": settings.role_arn,
                "Condition": {"StringEquals": {"iam:PassedToService": "sagemaker.amazonaws.com"}},
            },
            _list_bucket(settings, "ListThePilotsPrefix"),
            {
                "Sid": "WriteTheData" + ("AndDeleteWhatItWrote" if settings.delete_data else ""),
                "Effect": "Allow",
                "Action": objects,
                "Resource": f"{_bucket_arn(settings)}/{_prefix_pattern(settings)}",
            },
        ],
    }


def execution_role_policy(settings: PilotSettings) -> dict[str, Any]:
    """What the role the jobs run as needs (see the module docstring)."""
    runs = _prefix_pattern(settings).removesuffix("*")  # "prefix/" or ""
    bucket = _bucket_arn(settings)
    logs = f"arn:{settings.partition}:logs:{settings.region}:{settings.account}:log-group:/aws/sagemaker/TrainingJobs:*"
    return {
        "Version": VERSION,
        "Statement": [
            _list_bucket(settings, "ListTheDataAndTheCheckpoints"),
            {
                "Sid": "ReadTheTrainingData",
                "Effect": "Allow",
                "Action": "s3:GetObject",
                "Resource": f"{bucket}/{runs}*/data/*",
            },
            {
                "Sid": "WriteTheModels",
                "Effect": "Allow",
                "Action": "s3:PutObject",
                "Resource": f"{bucket}/{runs}*/models/*",
            },
            {
                "Sid": "ReadAndWriteTheCheckpoints",
                "Effect": "Allow",
                "Action": ["s3:GetObject", "s3:PutObject", "s3:DeleteObject"],
                "Resource": f"{bucket}/{runs}*/checkpoints/*",
            },
            {
                "Sid": "TrainingContainerLogs",
                "Effect": "Allow",
                "Action": [
                    "logs:CreateLogGroup",
                    "logs:CreateLogStream",
                    "logs:PutLogEvents",
                    "logs:DescribeLogStreams",
                ],
                "Resource": logs,
            },
            {
                "Sid": "TrainingMetrics",
                "Effect": "Allow",
                "Action": "cloudwatch:PutMetricData",
                "Resource": "*",
                "Condition": {"StringLike": {"cloudwatch:namespace": "/aws/sagemaker/*"}},
            },
        ],
    }


#: The execution role's trust policy: SageMaker may assume it.
TRUST_POLICY: dict[str, Any] = {
    "Version": VERSION,
    "Statement": [
        {"Effect": "Allow", "Principal": {"Service": "sagemaker.amazonaws.com"}, "Action": "sts:AssumeRole"}
    ],
}
