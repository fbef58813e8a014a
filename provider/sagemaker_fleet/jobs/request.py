"""Compile a city of a fleet and a run into a complete CreateTrainingJob request (pure; no boto3)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from sagemaker_fleet.fleetspec.names import checkpoint_s3_uri, job_name, model_s3_uri
from sagemaker_fleet.jobs.keys import matching_request_fields

if TYPE_CHECKING:
    from mypy_boto3_sagemaker.type_defs import (
        CreateTrainingJobRequestTypeDef,
        StoppingConditionTypeDef,
        TagTypeDef,
    )

    from sagemaker_fleet.fleetspec.model import CitySpec, FleetSpec

CHECKPOINT_LOCAL_PATH = "/opt/ml/checkpoints"
TAG_PREFIX = "sagemaker-fleet:"
TRY_TAG = f"{TAG_PREFIX}airflow-try"
#: On a job stopped because a user acted on its Airflow task (marked it failed or success, cleared it): the value
#: is the task try. A job stopped without it was stopped outside Airflow (the console, the CLI) and is final.
STOPPED_BY_TAG = f"{TAG_PREFIX}stopped-by"
#: The tags that say whose job it is: a job of the same name without these values is another fleet's (or not a
#: fleet job at all) and is never attached to.
FLEET_TAG = f"{TAG_PREFIX}fleet"
CITY_TAG = f"{TAG_PREFIX}city"
RUN_KEY_TAG = f"{TAG_PREFIX}run-key"
OWNER_TAGS = (FLEET_TAG, CITY_TAG, RUN_KEY_TAG)
#: The submission's attempt number (1, 2, …): how the cost report attributes a job to its city and attempt.
ATTEMPT_TAG = f"{TAG_PREFIX}attempt"
#: On a submission that retrained a completed city because a retrain was forced: later tries of the run see it
#: and attach instead of forcing again.
FORCED_TAG = f"{TAG_PREFIX}forced"


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
                "ChannelName": "train",
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
    if city.hyperparameters:
        request["HyperParameters"] = dict(city.hyperparameters)
    if city.environment:
        request["Environment"] = dict(city.environment)
    return request
