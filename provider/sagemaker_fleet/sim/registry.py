"""The SageMaker Model Registry, simulated: model package groups and their versioned packages.

Served: CreateModelPackageGroup, DescribeModelPackageGroup, CreateModelPackage (``ClientToken``: the same token
gives back the package it created, whatever else the second request says), DescribeModelPackage, ListModelPackages
(filters, SortBy, SortOrder, MaxResults and NextToken) and UpdateModelPackage (approval status, its description, the
customer metadata). ListTags and AddTags of a group or a package go through the engine (``tags_of``).

What AWS does not publish, and the simulator chooses (docs/sagemaker-behaviour.md, the model registry): a package
is ``Completed`` at once (AWS takes seconds); a ``ClientToken`` is remembered for the life of the simulator (AWS does
not say for how long); the error texts of a missing or existing group or package are ours, in AWS's codes
(ValidationException, as DescribeTrainingJob answers a missing name). Unversioned packages (a ``ModelPackageName``
without a group) are not served.
"""

from __future__ import annotations

import copy
import hashlib
import json
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from sagemaker_fleet.sim.errors import constraint_violations, validation_error, violation
from sagemaker_fleet.sim.listing import (
    DEFAULT_MAX_RESULTS,
    MAX_RESULTS_LIMIT,
    epoch_seconds,
    page_offset,
    page_token,
)
from sagemaker_fleet.sim.render import timestamp

APPROVAL_STATUSES = ("Approved", "Rejected", "PendingManualApproval")
#: CreateModelPackage's members that DescribeModelPackage gives back as they were sent.
ECHOED = (
    "ModelPackageDescription",
    "InferenceSpecification",
    "SourceAlgorithmSpecification",
    "ValidationSpecification",
    "CertifyForMarketplace",
    "MetadataProperties",
    "ModelMetrics",
    "Domain",
    "Task",
    "SamplePayloadUrl",
    "DriftCheckBaselines",
    "AdditionalInferenceSpecifications",
    "SkipModelValidation",
    "SourceUri",
    "SecurityConfig",
    "ModelCard",
    "ModelLifeCycle",
    "ModelPackageRegistrationType",
)
_LIST_KEYS = (
    "CreationTimeAfter",
    "CreationTimeBefore",
    "NameContains",
    "ModelApprovalStatus",
    "ModelPackageGroupName",
    "ModelPackageType",
    "SortBy",
    "SortOrder",
)


@dataclass
class PackageGroup:
    name: str
    arn: str
    description: str
    created_at: float
    tags: dict[str, str] = field(default_factory=dict)
    versions: int = 0


@dataclass
class ModelPackage:
    group: str
    version: int
    arn: str
    created_at: float
    request: dict[str, Any]
    approval: str
    modified_at: float
    approval_description: str | None = None
    metadata: dict[str, str] = field(default_factory=dict)
    tags: dict[str, str] = field(default_factory=dict)


class ModelRegistry:
    """The account's model package groups and packages (one region), their ARNs made from ``arn_prefix``."""

    def __init__(self, region: str, account_id: str) -> None:
        self.arn_prefix = f"arn:aws:sagemaker:{region}:{account_id}"
        self.groups: dict[str, PackageGroup] = {}
        self.packages: dict[str, ModelPackage] = {}
        self.tokens: dict[str, str] = {}

    # ------------------------------------------------------------------------------------------------ groups

    def create_group(self, request: Mapping[str, Any], now: float) -> dict[str, Any]:
        name = _entity_name(request.get("ModelPackageGroupName"), "modelPackageGroupName")
        if name in self.groups:
            raise validation_error(f"Model Package Group already exists: {self.groups[name].arn}")
        group = PackageGroup(
            name=name,
            arn=f"{self.arn_prefix}:model-package-group/{name.lower()}",
            description=str(request.get("ModelPackageGroupDescription") or ""),
            created_at=now,
            tags=_tags(request.get("Tags")),
        )
        self.groups[name] = group
        return {"ModelPackageGroupArn": group.arn}

    def describe_group(self, request: Mapping[str, Any]) -> dict[str, Any]:
        group = self._group(request.get("ModelPackageGroupName"))
        out: dict[str, Any] = {
            "ModelPackageGroupName": group.name,
            "ModelPackageGroupArn": group.arn,
            "CreationTime": timestamp(group.created_at),
            "CreatedBy": {},
            "ModelPackageGroupStatus": "Completed",
        }
        if group.description:
            out["ModelPackageGroupDescription"] = group.description
        return out

    def _group(self, name_or_arn: object) -> PackageGroup:
        if not isinstance(name_or_arn, str) or not name_or_arn:
            raise constraint_violations([violation(None, "modelPackageGroupName", "Member must not be null")])
        name = name_or_arn.rsplit("/", 1)[-1] if name_or_arn.startswith("arn:") else name_or_arn
        group = self.groups.get(name) or next(
            (g for g in self.groups.values() if g.name.lower() == name.lower()), None
        )
        if group is None:
            raise validation_error(f"ModelPackageGroup {name} does not exist.")
        return group

    # ---------------------------------------------------------------------------------------------- packages

    def create_package(self, request: Mapping[str, Any], now: float) -> dict[str, Any]:
        token = request.get("ClientToken")
        if isinstance(token, str) and token in self.tokens:
            return {"ModelPackageArn": self.tokens[token]}  # the same call again: the package it made
        if request.get("ModelPackageGroupName") is None:
            raise validation_error(
                "The simulator serves versioned model packages only: give ModelPackageGroupName."
            )
        if request.get("ModelPackageName") is not None:
            raise validation_error(
                "ModelPackageName cannot be specified together with ModelPackageGroupName."
            )
        group = self._group(request.get("ModelPackageGroupName"))
        if (
            request.get("InferenceSpecification") is None
            and request.get("ModelPackageRegistrationType") != "Logged"
        ):
            raise validation_error(
                "InferenceSpecification is required for a registered model package version."
            )
        approval = str(request.get("ModelApprovalStatus") or "PendingManualApproval")
        _check_approval(approval)
        group.versions += 1
        package = ModelPackage(
            group=group.name,
            version=group.versions,
            arn=f"{self.arn_prefix}:model-package/{group.name.lower()}/{group.versions}",
            created_at=now,
            request=copy.deepcopy(dict(request)),
            approval=approval,
            modified_at=now,
            metadata=dict(request.get("CustomerMetadataProperties") or {}),
            tags=_tags(request.get("Tags")),
        )
        self.packages[package.arn] = package
        if isinstance(token, str) and token:
            self.tokens[token] = package.arn
        return {"ModelPackageArn": package.arn}

    def describe_package(self, request: Mapping[str, Any]) -> dict[str, Any]:
        package = self._package(request.get("ModelPackageName"), "modelPackageName")
        out: dict[str, Any] = {
            **_listed(package),
            "ModelPackageStatusDetails": {"ValidationStatuses": [], "ImageScanStatuses": []},
            "CreatedBy": {},
            "LastModifiedTime": timestamp(package.modified_at),
            "LastModifiedBy": {},
        }
        out.update({key: copy.deepcopy(package.request[key]) for key in ECHOED if key in package.request})
        if package.approval_description is not None:
            out["ApprovalDescription"] = package.approval_description
        if package.metadata:
            out["CustomerMetadataProperties"] = dict(package.metadata)
        return out

    def update_package(self, request: Mapping[str, Any], now: float) -> dict[str, Any]:
        package = self._package(request.get("ModelPackageArn"), "modelPackageArn")
        approval = request.get("ModelApprovalStatus")
        if approval is not None:
            _check_approval(str(approval))
            package.approval = str(approval)
        if request.get("ApprovalDescription") is not None:
            package.approval_description = str(request["ApprovalDescription"])
        package.metadata.update(request.get("CustomerMetadataProperties") or {})
        for key in request.get("CustomerMetadataPropertiesToRemove") or ():
            package.metadata.pop(str(key), None)
        package.modified_at = now
        return {"ModelPackageArn": package.arn}

    def _package(self, name_or_arn: object, path: str) -> ModelPackage:
        if not isinstance(name_or_arn, str) or not name_or_arn:
            raise constraint_violations([violation(None, path, "Member must not be null")])
        package = self.packages.get(name_or_arn)
        if package is None:
            raise validation_error(f"ModelPackage {name_or_arn} does not exist.")
        return package

    def list_packages(self, request: Mapping[str, Any]) -> dict[str, Any]:
        limit = _max_results(request.get("MaxResults", DEFAULT_MAX_RESULTS))
        query = hashlib.sha256(
            json.dumps({k: request.get(k) for k in _LIST_KEYS}, sort_keys=True, default=str).encode()
        ).hexdigest()[:16]
        chosen = self._selector(
            request
        )  # an unknown group is refused, as DescribeModelPackageGroup refuses it
        selected = [p for p in self.packages.values() if chosen(p)]
        by_name = request.get("SortBy") == "Name"
        selected.sort(
            key=(lambda p: (p.group, p.version)) if by_name else (lambda p: (p.created_at, p.version))
        )
        if request.get("SortOrder", "Ascending") == "Descending":
            selected.reverse()
        offset = page_offset(request.get("NextToken"), query)
        page = selected[offset : offset + limit]
        out: dict[str, Any] = {"ModelPackageSummaryList": [_summary(p) for p in page]}
        if offset + limit < len(selected):
            out["NextToken"] = page_token(offset + limit, query)
        return out

    def _selector(self, request: Mapping[str, Any]) -> Callable[[ModelPackage], bool]:
        group_name = request.get("ModelPackageGroupName")
        group = self._group(group_name).name if group_name is not None else None
        kind = request.get("ModelPackageType") or ("Versioned" if group is not None else "Unversioned")
        name_part = str(request.get("NameContains") or "").lower()
        status = request.get("ModelApprovalStatus")
        after, before = (
            epoch_seconds(request[key]) if request.get(key) is not None else None
            for key in ("CreationTimeAfter", "CreationTimeBefore")
        )

        def selected(package: ModelPackage) -> bool:
            created = timestamp(package.created_at)
            return (
                kind != "Unversioned"  # every simulated package is a version of a group
                and (group is None or package.group == group)
                and name_part in package.group.lower()
                and (status is None or package.approval == status)
                and (after is None or created > after)
                and (before is None or created < before)
            )

        return selected

    # -------------------------------------------------------------------------------------------------- tags

    def tags_of(self, arn: str) -> dict[str, str] | None:
        """The tags of the group or package ``arn`` (a live dict: AddTags updates it), None for another ARN."""
        if arn in self.packages:
            return self.packages[arn].tags
        group = next((g for g in self.groups.values() if g.arn == arn), None)
        return group.tags if group is not None else None

    def snapshot(self) -> dict[str, Any]:
        """Every group and package, JSON-ready (admin ``GET /_sim/registry``)."""
        return {
            "groups": [
                {
                    "name": g.name,
                    "arn": g.arn,
                    "created_at": g.created_at,
                    "versions": g.versions,
                    "tags": g.tags,
                }
                for g in self.groups.values()
            ],
            "packages": [
                {
                    "arn": p.arn,
                    "group": p.group,
                    "version": p.version,
                    "created_at": p.created_at,
                    "modified_at": p.modified_at,
                    "approval": p.approval,
                    "approval_description": p.approval_description,
                    "client_token": p.request.get("ClientToken"),
                    "metadata": dict(p.metadata),
                    "description": p.request.get("ModelPackageDescription"),
                }
                for p in self.packages.values()
            ],
        }


def _listed(package: ModelPackage) -> dict[str, Any]:
    """The fields a package's description and its ListModelPackages summary share."""
    return {
        "ModelPackageName": package.group,
        "ModelPackageGroupName": package.group,
        "ModelPackageVersion": package.version,
        "ModelPackageArn": package.arn,
        "CreationTime": timestamp(package.created_at),
        "ModelPackageStatus": "Completed",
        "ModelApprovalStatus": package.approval,
    }


def _summary(package: ModelPackage) -> dict[str, Any]:
    out = _listed(package)
    if package.request.get("ModelPackageDescription"):
        out["ModelPackageDescription"] = package.request["ModelPackageDescription"]
    return out


def _entity_name(value: object, path: str) -> str:
    if not isinstance(value, str) or not value:
        raise constraint_violations([violation(None, path, "Member must not be null")])
    return value


def _check_approval(status: str) -> None:
    if status not in APPROVAL_STATUSES:
        raise constraint_violations(
            [
                violation(
                    status,
                    "modelApprovalStatus",
                    f"Member must satisfy enum value set: [{', '.join(APPROVAL_STATUSES)}]",
                )
            ]
        )


def _max_results(value: object) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or not 1 <= value <= MAX_RESULTS_LIMIT:
        raise constraint_violations(
            [violation(value, "maxResults", f"Member must have value between 1 and {MAX_RESULTS_LIMIT}")]
        )
    return value


def _tags(tags: object) -> dict[str, str]:
    out: dict[str, str] = {}
    for tag in tags if isinstance(tags, list) else []:
        if isinstance(tag, Mapping) and isinstance(tag.get("Key"), str):
            out[tag["Key"]] = str(tag.get("Value", ""))
    return out
