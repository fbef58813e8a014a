"""The IAM request context of a CreateTrainingJob request: the condition keys SageMaker fills from it (pure).

SageMaker evaluates ``sagemaker:CreateTrainingJob`` with condition keys read from the request. The keys and what
each holds are AWS's ("Actions, resources, and condition keys for Amazon SageMaker" in the Service Authorization
Reference); the request fields they come from are these:

| condition key | type | from the request |
|---|---|---|
| ``sagemaker:InstanceTypes`` | strings | ``ResourceConfig.InstanceType`` and every ``ResourceConfig.InstanceGroups[].InstanceType`` |
| ``sagemaker:MaxRuntimeInSeconds`` | number | ``StoppingCondition.MaxRuntimeInSeconds`` |
| ``sagemaker:KeepAlivePeriod`` | number | ``ResourceConfig.KeepAlivePeriodInSeconds`` (absent: none) |
| ``sagemaker:VpcSubnets``, ``sagemaker:VpcSecurityGroupIds`` | strings | ``VpcConfig.Subnets``, ``VpcConfig.SecurityGroupIds`` |
| ``sagemaker:VolumeKmsKeyArn`` | ARN | ``ResourceConfig.VolumeKmsKeyId`` |
| ``sagemaker:OutputKmsKeyArn`` | ARN | ``OutputDataConfig.KmsKeyId`` |
| ``sagemaker:NetworkIsolation`` | bool | ``EnableNetworkIsolation`` |
| ``sagemaker:InterContainerTrafficEncryption`` | bool | ``EnableInterContainerTrafficEncryption`` |
| ``sagemaker:EnableRemoteDebug`` | bool | ``RemoteDebugConfig.EnableRemoteDebug`` |
| ``sagemaker:FileSystemId`` | string | ``InputDataConfig[].DataSource.FileSystemDataSource.FileSystemId`` |
| ``aws:TagKeys``, ``aws:RequestTag/KEY`` | strings | ``Tags`` |

``sagemaker:VolumeKmsKey`` and ``sagemaker:OutputKmsKey`` are the deprecated names of the two ``…Arn`` keys; the
reference says the ``…Arn`` keys hold the key's ARN, so a spec names its keys by ARN (``sagemaker-fleet iam``
refuses a key id or an alias it cannot compare). The policies are generated from the same requests the provider
sends (:mod:`.launch`), and the tests evaluate those requests' contexts against them.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

INSTANCE_TYPES = "sagemaker:InstanceTypes"
MAX_RUNTIME = "sagemaker:MaxRuntimeInSeconds"
KEEP_ALIVE = "sagemaker:KeepAlivePeriod"
VPC_SUBNETS = "sagemaker:VpcSubnets"
VPC_SECURITY_GROUPS = "sagemaker:VpcSecurityGroupIds"
VOLUME_KMS_KEY = "sagemaker:VolumeKmsKeyArn"
OUTPUT_KMS_KEY = "sagemaker:OutputKmsKeyArn"
NETWORK_ISOLATION = "sagemaker:NetworkIsolation"
TRAFFIC_ENCRYPTION = "sagemaker:InterContainerTrafficEncryption"
REMOTE_DEBUG = "sagemaker:EnableRemoteDebug"
FILE_SYSTEM_ID = "sagemaker:FileSystemId"
TAG_KEYS = "aws:TagKeys"

#: A request context: condition key → its value, or values for a multivalued key (IAM takes text).
Context = dict[str, str | list[str]]


def _flag(value: object) -> str:
    return "true" if value else "false"


def create_training_job_context(request: Mapping[str, Any]) -> Context:
    """The condition keys a CreateTrainingJob ``request`` (boto3's shape) sets; a key the request gives no value
    for is absent."""
    context: Context = {}
    _resources(context, request)
    _network(context, request)
    output_key = (request.get("OutputDataConfig") or {}).get("KmsKeyId")
    if output_key:
        context[OUTPUT_KMS_KEY] = str(output_key)
    debug = request.get("RemoteDebugConfig") or {}
    if "EnableRemoteDebug" in debug:
        context[REMOTE_DEBUG] = _flag(debug["EnableRemoteDebug"])
    file_systems = [
        str(source["FileSystemId"])
        for channel in request.get("InputDataConfig") or []
        if (source := (channel.get("DataSource") or {}).get("FileSystemDataSource"))
        and source.get("FileSystemId")
    ]
    if file_systems:
        context[FILE_SYSTEM_ID] = file_systems[0] if len(file_systems) == 1 else file_systems
    tags = request.get("Tags") or []
    if tags:
        context[TAG_KEYS] = [str(tag["Key"]) for tag in tags]
        context.update({f"aws:RequestTag/{tag['Key']}": str(tag["Value"]) for tag in tags})
    return context


def _resources(context: Context, request: Mapping[str, Any]) -> None:
    """The instances, the runtime, the keep-alive and the volume's key."""
    resources = request.get("ResourceConfig") or {}
    types = [resources.get("InstanceType")] + [
        group.get("InstanceType") for group in resources.get("InstanceGroups") or []
    ]
    if any(types):
        context[INSTANCE_TYPES] = [str(t) for t in types if t]
    stopping = request.get("StoppingCondition") or {}
    if stopping.get("MaxRuntimeInSeconds") is not None:
        context[MAX_RUNTIME] = str(stopping["MaxRuntimeInSeconds"])
    if resources.get("KeepAlivePeriodInSeconds") is not None:
        context[KEEP_ALIVE] = str(resources["KeepAlivePeriodInSeconds"])
    if resources.get("VolumeKmsKeyId"):
        context[VOLUME_KMS_KEY] = str(resources["VolumeKmsKeyId"])


def _network(context: Context, request: Mapping[str, Any]) -> None:
    """The VPC, network isolation and traffic encryption."""
    vpc = request.get("VpcConfig") or {}
    if vpc.get("Subnets"):
        context[VPC_SUBNETS] = [str(s) for s in vpc["Subnets"]]
    if vpc.get("SecurityGroupIds"):
        context[VPC_SECURITY_GROUPS] = [str(s) for s in vpc["SecurityGroupIds"]]
    if "EnableNetworkIsolation" in request:
        context[NETWORK_ISOLATION] = _flag(request["EnableNetworkIsolation"])
    if "EnableInterContainerTrafficEncryption" in request:
        context[TRAFFIC_ENCRYPTION] = _flag(request["EnableInterContainerTrafficEncryption"])
