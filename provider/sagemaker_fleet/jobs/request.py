"""Compile a city of a fleet and a run into a complete CreateTrainingJob request (pure; no boto3).

The provider builds what its shorthands and its own fields say; a city's ``job:`` template, rendered for the run,
is then merged on top by the spec's one merge rule (:func:`~sagemaker_fleet.fleetspec.job_merge.merge_job`). A
spec without ``job:`` compiles to exactly what it did before templates existed (tests/unit/jobs/test_request_pinned.py).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, cast

from sagemaker_fleet.fleetspec.job_fields import CHECKPOINT_LOCAL_PATH, TRAIN_CHANNEL
from sagemaker_fleet.fleetspec.job_merge import merge_job
from sagemaker_fleet.fleetspec.names import (
    ATTEMPT_TAG,
    FORCED_TAG,
    OWNER_TAGS,
    TRY_TAG,
    checkpoint_s3_uri,
    job_name,
    model_s3_uri,
)
from sagemaker_fleet.fleetspec.placeholders import render, values_for
from sagemaker_fleet.jobs.keys import matching_request_fields

if TYPE_CHECKING:
    from mypy_boto3_sagemaker.type_defs import (
        CreateTrainingJobRequestTypeDef,
        StoppingConditionTypeDef,
        TagTypeDef,
    )

    from sagemaker_fleet.fleetspec.model import CitySpec, FleetSpec


@dataclass(frozen=True)
class Submission:
    """One submission of a city in a run: the n-th attempt, on spot or on demand, with its keep-alive."""

    city: str
    run_key: str
    attempt: int = 1
    spot: bool | None = None  # None: as the spec says; False: on-demand fallback
    keep_alive_seconds: int = 0
    #: The Airflow task try that submits it (``{run_id}/{try_number}``, :func:`sagemaker_fleet.contract.task_try_id`), tagged so that a restarted trigger can
    #: tell its own submissions from an earlier try's.
    airflow_try: str | None = None
    #: A forced retrain of a completed city (tagged :data:`FORCED_TAG`).
    forced: bool = False


def compile_training_request(
    fleet: FleetSpec, city: CitySpec, submission: Submission
) -> CreateTrainingJobRequestTypeDef:
    """The CreateTrainingJob request for ``submission``.

    Spot jobs set MaxWaitTimeInSeconds and never a keep-alive (warm pools do not work with spot). Every job
    checkpoints to the city's per-run prefix, so a re-submission, spot or on-demand, resumes where the last stopped.
    """
    use_spot = city.spot is not None if submission.spot is None else submission.spot and city.spot is not None
    matching = matching_request_fields(city)
    resources = matching["ResourceConfig"]
    stopping: StoppingConditionTypeDef = {"MaxRuntimeInSeconds": city.max_runtime_seconds}
    tags: list[TagTypeDef] = [
        {"Key": key, "Value": value}
        for key, value in zip(OWNER_TAGS, (fleet.fleet, city.name, submission.run_key), strict=True)
    ]
    tags.append({"Key": ATTEMPT_TAG, "Value": str(submission.attempt)})
    request: CreateTrainingJobRequestTypeDef = {
        "TrainingJobName": job_name(fleet.fleet, city.name, submission.run_key, submission.attempt),
        "AlgorithmSpecification": {"TrainingImage": city.image_uri, "TrainingInputMode": fleet.input_mode},
        "InputDataConfig": [
            {
                "ChannelName": TRAIN_CHANNEL,
                "DataSource": {
                    "S3DataSource": {
                        "S3DataType": "S3Prefix",
                        "S3Uri": city.train_s3_uri,
                        "S3DataDistributionType": "FullyReplicated",
                    }
                },
            }
        ],
        "OutputDataConfig": {
            "S3OutputPath": model_s3_uri(fleet.output_s3_uri, city.name, submission.run_key)
        },
        "StoppingCondition": stopping,
        "CheckpointConfig": {
            "S3Uri": checkpoint_s3_uri(fleet.output_s3_uri, city.name, submission.run_key),
            "LocalPath": CHECKPOINT_LOCAL_PATH,
        },
        "Tags": tags,
        # the members the warm-pool matching key reads (:func:`matching_request_fields`), in its order
        "RoleArn": matching["RoleArn"],
        "ResourceConfig": resources,
        "EnableNetworkIsolation": matching["EnableNetworkIsolation"],
        "EnableInterContainerTrafficEncryption": matching["EnableInterContainerTrafficEncryption"],
    }
    if "VpcConfig" in matching:
        request["VpcConfig"] = matching["VpcConfig"]
    if submission.airflow_try:
        tags.append({"Key": TRY_TAG, "Value": submission.airflow_try[:256]})
    if submission.forced:
        tags.append({"Key": FORCED_TAG, "Value": "true"})
    if use_spot:
        assert city.spot is not None
        request["EnableManagedSpotTraining"] = True
        stopping["MaxWaitTimeInSeconds"] = city.spot.max_wait_seconds
    elif submission.keep_alive_seconds > 0:
        resources["KeepAlivePeriodInSeconds"] = submission.keep_alive_seconds
    # the shorthand's values take the same placeholders as a job: template's strings
    values = values_for(fleet.fleet, city.name, submission.run_key)
    if city.hyperparameters:
        request["HyperParameters"] = {key: render(value, values) for key, value in city.hyperparameters}
    if city.environment:
        request["Environment"] = {key: render(value, values) for key, value in city.environment}
    if "SessionChainingConfig" in matching:
        request["SessionChainingConfig"] = matching["SessionChainingConfig"]
    return _with_job(request, fleet, city, submission.run_key)


def _with_job(
    request: CreateTrainingJobRequestTypeDef, fleet: FleetSpec, city: CitySpec, run_key: str
) -> CreateTrainingJobRequestTypeDef:
    """The request with the city's ``job:`` template, rendered for the run, merged on top; without a ``train``
    channel when the city has no ``train_s3_uri`` (its template's channels are the job's data)."""
    if not city.train_s3_uri:
        del request["InputDataConfig"]
    if city.job is None:
        return request
    template = city.job.render(fleet.fleet, city.name, run_key)
    return cast("CreateTrainingJobRequestTypeDef", merge_job(request, template))
