"""The rules of a city's values that SageMaker bounds: the volume's KMS key, the VPC's ids, the environment and the
hyperparameters (pure). Each problem is a ``(field path, message)`` pair, the message saying why and the fix, as in
:mod:`~sagemaker_fleet.fleetspec.crossfield`; the loader reports them with the YAML line."""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from sagemaker_fleet.fleetspec.crossfield import Problem, has_line_break
from sagemaker_fleet.fleetspec.formats import ENV_KEY_RE, KMS_RE, SECURITY_GROUP_RE, SUBNET_RE
from sagemaker_fleet.fleetspec.model import (
    ENVIRONMENT_MAX,
    ENVIRONMENT_VALUE_MAX,
    HYPERPARAMETER_KEY_MAX,
    HYPERPARAMETER_VALUE_MAX,
    HYPERPARAMETERS_MAX,
)
from sagemaker_fleet.fleetspec.placeholders import PlaceholderError, names_in
from sagemaker_fleet.fleetspec.resolve import hyper_text

if TYPE_CHECKING:
    from sagemaker_fleet.fleetspec.resolve import Resolved


def resource_problems(resolved: Resolved) -> list[Problem]:
    """The city's KMS key, VPC ids, environment and hyperparameters against SageMaker's formats and limits."""
    problems: list[Problem] = []
    kms = resolved.value("volume_kms_key_id")
    if kms is not None and not KMS_RE.fullmatch(kms):
        problems.append(
            (
                resolved.path("volume_kms_key_id"),
                "use a KMS key id, alias or ARN (letters, digits, ':', '/', '_', '-')",
            )
        )
    vpc = resolved.value("vpc")
    if vpc is not None:
        problems += _ids(resolved.member_path("vpc", "subnets", "Subnets"), vpc.subnets, SUBNET_RE)
        problems += _ids(
            resolved.member_path("vpc", "security_group_ids", "SecurityGroupIds"),
            vpc.security_group_ids,
            SECURITY_GROUP_RE,
        )
    return problems + _environment(resolved) + _hyperparameters(resolved)


def _ids(path: str, ids: list[str], pattern: re.Pattern[str]) -> list[Problem]:
    example = "subnet-0a1b2c3d" if path.endswith((".subnets", ".Subnets")) else "sg-0a1b2c3d"
    return [
        (f"{path}[{i}]", f"{value!r} is not valid; use an id such as {example}")
        for i, value in enumerate(ids)
        if not pattern.fullmatch(value)
    ]


def _environment(resolved: Resolved) -> list[Problem]:
    problems: list[Problem] = []
    env: dict[str, str] = resolved.value("environment") or {}
    if len(env) > ENVIRONMENT_MAX:
        problems.append(
            (
                resolved.path("environment"),
                f"SageMaker accepts at most {ENVIRONMENT_MAX} environment variables",
            )
        )
    for key, value in env.items():
        if not ENV_KEY_RE.fullmatch(key):
            problems.append(
                (
                    f"{resolved.path('environment')}[{key}]",
                    "environment names are letters, digits and '_', not starting with a digit; rename it",
                )
            )
        elif (placeholder := _placeholder_problem(value)) is not None:
            problems.append((f"{resolved.path('environment')}[{key}]", placeholder))
        elif len(value) > ENVIRONMENT_VALUE_MAX:
            problems.append(
                (
                    f"{resolved.path('environment')}[{key}]",
                    f"the value has {len(value)} characters; SageMaker accepts at most {ENVIRONMENT_VALUE_MAX}, "
                    "shorten it",
                )
            )
    return problems


def _hyperparameters(resolved: Resolved) -> list[Problem]:
    problems: list[Problem] = []
    hyper = resolved.value("hyperparameters") or {}
    if len(hyper) > HYPERPARAMETERS_MAX:
        problems.append(
            (
                resolved.path("hyperparameters"),
                f"SageMaker accepts at most {HYPERPARAMETERS_MAX} hyperparameters",
            )
        )
    for key, value in hyper.items():
        path = f"{resolved.path('hyperparameters')}[{key}]"
        text = hyper_text(value)
        if len(key) > HYPERPARAMETER_KEY_MAX or len(text) > HYPERPARAMETER_VALUE_MAX:
            problems.append(
                (
                    path,
                    f"hyperparameter names are ≤ {HYPERPARAMETER_KEY_MAX} and values ≤ {HYPERPARAMETER_VALUE_MAX} "
                    "characters; shorten it",
                )
            )
        elif (placeholder := _placeholder_problem(text)) is not None:
            problems.append((path, placeholder))
        elif has_line_break(key) or has_line_break(text):
            problems.append(
                (
                    path,
                    "SageMaker refuses a hyperparameter name or value with a line break in it; write it on one "
                    "line (or pass multi-line text through an S3 file)",
                )
            )
    return problems


def _placeholder_problem(text: str) -> str | None:
    """Why a shorthand value's placeholders cannot be filled (an unknown name, a lone brace), or None: they mean
    what they mean in ``job:`` (:mod:`~sagemaker_fleet.fleetspec.placeholders`)."""
    try:
        names_in(text)
    except PlaceholderError as exc:
        return str(exc)
    return None
