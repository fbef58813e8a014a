"""What a package of the fleet records, and the requests that make a group and a package (pure).

Each package carries, in ``CustomerMetadataProperties``, its training job, the metric and its value, the decision
and the champion it was held to: the record a later run reads the champion's metric from. Its
``ModelPackageDescription`` names the training job and says the gate's reason, because ListModelPackages gives
descriptions but not metadata (a retried task finds the package its job already has from one listing) and
CreateModelPackage takes no ApprovalDescription: the reason is set there by an UpdateModelPackage right after,
and set again from the description by a retry that finds it missing.

``ClientToken`` is the training job's name when it fits (CreateModelPackage takes 36 characters), else its first
23 characters and a hash of the whole: the same job always sends the same token.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from sagemaker_fleet.fleetspec.names import CITY_TAG, FLEET_TAG, RUN_KEY_TAG, TAG_PREFIX

if TYPE_CHECKING:
    from sagemaker_fleet.fleetspec.register_model import RegisterSpec
    from sagemaker_fleet.registry.decision import CityDecision, Decision

#: CreateModelPackage's ClientToken: at most this many characters of ``[a-zA-Z0-9-]``.
CLIENT_TOKEN_MAX = 36
#: ModelPackageDescription and ApprovalDescription take at most this many characters.
TEXT_MAX = 1024
#: The package's CustomerMetadataProperties the provider writes.
JOB_KEY = f"{TAG_PREFIX}training-job"
METRIC_KEY = f"{TAG_PREFIX}metric"
VALUE_KEY = f"{TAG_PREFIX}value"
DECISION_KEY = f"{TAG_PREFIX}decision"
CHAMPION_KEY = f"{TAG_PREFIX}champion"
CHAMPION_VALUE_KEY = f"{TAG_PREFIX}champion-value"
#: The description's words before the training job's name, and before the gate's reason.
_TRAINED_BY = "Trained by training job "
_GATE = ". Gate: "
_TRAINED_BY_RE = re.compile(re.escape(_TRAINED_BY) + r"([a-zA-Z0-9](?:-*[a-zA-Z0-9]){0,62})")
#: A model artifact of SageMaker's layout: ``…/{training job}/output/model.tar.gz``.
_ARTIFACT_RE = re.compile(r"/([a-zA-Z0-9](?:-*[a-zA-Z0-9]){0,62})/output/model\.tar\.gz$")


def client_token(job_name: str) -> str:
    """The ClientToken of the package of ``job_name``'s model."""
    if len(job_name) <= CLIENT_TOKEN_MAX:
        return job_name
    digest = hashlib.sha256(job_name.encode()).hexdigest()[:12]
    return f"{job_name[: CLIENT_TOKEN_MAX - 13]}-{digest}"


def description(job_name: str, reason: str) -> str:
    """The package's description: its training job and the gate's reason (sagemaker-fleet's words)."""
    return f"{_TRAINED_BY}{job_name}{_GATE}{reason}"[:TEXT_MAX]


def reason_of_description(text: object) -> str | None:
    """The gate's reason a package's description gives (None: not one of the fleet's packages)."""
    if not isinstance(text, str) or _GATE not in text or job_of_description(text) is None:
        return None
    return text.split(_GATE, 1)[1]


def job_of_description(text: object) -> str | None:
    """The training job a package's description names (None: not a package of the fleet's)."""
    match = _TRAINED_BY_RE.search(text) if isinstance(text, str) else None
    return match.group(1) if match else None


def group_request(spec: RegisterSpec, fleet: str, city: str) -> dict[str, Any]:
    """CreateModelPackageGroup of the city's group, with the spec's tags and the provider's."""
    tags = {**dict(spec.tags), FLEET_TAG: fleet, CITY_TAG: city}
    return {
        "ModelPackageGroupName": spec.group_name(fleet, city),
        "ModelPackageGroupDescription": f"Models of city {city} of fleet {fleet}, registered by sagemaker-fleet",
        "Tags": [{"Key": key, "Value": value} for key, value in tags.items()],
    }


def package_request(
    spec: RegisterSpec, fleet: str, run_key: str, decision: CityDecision, model_uri: str
) -> dict[str, Any]:
    """CreateModelPackage of a city's model: its group, the inference specification with the job's artifact in each
    container, the decision's approval status and reason, and the record of what was compared."""
    assert decision.job_name is not None
    assert decision.metric is not None
    assert decision.challenger is not None
    assert decision.status is not None
    inference = spec.inference_for(fleet, decision.city, run_key)
    inference["Containers"] = [
        {**container, "ModelDataUrl": model_uri} for container in inference["Containers"]
    ]
    metadata = {
        JOB_KEY: decision.job_name,
        METRIC_KEY: decision.metric,
        VALUE_KEY: repr(decision.challenger),
        DECISION_KEY: decision.decision,
    }
    if decision.champion_arn is not None:
        metadata[CHAMPION_KEY] = decision.champion_arn
    if decision.champion is not None:
        metadata[CHAMPION_VALUE_KEY] = repr(decision.champion)
    return {
        "ModelPackageGroupName": spec.group_name(fleet, decision.city),
        "ModelPackageDescription": description(decision.job_name, decision.reason),
        "InferenceSpecification": inference,
        "ModelApprovalStatus": decision.status,
        "CustomerMetadataProperties": metadata,
        "ClientToken": client_token(decision.job_name),
        "Tags": [
            {"Key": FLEET_TAG, "Value": fleet},
            {"Key": CITY_TAG, "Value": decision.city},
            {"Key": RUN_KEY_TAG, "Value": run_key},
        ],
    }


def approval_request(package_arn: str, status: str, reason: str) -> dict[str, Any]:
    """UpdateModelPackage that writes the gate's reason as the package's ApprovalDescription (its status as made)."""
    return {
        "ModelPackageArn": package_arn,
        "ModelApprovalStatus": status,
        "ApprovalDescription": reason[:TEXT_MAX],
    }


def recorded_value(package: Mapping[str, Any], metric: str) -> float | None:
    """The package's value of ``metric`` as the provider recorded it (None: not recorded, or another metric)."""
    metadata = package.get("CustomerMetadataProperties") or {}
    if metadata.get(METRIC_KEY) != metric:
        return None
    try:
        return float(metadata[VALUE_KEY])
    except (KeyError, TypeError, ValueError):
        return None


def source_job(package: Mapping[str, Any]) -> str | None:
    """The training job a package's model came from: as recorded, else read from its first container's model
    artifact (SageMaker's ``…/{job}/output/model.tar.gz``), else None."""
    metadata = package.get("CustomerMetadataProperties") or {}
    if isinstance(metadata.get(JOB_KEY), str):
        return str(metadata[JOB_KEY])
    containers = (package.get("InferenceSpecification") or {}).get("Containers") or []
    url = containers[0].get("ModelDataUrl") if containers and isinstance(containers[0], Mapping) else None
    match = _ARTIFACT_RE.search(url) if isinstance(url, str) else None
    return match.group(1) if match else None


def recorded_metric(package: Mapping[str, Any]) -> str | None:
    value = (package.get("CustomerMetadataProperties") or {}).get(METRIC_KEY)
    return str(value) if value else None


def recorded_decision(package: Mapping[str, Any], status: str | None) -> Decision:
    """The gate's decision as the package records it; for a package without the record, read from ``status``."""
    value = (package.get("CustomerMetadataProperties") or {}).get(DECISION_KEY)
    for decision in ("approved", "pending", "rejected"):
        if value == decision:
            return decision
    return "approved" if status == "Approved" else "rejected" if status == "Rejected" else "pending"


def recorded_champion(package: Mapping[str, Any]) -> tuple[str | None, float | None]:
    """The champion a package was held to, as recorded: its ARN and value."""
    metadata = package.get("CustomerMetadataProperties") or {}
    try:
        value = float(metadata[CHAMPION_VALUE_KEY]) if CHAMPION_VALUE_KEY in metadata else None
    except (TypeError, ValueError):
        value = None
    arn = metadata.get(CHAMPION_KEY)
    return (str(arn) if arn else None), value
