"""SageMakerFleetHook: create-or-attach by deterministic name, describe, list, stop and keep-alive updates.

Its ``list_jobs`` and ``describe`` make it a :class:`~sagemaker_fleet.jobs.reader.TrainingJobReader`, what the
Fleet view and the cost report read the account through.

Sync calls go through boto3 and async calls through aiobotocore, both built by ``AwsBaseHook`` from the same
Airflow connection, so ``endpoint_url``, region and botocore config apply to both halves of a deferred task.
Throttling is absorbed by botocore's retries: by default the hook's clients use adaptive mode (client-side rate
limiting with jittered back-off) unless the connection sets its own retry policy; the triggerer's shared poller
asks for standard mode instead (jittered back-off, no client-side rate limit:
:data:`sagemaker_fleet.triggers.client.TRIGGERER_RETRIES`).
"""

from __future__ import annotations

import datetime as dt
from collections.abc import AsyncIterator, Iterator, Mapping
from typing import TYPE_CHECKING, Any, Unpack, cast

from airflow.providers.amazon.aws.hooks.base_aws import AwsBaseHook
from botocore.config import Config
from botocore.exceptions import ClientError

from sagemaker_fleet.errors import ForeignJobError, SageMakerFleetError
from sagemaker_fleet.jobs.attachment import Attachment
from sagemaker_fleet.jobs.errors import error_code, error_message, job_not_found
from sagemaker_fleet.jobs.paging import JobFilters, job_listing
from sagemaker_fleet.jobs.reader import ClientJobReader

if TYPE_CHECKING:
    from airflow.providers.amazon.aws.hooks.s3 import S3Hook
    from mypy_boto3_sagemaker import SageMakerClient
    from mypy_boto3_sagemaker.type_defs import (
        CreateTrainingJobRequestTypeDef,
        DescribeTrainingJobResponseTypeDef,
        TrainingJobSummaryTypeDef,
    )

#: The hook's default: botocore's adaptive mode, token-bucket rate limiting plus exponential back-off with jitter on
#: throttles (the triggerer's poller passes its own, standard mode: ``triggers/client.py``).
DEFAULT_RETRIES: dict[str, Any] = {"mode": "adaptive", "max_attempts": 10}


class CapacityUnavailableError(SageMakerFleetError, RuntimeError):
    """CreateTrainingJob was refused with ResourceLimitExceeded: the instance or spot quota is in use now."""


def _tag_dict(tags: Any) -> dict[str, str]:
    """``[{"Key": k, "Value": v}, ...]`` (a request's ``Tags``, a ListTags answer's) as ``{k: v}``."""
    return {str(tag["Key"]): str(tag["Value"]) for tag in tags or ()}


def _owner(request: Mapping[str, Any]) -> dict[str, str]:
    from sagemaker_fleet.fleetspec.names import OWNER_TAGS

    tags = _tag_dict(request.get("Tags"))
    return {key: tags[key] for key in OWNER_TAGS if key in tags}


def _check_owner(request: Mapping[str, Any], tags: Mapping[str, str]) -> None:
    wanted = _owner(request)
    found = {key: tags.get(key) for key in wanted}
    if found != wanted:
        name = request["TrainingJobName"]
        raise ForeignJobError(
            f"training job {name} already exists but is not this fleet's: its tags say {found}, this request "
            f"{wanted}. Another fleet's job has this name; rename one of the fleets (fleet names have no '-', so "
            "this should only happen with a job not made by sagemaker-fleet), or stop and delete that job."
        )


def _is_duplicate_name(exc: ClientError) -> bool:
    code = error_code(exc)
    message = error_message(exc).lower()
    return code == "ResourceInUse" or (code == "ValidationException" and "already exists" in message)


class SageMakerFleetHook(AwsBaseHook):
    """Interact with SageMaker training jobs of a fleet, safely at fleet scale.

    :param aws_conn_id: the Airflow AWS connection (``aws_default``); its ``endpoint_url`` may point at the
        simulated endpoint.
    """

    hook_name = "SageMaker Fleet"

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        kwargs["client_type"] = "sagemaker"
        super().__init__(*args, **kwargs)

    @property
    def config(self) -> Config:
        """The connection's botocore config, with :data:`DEFAULT_RETRIES` (adaptive) unless the connection or the
        hook's ``config`` argument sets a retry policy (the triggerer's poller passes standard mode)."""
        config: Config = super().config
        if not getattr(config, "retries", None):
            config = config.merge(Config(retries=cast("Any", DEFAULT_RETRIES)))
        return config

    @property
    def client(self) -> SageMakerClient:
        """The cached boto3 SageMaker client."""
        return cast("SageMakerClient", self.conn)

    def s3_hook(self) -> S3Hook:
        """An S3 hook on this hook's connection, with its region, certificate check and botocore config (this hook's
        retry policy included): a run's S3 calls (the account's sharing board) go where and as its SageMaker calls
        go. It reads the connection: a trigger calls it off the event loop."""
        from airflow.providers.amazon.aws.hooks.s3 import S3Hook

        return S3Hook(
            aws_conn_id=self.aws_conn_id, region_name=self.region_name, verify=self.verify, config=self.config
        )

    # ------------------------------------------------------------------------------------------------ sync

    def describe(self, job_name: str) -> DescribeTrainingJobResponseTypeDef | None:
        """DescribeTrainingJob, or None when no job of that name exists (:class:`ClientJobReader`)."""
        return ClientJobReader(self.client).describe(job_name)

    def create_or_attach(
        self,
        request: CreateTrainingJobRequestTypeDef,
        *,
        known_absent: bool = False,
        describe_created: bool = True,
    ) -> Attachment:
        """Create the job unless one of that name exists; the name is the idempotency key (no client token).

        A retried task, a crashed worker or two racing workers all end up attached to the same job.
        ``known_absent``: the caller has just described the name and found nothing, so skip that call; a job
        created meanwhile is still found through the duplicate-name answer.
        ``describe_created=False``: after a successful create, return what is known without a DescribeTrainingJob
        (name, ARN, ``InProgress``/``Starting``, the request's spot flag and resources, and a ``CreationTime``
        taken just before the call — a lower bound for ListTrainingJobs' ``CreationTimeAfter``).
        """
        name = str(request["TrainingJobName"])
        existing = None if known_absent else self.describe(name)
        if existing is not None:
            return self._attach(request, existing)
        before = dt.datetime.now(dt.UTC)
        try:
            response = self.client.create_training_job(**request)
        except ClientError as exc:
            if _is_duplicate_name(exc):
                found = self.describe(name)
                if found is not None:
                    return self._attach(request, found)
            if error_code(exc) == "ResourceLimitExceeded":
                raise CapacityUnavailableError(str(exc)) from exc
            raise
        if not describe_created:
            return Attachment.just_created(request, response.get("TrainingJobArn"), before)
        created = self.describe(name)
        if created is None:  # pragma: no cover - AWS is read-after-write consistent for describe
            raise RuntimeError(f"training job {name} was created but cannot be described")
        return Attachment(created, created=True)

    def _attach(
        self, request: CreateTrainingJobRequestTypeDef, existing: DescribeTrainingJobResponseTypeDef
    ) -> Attachment:
        """Attach to ``existing`` once its ownership tags match the request's (:class:`ForeignJobError`)."""
        if _owner(request):
            _check_owner(request, self.tags(str(existing["TrainingJobArn"])))
        return Attachment(existing, created=False)

    def tags(self, arn: str) -> dict[str, str]:
        """The tags of a training job, by its ARN (one ListTags page holds the few a fleet job has)."""
        return _tag_dict(self.client.list_tags(ResourceArn=arn, MaxResults=100).get("Tags"))

    def list_jobs(
        self,
        name_contains: str,
        **filters: Unpack[JobFilters],
    ) -> Iterator[TrainingJobSummaryTypeDef]:
        """ListTrainingJobs summaries, every page (≤ 100 per call; :class:`ClientJobReader`)."""
        return ClientJobReader(self.client).list_jobs(name_contains, **filters)

    def stop(self, job_name: str) -> None:
        try:
            self.client.stop_training_job(TrainingJobName=job_name)
        except ClientError as exc:
            if error_code(exc) != "ValidationException":  # already terminal
                raise

    def update_keep_alive(self, job_name: str, seconds: int) -> None:
        """Change the keep-alive of the job's Available warm pool; 0 terminates the pool now."""
        self.client.update_training_job(
            TrainingJobName=job_name, ResourceConfig={"KeepAlivePeriodInSeconds": int(seconds)}
        )

    # ----------------------------------------------------------------------------------------------- async

    async def adescribe(self, client: Any, job_name: str) -> DescribeTrainingJobResponseTypeDef | None:
        """DescribeTrainingJob through an aiobotocore client from :meth:`get_async_conn`."""
        try:
            response: dict[str, Any] = await client.describe_training_job(TrainingJobName=job_name)
        except ClientError as exc:
            if job_not_found(exc):
                return None
            raise
        response.pop("ResponseMetadata", None)
        return cast("DescribeTrainingJobResponseTypeDef", response)  # the stubs' shape, less ResponseMetadata

    async def alist_jobs(
        self,
        client: Any,
        name_contains: str,
        **filters: Unpack[JobFilters],
    ) -> AsyncIterator[TrainingJobSummaryTypeDef]:
        """ListTrainingJobs summaries through an aiobotocore client, every page."""
        listing = job_listing(name_contains, **filters)
        while listing.request is not None:
            for summary in listing.take(await client.list_training_jobs(**listing.request)):
                yield summary

    async def acreate_or_attach(self, client: Any, request: CreateTrainingJobRequestTypeDef) -> Attachment:
        """:meth:`create_or_attach` through an aiobotocore client: create at once (no describe first); a job of
        that name that exists already is found through the duplicate-name answer and attached to."""
        name = str(request["TrainingJobName"])
        before = dt.datetime.now(dt.UTC)
        try:
            response = await client.create_training_job(**request)
        except ClientError as exc:
            if _is_duplicate_name(exc):
                found = await self.adescribe(client, name)
                if found is not None:
                    if _owner(request):
                        _check_owner(request, await self.atags(client, str(found["TrainingJobArn"])))
                    return Attachment(found, created=False)
            if error_code(exc) == "ResourceLimitExceeded":
                raise CapacityUnavailableError(str(exc)) from exc
            raise
        return Attachment.just_created(request, response.get("TrainingJobArn"), before)

    async def atags(self, client: Any, arn: str) -> dict[str, str]:
        """The tags of a training job, by its ARN (one ListTags page holds the few a fleet job has)."""
        response = await client.list_tags(ResourceArn=arn, MaxResults=100)
        return _tag_dict(response.get("Tags"))

    async def astop(self, client: Any, job_name: str, tags: Mapping[str, str] | None = None) -> bool:
        """Stop a running job through an aiobotocore client, after tagging it with ``tags`` (who stopped it);
        False when it had ended already."""
        if tags:
            described = await self.adescribe(client, job_name)
            if described is None or described.get("TrainingJobStatus") != "InProgress":
                return False
            await client.add_tags(
                ResourceArn=described["TrainingJobArn"],
                Tags=[{"Key": k, "Value": v} for k, v in tags.items()],
            )
        try:
            await client.stop_training_job(TrainingJobName=job_name)
        except ClientError as exc:
            if error_code(exc) != "ValidationException":  # already terminal
                raise
            return False
        return True

    async def aupdate_keep_alive(self, client: Any, job_name: str, seconds: int) -> None:
        """:meth:`update_keep_alive` through an aiobotocore client."""
        await client.update_training_job(
            TrainingJobName=job_name, ResourceConfig={"KeepAlivePeriodInSeconds": int(seconds)}
        )
