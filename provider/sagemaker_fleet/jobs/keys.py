"""The warm-pool matching key (docs/sagemaker-behaviour.md, matching criteria): the one function that decides which jobs may share a pool.

It reads the CreateTrainingJob request shape, so the planner (through :func:`matching_request_fields`), the
request compiler and the simulator all use exactly the same criteria, whether a field came from a shorthand or a
``job:`` template. The training image is deliberately absent: AWS does not match on it. Session-tag chaining
(``SessionChainingConfig``) is part of the key; DescribeTrainingJob does not return it, so a key read from a
description has it off.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, NotRequired, TypedDict, cast

if TYPE_CHECKING:
    from mypy_boto3_sagemaker.literals import TrainingInstanceTypeType
    from mypy_boto3_sagemaker.type_defs import (
        ResourceConfigTypeDef,
        SessionChainingConfigTypeDef,
        VpcConfigTypeDef,
    )

    from sagemaker_fleet.fleetspec.model import CitySpec

    class MatchingRequestFields(TypedDict):
        """The members of a CreateTrainingJob request that the matching key reads."""

        RoleArn: str
        ResourceConfig: ResourceConfigTypeDef
        EnableNetworkIsolation: bool
        EnableInterContainerTrafficEncryption: bool
        VpcConfig: NotRequired[VpcConfigTypeDef]
        SessionChainingConfig: NotRequired[SessionChainingConfigTypeDef]


@dataclass(frozen=True, order=True)
class WarmPoolKey:
    """Jobs with equal keys may reuse each other's warm pool; the role is a security boundary and part of it."""

    role_arn: str
    instance_type: str
    instance_count: int
    volume_size_gb: int
    volume_kms_key_id: str | None
    subnets: tuple[str, ...]
    security_group_ids: tuple[str, ...]
    enable_network_isolation: bool
    enable_inter_container_traffic_encryption: bool
    #: ``SessionChainingConfig.EnableSessionTagChaining``: the caller's session tag keys must match too, and a
    #: fleet's jobs are all created by one caller
    session_tag_chaining: bool = False

    def to_json(self) -> dict[str, Any]:
        """The ``key`` object of the plan JSON (docs/formats.md, plan JSON), fields in their stable order;
        ``enable_session_tag_chaining`` only where it is on."""
        chaining = {"enable_session_tag_chaining": True} if self.session_tag_chaining else {}
        return {
            "role_arn": self.role_arn,
            "instance_type": self.instance_type,
            "instance_count": self.instance_count,
            "volume_size_gb": self.volume_size_gb,
            "volume_kms_key_id": self.volume_kms_key_id,
            "subnets": list(self.subnets),
            "security_group_ids": list(self.security_group_ids),
            "enable_network_isolation": self.enable_network_isolation,
            "enable_inter_container_traffic_encryption": self.enable_inter_container_traffic_encryption,
            **chaining,
        }


class KeyedByPool:
    """Something that runs on the capacity a matching key names (a request, a group of cities): its instance
    type and count are the key's, read from nowhere else."""

    key: WarmPoolKey

    @property
    def instance_type(self) -> str:
        return self.key.instance_type

    @property
    def instance_count(self) -> int:
        return self.key.instance_count


def warm_pool_key(request: Mapping[str, Any]) -> WarmPoolKey:
    """The matching key of a CreateTrainingJob request (or a DescribeTrainingJob response: same field names)."""
    resources = request.get("ResourceConfig") or {}
    vpc = request.get("VpcConfig") or {}
    return WarmPoolKey(
        role_arn=str(request["RoleArn"]),
        instance_type=str(resources["InstanceType"]),
        instance_count=int(resources.get("InstanceCount", 1)),
        volume_size_gb=int(resources.get("VolumeSizeInGB", 0)),
        volume_kms_key_id=resources.get("VolumeKmsKeyId") or None,
        subnets=tuple(sorted(vpc.get("Subnets") or ())),
        security_group_ids=tuple(sorted(vpc.get("SecurityGroupIds") or ())),
        enable_network_isolation=bool(request.get("EnableNetworkIsolation", False)),
        enable_inter_container_traffic_encryption=bool(
            request.get("EnableInterContainerTrafficEncryption", False)
        ),
        session_tag_chaining=bool(
            (request.get("SessionChainingConfig") or {}).get("EnableSessionTagChaining", False)
        ),
    )


def matching_request_fields(city: CitySpec) -> MatchingRequestFields:
    """The part of a city's CreateTrainingJob request that the matching key reads: the fields lifted from its
    shorthands or its template, and its template's session-tag chaining."""
    resources: ResourceConfigTypeDef = {
        # the spec checks the form of the type (ml.<family>.<size>), not the stubs' list, which trails AWS's
        "InstanceType": cast("TrainingInstanceTypeType", city.instance_type),
        "InstanceCount": city.instance_count,
        "VolumeSizeInGB": city.volume_size_gb,
    }
    if city.volume_kms_key_id:
        resources["VolumeKmsKeyId"] = city.volume_kms_key_id
    fields: MatchingRequestFields = {
        "RoleArn": city.role_arn,
        "ResourceConfig": resources,
        "EnableNetworkIsolation": city.enable_network_isolation,
        "EnableInterContainerTrafficEncryption": city.enable_inter_container_traffic_encryption,
    }
    if city.vpc is not None:
        fields["VpcConfig"] = {
            "Subnets": list(city.vpc.subnets),
            "SecurityGroupIds": list(city.vpc.security_group_ids),
        }
    if city.job is not None and city.job.session_tag_chaining:
        fields["SessionChainingConfig"] = {"EnableSessionTagChaining": True}
    return fields


def city_key(city: CitySpec) -> WarmPoolKey:
    """The matching key of a city, through the same function the simulator applies to requests."""
    return warm_pool_key(matching_request_fields(city))
