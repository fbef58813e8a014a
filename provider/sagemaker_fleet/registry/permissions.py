"""The IAM permissions the model registry's gate needs, as one list (the ``iam`` policy generator and ``preflight``
read it): the actions, on which resources of the account and region, and why each.

Resources are ARN patterns with ``{partition}``, ``{region}``, ``{account}`` and the group's name pattern: each
city's group (``register.group`` with ``{fleet}`` filled and ``{city}`` as ``*``) and its versions.
"""

from __future__ import annotations

from dataclasses import dataclass

from sagemaker_fleet.fleetspec.placeholders import render


@dataclass(frozen=True)
class RegistryPermission:
    """One statement's worth: ``actions`` on ``resources`` (ARN patterns), and what for."""

    actions: tuple[str, ...]
    resources: tuple[str, ...]
    why: str


GROUP_ARN = "arn:{partition}:sagemaker:{region}:{account}:model-package-group/{group}"
PACKAGE_ARN = "arn:{partition}:sagemaker:{region}:{account}:model-package/{group}/*"
TRAINING_JOB_ARN = "arn:{partition}:sagemaker:{region}:{account}:training-job/*"


def group_pattern(group: str, fleet: str) -> str:
    """``register.group`` as an IAM resource pattern: ``{fleet}`` filled, ``{city}`` any name (ARNs are lower case)."""
    return render(group, {"fleet": fleet, "city": "*"}).lower()


def registry_permissions(group: str, fleet: str) -> tuple[RegistryPermission, ...]:
    """What the register task calls, for a fleet whose ``register.group`` is ``group``."""
    pattern = group_pattern(group, fleet)
    groups = (GROUP_ARN.replace("{group}", pattern),)
    packages = (PACKAGE_ARN.replace("{group}", pattern),)
    return (
        RegistryPermission(
            ("sagemaker:DescribeModelPackageGroup", "sagemaker:CreateModelPackageGroup", "sagemaker:AddTags"),
            groups,
            "each city's group is read, and made (with its tags) when missing",
        ),
        RegistryPermission(
            ("sagemaker:ListModelPackages",),
            ("*",),
            "the champion and a retried task's package are read from the group's listing (IAM does not scope "
            "ListModelPackages to a resource)",
        ),
        RegistryPermission(
            (
                "sagemaker:DescribeModelPackage",
                "sagemaker:CreateModelPackage",
                "sagemaker:UpdateModelPackage",
                "sagemaker:AddTags",
            ),
            (*packages, *groups),
            "the champion is described; each city's model is registered as a version of its group, with its tags, "
            "and the gate's reason written as its ApprovalDescription",
        ),
        RegistryPermission(
            ("sagemaker:DescribeTrainingJob",),
            (TRAINING_JOB_ARN,),
            "a champion registered without the provider's record: its metric is read from its training job",
        ),
    )


#: Every action of :func:`registry_permissions`, for checks that need the names only.
REGISTRY_ACTIONS: tuple[str, ...] = (
    "sagemaker:AddTags",
    "sagemaker:CreateModelPackage",
    "sagemaker:CreateModelPackageGroup",
    "sagemaker:DescribeModelPackage",
    "sagemaker:DescribeModelPackageGroup",
    "sagemaker:DescribeTrainingJob",
    "sagemaker:ListModelPackages",
    "sagemaker:UpdateModelPackage",
)
