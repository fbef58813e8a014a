"""Who fills each CreateTrainingJob field: the provider (owned), the provider and ``job:`` together (merged), a
spec shorthand, or ``job:`` alone (passed as written). One table, read by the spec checks, the request compiler,
``import`` and the reference in docs/guides/job-template.md.

Paths are AWS's names joined by dots, list levels left out (``InputDataConfig.ChannelName``); the ``train``
channel is ``InputDataConfig[train]``.
"""

from __future__ import annotations

from dataclasses import dataclass

from sagemaker_fleet.fleetspec.names import TAG_PREFIX


@dataclass(frozen=True)
class OwnedField:
    """A field the provider sets itself: ``use`` is the spec key that decides it, ``why`` what depends on it."""

    path: str
    use: str
    why: str


@dataclass(frozen=True)
class Shorthand:
    """A spec key that fills one request field (``key`` → ``path``). ``lifted``: the planner, the quotas or the
    account checks read it, so a value written in ``job:`` moves into the resolved city as if written with ``key``."""

    key: str
    path: str
    lifted: bool = True


OWNED: dict[str, OwnedField] = {
    field.path: field
    for field in (
        OwnedField(
            "TrainingJobName",
            "`fleet` and the city's `name`",
            "job names are {fleet}-{city}-{run_key}: the name is how a retried task finds its job",
        ),
        OwnedField(
            "ResourceConfig.KeepAlivePeriodInSeconds",
            "`keep_alive` (auto or seconds)",
            "the plan sets each job's keep-alive from its lane",
        ),
        OwnedField("EnableManagedSpotTraining", "`spot`", "spot attempts and the on-demand fallback set it"),
        OwnedField(
            "StoppingCondition.MaxWaitTimeInSeconds",
            "`spot: {max_wait_seconds: N}`",
            "it is sent on spot attempts only (SageMaker refuses it without spot)",
        ),
        OwnedField(
            "CheckpointConfig.S3Uri",
            "`output_s3_uri`",
            "every submission of a city in a run resumes from {output_s3_uri}/checkpoints/{city}/{run_key}/",
        ),
        OwnedField(
            "OutputDataConfig.S3OutputPath",
            "`output_s3_uri`",
            "models go to {output_s3_uri}/models/{city}/{run_key}/, where the models asset and the report look",
        ),
        OwnedField(
            "ResourceConfig.InstanceGroups",
            "`instance_type` and `instance_count`",
            "heterogeneous clusters keep no warm pool and the planner needs one instance type per job",
        ),
        OwnedField(
            "AlgorithmSpecification.AlgorithmName",
            "`image_uri`",
            "the fleet trains a container image; algorithm resources are not supported",
        ),
    )
}
#: A tag key of the provider's (``sagemaker-fleet:*``) in a template is refused like an owned field.
OWNED_TAG = OwnedField(
    f"Tags.Key={TAG_PREFIX}*",
    "another key",
    f"the provider's `{TAG_PREFIX}*` tags prove a job is the fleet's before a task attaches to it",
)

#: Fields ``job:`` and the provider both fill, and how.
MERGED: dict[str, str] = {
    "Tags": "yours are added to the provider's sagemaker-fleet:* tags, merged by Key across layers; at most 50 in all",
    "InputDataConfig": (
        "merged by ChannelName across layers; the `train` channel's S3Uri is `train_s3_uri`, "
        "anything else of it (InputMode, ContentType, …) may be set in job:"
    ),
    "CheckpointConfig.LocalPath": "honoured (default /opt/ml/checkpoints); the S3Uri stays the provider's",
    "HyperParameters": "merged by key with `hyperparameters`",
    "Environment": "merged by key with `environment`",
}

#: The ``train`` channel's data: the shorthand ``train_s3_uri``.
TRAIN_CHANNEL = "train"
TRAIN_URI = f"InputDataConfig[{TRAIN_CHANNEL}].DataSource.S3DataSource.S3Uri"

SHORTHANDS: tuple[Shorthand, ...] = (
    Shorthand("role_arn", "RoleArn"),
    Shorthand("image_uri", "AlgorithmSpecification.TrainingImage"),
    Shorthand("input_mode", "AlgorithmSpecification.TrainingInputMode", lifted=False),
    Shorthand("instance_type", "ResourceConfig.InstanceType"),
    Shorthand("instance_count", "ResourceConfig.InstanceCount"),
    Shorthand("volume_size_gb", "ResourceConfig.VolumeSizeInGB"),
    Shorthand("volume_kms_key_id", "ResourceConfig.VolumeKmsKeyId"),
    Shorthand("vpc", "VpcConfig"),
    Shorthand("enable_network_isolation", "EnableNetworkIsolation"),
    Shorthand("enable_inter_container_traffic_encryption", "EnableInterContainerTrafficEncryption"),
    Shorthand("max_runtime_seconds", "StoppingCondition.MaxRuntimeInSeconds"),
    Shorthand("train_s3_uri", TRAIN_URI),
)
#: Maps merged key by key with a shorthand map: ``HyperParameters[k]`` and ``hyperparameters[k]`` are one field.
KEYED_SHORTHANDS: dict[str, str] = {"HyperParameters": "hyperparameters", "Environment": "environment"}
#: ``vpc`` is one shorthand for two fields.
VPC_MEMBERS: dict[str, str] = {"Subnets": "subnets", "SecurityGroupIds": "security_group_ids"}

#: The default SageMaker applies to a field a request leaves out, as DescribeTrainingJob shows it: the simulator
#: echoes them and ``import`` drops a value equal to one. Channels' and S3 sources' members hold for each item.
CHECKPOINT_LOCAL_PATH = "/opt/ml/checkpoints"
AWS_DEFAULTS: dict[str, object] = {
    "EnableNetworkIsolation": False,
    "EnableInterContainerTrafficEncryption": False,
    "EnableManagedSpotTraining": False,
    "StoppingCondition.MaxRuntimeInSeconds": 86400,
    "AlgorithmSpecification.EnableSageMakerMetricsTimeSeries": False,
    "OutputDataConfig.CompressionType": "GZIP",
    "CheckpointConfig.LocalPath": CHECKPOINT_LOCAL_PATH,
    "InputDataConfig.CompressionType": "None",
    "InputDataConfig.RecordWrapperType": "None",
    "InputDataConfig.DataSource.S3DataSource.S3DataDistributionType": "FullyReplicated",
}


def owned(path: str) -> OwnedField | None:
    """The owned field at ``path`` (list levels left out), if it is one."""
    return OWNED.get(path)


def shorthand_at(path: str) -> Shorthand | None:
    """The shorthand filling the field at ``path`` (``InputDataConfig[train]…`` for the train channel's data)."""
    return _BY_PATH.get(path)


def shorthand_named(key: str) -> Shorthand:
    return _BY_KEY[key]


_BY_PATH = {shorthand.path: shorthand for shorthand in SHORTHANDS}
_BY_KEY = {shorthand.key: shorthand for shorthand in SHORTHANDS}

#: The shape of what the provider always sends (its values are stand-ins): a template merged onto it is complete
#: when no required member is missing. ``tests/unit/fleetspec/test_job_fields.py`` holds it to the compiler's.
PROVIDED: dict[str, object] = {
    "TrainingJobName": "provided",
    "AlgorithmSpecification": {"TrainingImage": "provided", "TrainingInputMode": "File"},
    "InputDataConfig": [
        {
            "ChannelName": TRAIN_CHANNEL,
            "DataSource": {
                "S3DataSource": {
                    "S3DataType": "S3Prefix",
                    "S3Uri": "s3://provided/",
                    "S3DataDistributionType": "FullyReplicated",
                }
            },
        }
    ],
    "OutputDataConfig": {"S3OutputPath": "s3://provided/"},
    "StoppingCondition": {"MaxRuntimeInSeconds": 1},
    "CheckpointConfig": {"S3Uri": "s3://provided/", "LocalPath": CHECKPOINT_LOCAL_PATH},
    "Tags": [{"Key": "provided", "Value": "provided"}],
    "RoleArn": "provided",
    "ResourceConfig": {"InstanceType": "provided", "InstanceCount": 1, "VolumeSizeInGB": 1},
    "EnableNetworkIsolation": False,
    "EnableInterContainerTrafficEncryption": False,
}
