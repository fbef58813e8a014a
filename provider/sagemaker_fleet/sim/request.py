"""Validate a CreateTrainingJob request the way SageMaker does and reduce it to the values the model needs.

The HTTP layer has already checked the request against the botocore shapes; these are the rules that live in
SageMaker itself (spot and MaxWait, keep-alive with spot, limits), plus the shape rules the engine relies on, so
that a driver calling the engine directly gets the same errors as a client of the endpoint.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from sagemaker_fleet.fleetspec.model import KEEP_ALIVE_API_MAX, MAX_RUNTIME_AWS_DEFAULT, MAX_RUNTIME_LIMIT
from sagemaker_fleet.fleetspec.names import JOB_NAME_MAX
from sagemaker_fleet.jobs.keys import KeyedByPool, WarmPoolKey, warm_pool_key
from sagemaker_fleet.sim.errors import constraint_violations, validation_error, violation
from sagemaker_fleet.sim.startup_model import startup_mode

#: botocore's pattern for TrainingJobName (matched in full).
NAME_PATTERN = "[a-zA-Z0-9](-*[a-zA-Z0-9]){0,62}"
_NAME_RE = re.compile(NAME_PATTERN)
_S3_RE = re.compile(r"(https|s3)://([^/]+)/?(.*)")


@dataclass(frozen=True)
class TrainingRequest(KeyedByPool):
    """What the simulation reads from a valid request; the request itself is kept to echo it back."""

    name: str
    key: WarmPoolKey
    input_mode: str
    spot: bool
    keep_alive: int
    max_runtime: int
    max_wait: int | None
    checkpoint_uri: str | None
    output_path: str
    tags: Mapping[str, str]
    #: AlgorithmSpecification.TrainingImage ("" for an algorithm resource): not a matching criterion, but a warm
    #: start whose image differs from the pool's previous job's pulls it again.
    image: str = ""


def check_job_name(name: object, path: str = "trainingJobName") -> str:
    """A job name as SageMaker accepts it, else ValidationException in AWS's words."""
    if not isinstance(name, str) or not name:
        raise constraint_violations(
            [violation(None if name is None else name, path, "Member must not be null")]
        )
    problems = []
    if len(name) > JOB_NAME_MAX:
        problems.append(
            violation(name, path, f"Member must have length less than or equal to {JOB_NAME_MAX}")
        )
    if not _NAME_RE.fullmatch(name):
        problems.append(
            violation(name, path, f"Member must satisfy regular expression pattern: {NAME_PATTERN}")
        )
    if problems:
        raise constraint_violations(problems)
    return name


def parse_training_request(request: Mapping[str, Any]) -> TrainingRequest:
    """Validate ``request``; raises :class:`SimApiError` (ValidationException) naming the first rule broken."""
    if not isinstance(request, Mapping):
        raise validation_error("The request body must be a JSON object.")
    name = check_job_name(request.get("TrainingJobName"))
    _check_shape_basics(request)
    _check_channels(request.get("InputDataConfig"))
    resources = request["ResourceConfig"]
    stopping = _mapping(request.get("StoppingCondition"), "stoppingCondition")
    spot = request.get("EnableManagedSpotTraining") is True
    keep_alive = _int(resources.get("KeepAlivePeriodInSeconds", 0), "resourceConfig.keepAlivePeriodInSeconds")
    max_runtime = _int(
        stopping.get("MaxRuntimeInSeconds", MAX_RUNTIME_AWS_DEFAULT), "stoppingCondition.maxRuntimeInSeconds"
    )
    raw_wait = stopping.get("MaxWaitTimeInSeconds")
    max_wait = None if raw_wait is None else _int(raw_wait, "stoppingCondition.maxWaitTimeInSeconds")
    _check_limits(keep_alive, max_runtime, max_wait)
    _check_spot_rules(spot, keep_alive, max_runtime, max_wait)
    checkpoint = _checkpoint_uri(request.get("CheckpointConfig"))
    try:
        key = warm_pool_key(request)
    except (KeyError, TypeError, ValueError) as exc:
        raise validation_error(f"Invalid ResourceConfig or VpcConfig: {exc}") from exc
    return TrainingRequest(
        name=name,
        key=key,
        input_mode=startup_mode(request),
        spot=spot,
        keep_alive=keep_alive,
        max_runtime=max_runtime,
        max_wait=max_wait,
        checkpoint_uri=checkpoint,
        output_path=str(request["OutputDataConfig"]["S3OutputPath"]),
        tags=_tags(request.get("Tags")),
        image=_training_image(request.get("AlgorithmSpecification")),
    )


def _check_shape_basics(request: Mapping[str, Any]) -> None:
    problems: list[str] = []
    role = request.get("RoleArn")
    if not isinstance(role, str) or not role:
        problems.append(violation(None, "roleArn", "Member must not be null"))
    output = request.get("OutputDataConfig")
    if not isinstance(output, Mapping) or not isinstance(output.get("S3OutputPath"), str):
        problems.append(violation(None, "outputDataConfig.s3OutputPath", "Member must not be null"))
    resources = request.get("ResourceConfig")
    if not isinstance(resources, Mapping):
        problems.append(violation(None, "resourceConfig", "Member must not be null"))
    elif resources.get("InstanceGroups"):
        raise validation_error("Heterogeneous clusters (InstanceGroups) are not supported by the simulator.")
    else:
        if not isinstance(resources.get("InstanceType"), str):
            problems.append(violation(None, "resourceConfig.instanceType", "Member must not be null"))
        count = resources.get("InstanceCount", 1)
        if not isinstance(count, int) or isinstance(count, bool) or count < 1:
            problems.append(
                violation(
                    count, "resourceConfig.instanceCount", "Member must have value greater than or equal to 1"
                )
            )
    if problems:
        raise constraint_violations(problems)


def _check_channels(channels: object) -> None:
    """A channel name appears once (the wording is ours: AWS's own text for it is not published)."""
    seen: set[str] = set()
    for channel in channels if isinstance(channels, list) else ():
        name = channel.get("ChannelName") if isinstance(channel, Mapping) else None
        if isinstance(name, str) and name in seen:
            raise validation_error(
                f"Channel names must be unique within InputDataConfig; channel '{name}' appears more than once."
            )
        if isinstance(name, str):
            seen.add(name)


def _check_limits(keep_alive: int, max_runtime: int, max_wait: int | None) -> None:
    problems: list[str] = []
    path = "resourceConfig.keepAlivePeriodInSeconds"
    if keep_alive < 0:
        problems.append(violation(keep_alive, path, "Member must have value greater than or equal to 0"))
    if keep_alive > KEEP_ALIVE_API_MAX:
        problems.append(
            violation(keep_alive, path, f"Member must have value less than or equal to {KEEP_ALIVE_API_MAX}")
        )
    for value, where in ((max_runtime, "maxRuntimeInSeconds"), (max_wait, "maxWaitTimeInSeconds")):
        if value is not None and value < 1:
            problems.append(
                violation(
                    value, f"stoppingCondition.{where}", "Member must have value greater than or equal to 1"
                )
            )
    if problems:
        raise constraint_violations(problems)
    if max_runtime > MAX_RUNTIME_LIMIT:
        raise validation_error(
            f"Invalid MaxRuntimeInSeconds: {max_runtime}. It must be less than or equal to {MAX_RUNTIME_LIMIT}."
        )


def _check_spot_rules(spot: bool, keep_alive: int, max_runtime: int, max_wait: int | None) -> None:
    if not spot and max_wait is not None:
        raise validation_error(
            "Invalid MaxWaitTimeInSeconds. It is only supported when EnableManagedSpotTraining is set to true"
        )
    if spot and (max_wait is None or max_wait < max_runtime):
        raise validation_error(
            "Invalid MaxWaitTimeInSeconds. It must be present and be greater than or equal to MaxRuntimeInSeconds"
        )
    if spot and keep_alive > 0:
        # AWS's exact wording is not published; the rule is in docs/sagemaker-behaviour.md, warm pools.
        raise validation_error(
            "Invalid KeepAlivePeriodInSeconds. Warm pools are not supported with managed spot training; "
            "remove KeepAlivePeriodInSeconds or set EnableManagedSpotTraining to false"
        )


def _checkpoint_uri(config: object) -> str | None:
    if config is None:
        return None
    checkpoint = _mapping(config, "checkpointConfig")
    uri = checkpoint.get("S3Uri")
    if not isinstance(uri, str) or not _S3_RE.fullmatch(uri):
        raise constraint_violations(
            [
                violation(
                    uri,
                    "checkpointConfig.s3Uri",
                    "Member must satisfy regular expression pattern: " + _S3_RE.pattern,
                )
            ]
        )
    return uri if uri.endswith("/") else uri + "/"


def _tags(tags: object) -> Mapping[str, str]:
    result: dict[str, str] = {}
    for tag in tags if isinstance(tags, list) else []:
        if isinstance(tag, Mapping) and isinstance(tag.get("Key"), str):
            result[tag["Key"]] = str(tag.get("Value", ""))
    return result


def _training_image(algorithm: object) -> str:
    image = algorithm.get("TrainingImage") if isinstance(algorithm, Mapping) else None
    return image if isinstance(image, str) else ""


def _mapping(value: object, path: str) -> Mapping[str, Any]:
    if value is None:
        return {}
    if not isinstance(value, Mapping):
        raise constraint_violations([violation(value, path, "Member must be a structure")])
    return value


def _int(value: object, path: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise constraint_violations([violation(value, path, "Member must be an integer")])
    return value
