"""One city's registration, in order, and a run's, a few cities at a time (the client is handed in: a boto3
``sagemaker`` client fits; its retries absorb throttling, as for every SageMaker call of the provider).

For a city whose latest job of the run completed and reported the gate's metric:

1. its group: DescribeModelPackageGroup, and CreateModelPackageGroup when missing (a group made meanwhile by
   another run is fine);
2. one ListModelPackages of the group, newest first, read until it knows the package the job has already (a
   retried task, a cleared city: the decision stands as recorded, nothing is registered twice) or the champion;
3. the champion's metric: as recorded with it (DescribeModelPackage), else its training job's final metric;
4. the gate (:func:`~sagemaker_fleet.registry.gate.judge`), and CreateModelPackage with the decision's status, the
   record and ``ClientToken`` from the job's name (a call retried after its answer was lost gives back the package
   the first one made); then UpdateModelPackage writes the reason as its ApprovalDescription, which
   CreateModelPackage does not take.

About five calls a city. A city whose calls fail (after the client's retries) is reported, the others go on: the
register task then fails, Airflow retries it, and the cities done already find their packages in step 2.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterator, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Protocol

from sagemaker_fleet.jobs.errors import error_code, error_message
from sagemaker_fleet.jobs.paging import CREATION_MARGIN, PAGE_SIZE, PagedListing
from sagemaker_fleet.jobs.record import parse_training_job
from sagemaker_fleet.registry.champion import champion_value, look, needs_job, version_name
from sagemaker_fleet.registry.decision import CityDecision, RunDecisions, run_decisions
from sagemaker_fleet.registry.gate import GateRule, judge, usable
from sagemaker_fleet.registry.packages import (
    approval_request,
    group_request,
    package_request,
    reason_of_description,
    recorded_champion,
    recorded_decision,
    recorded_metric,
    recorded_value,
)

if TYPE_CHECKING:
    from sagemaker_fleet.fleetspec.register_model import RegisterSpec
    from sagemaker_fleet.jobs.record import TrainingJobRecord
    from sagemaker_fleet.registry.decision import Decision

#: Cities registered at once: each city is a few calls one after the other, so a few threads keep the registry
#: busy without a burst SageMaker throttles (the client's retries absorb what is throttled anyway).
DEFAULT_REGISTER_WORKERS = 4


class RegistryClient(Protocol):
    """The SageMaker calls the registration makes; a boto3 ``sagemaker`` client fits."""

    def describe_model_package_group(self, **kwargs: Any) -> Any: ...

    def create_model_package_group(self, **kwargs: Any) -> Any: ...

    def list_model_packages(self, **kwargs: Any) -> Any: ...

    def describe_model_package(self, **kwargs: Any) -> Any: ...

    def create_model_package(self, **kwargs: Any) -> Any: ...

    def update_model_package(self, **kwargs: Any) -> Any: ...

    def describe_training_job(self, **kwargs: Any) -> Any: ...


@dataclass(frozen=True)
class CityModel:
    """A city to register: its ``register:`` spec and the DescribeTrainingJob of its latest job of the run (None:
    it has none)."""

    city: str
    spec: RegisterSpec
    job: Mapping[str, Any] | None


@dataclass(frozen=True)
class Registration:
    """A run's registration: every city's decision, and the cities whose calls failed (city → the error)."""

    decisions: RunDecisions
    failed: Mapping[str, str] = field(default_factory=dict)


def register_city(client: RegistryClient, fleet: str, run_key: str, model: CityModel) -> CityDecision:
    """The city's decision, its package registered (or found) on the way."""
    record = parse_training_job(model.job) if model.job is not None else None
    spec = model.spec
    if record is None or record.status != "Completed":
        return _not_trained(model.city, record)
    value = dict(record.final_metrics).get(spec.metric)
    if value is None or not usable(value):
        return _no_metric(model.city, record, spec.metric, value)
    group = spec.group_name(fleet, model.city)
    _ensure_group(client, group_request(spec, fleet, model.city))
    since = record.training_end_time or record.creation_time
    found = look(newest_first(client, group), record.name, since - CREATION_MARGIN if since else None)
    if found.own is not None:
        return _found(client, model.city, group, record.name, found.own)
    champion: Mapping[str, Any] | None = None
    known: float | None = None
    if found.champion is not None:
        champion = describe_package(client, str(found.champion["ModelPackageArn"]))
        known = champion_value(champion, spec.metric, training_job_of(client, champion, spec.metric))
    rule = GateRule.of(spec)
    judgement = judge(
        rule,
        value,
        known,
        has_champion=champion is not None,
        champion_name=version_name(champion) if champion is not None else "",
    )
    decision, status, tail = verdict(judgement.outcome, spec)
    made = CityDecision(
        city=model.city,
        decision=decision,
        reason=f"{judgement.reason}: {tail}",
        job_name=record.name,
        metric=spec.metric,
        challenger=value,
        champion=known,
        champion_arn=str(champion["ModelPackageArn"]) if champion is not None else None,
        group=group,
        status=status,
    )
    if status is None:
        return made
    model_uri = (model.job or {}).get("ModelArtifacts", {}).get("S3ModelArtifacts")
    if not model_uri:
        raise ValueError(f"training job {record.name} completed without ModelArtifacts.S3ModelArtifacts")
    answer = client.create_model_package(**package_request(spec, fleet, run_key, made, str(model_uri)))
    arn = str(answer["ModelPackageArn"])
    client.update_model_package(**approval_request(arn, status, made.reason))
    return _with(made, package_arn=arn)


def register_run(
    client: RegistryClient,
    fleet: str,
    run_key: str,
    models: Sequence[CityModel],
    workers: int = DEFAULT_REGISTER_WORKERS,
) -> Registration:
    """Every city's registration, ``workers`` at a time; a city whose calls fail is in ``failed``, not lost among
    the others."""

    def one(model: CityModel) -> CityDecision | str:
        try:
            return register_city(client, fleet, run_key, model)
        except (
            Exception
        ) as exc:  # the task reports every city that failed, then fails itself (and is retried)
            code = error_code(exc)
            return f"{code}: {error_message(exc)}" if code else f"{type(exc).__name__}: {exc}"

    with ThreadPoolExecutor(max_workers=max(1, workers)) as pool:
        answers = list(pool.map(one, models))
    decisions = [a for a in answers if isinstance(a, CityDecision)]
    failed = {m.city: a for m, a in zip(models, answers, strict=True) if isinstance(a, str)}
    return Registration(run_decisions(decisions), failed)


# -- the calls --------------------------------------------------------------------------------------------------


def _ensure_group(client: RegistryClient, request: Mapping[str, Any]) -> None:
    name = request["ModelPackageGroupName"]
    try:
        client.describe_model_package_group(ModelPackageGroupName=name)
        return
    except Exception as exc:
        if not is_missing(exc):
            raise
    try:
        client.create_model_package_group(**request)
    except Exception as exc:
        if "already exists" not in error_message(exc).lower():  # made meanwhile by another run
            raise


def newest_first(client: RegistryClient, group: str) -> Iterator[Mapping[str, Any]]:
    """The group's packages, newest first, page by page as they are read."""
    listing = PagedListing(
        f"ListModelPackages({group!r})",
        {
            "ModelPackageGroupName": group,
            "SortBy": "CreationTime",
            "SortOrder": "Descending",
            "MaxResults": PAGE_SIZE,
        },
        "ModelPackageSummaryList",
    )
    while listing.request is not None:
        yield from listing.take(client.list_model_packages(**listing.request))


def describe_package(client: RegistryClient, arn: str) -> dict[str, Any]:
    described = dict(client.describe_model_package(ModelPackageName=arn))
    described.pop("ResponseMetadata", None)
    return described


def training_job_of(
    client: RegistryClient, champion: Mapping[str, Any], metric: str
) -> Mapping[str, Any] | None:
    """The champion's training job, when its metric must be read there (None: recorded, unknown or gone)."""
    name = needs_job(champion, metric)
    if name is None:
        return None
    try:
        return dict(client.describe_training_job(TrainingJobName=name))
    except Exception as exc:
        if is_missing(exc):
            return None
        raise


def is_missing(exc: BaseException) -> bool:
    """SageMaker's answer for a resource that does not exist: ValidationException ("… does not exist", "not
    found") for most Describe calls, ResourceNotFound for some."""
    code, message = error_code(exc), error_message(exc).lower()
    return code in ("ResourceNotFound", "ResourceNotFoundException") or (
        code == "ValidationException" and ("does not exist" in message or "not found" in message)
    )


# -- decisions ---------------------------------------------------------------------------------------------------


def verdict(outcome: str, spec: RegisterSpec) -> tuple[Decision, str | None, str]:
    """What the gate's outcome makes of a model under ``spec``: the decision, the package's approval status
    (None: none is registered) and the end of the reason."""
    if outcome == "pass":
        if spec.approve == "Approved":
            return "approved", "Approved", "approved"
        return "pending", "PendingManualApproval", "passed; waits for a person's approval"
    if outcome == "person":
        return "pending", "PendingManualApproval", "waits for a person's decision"
    if spec.losers == "reject":
        return "rejected", "Rejected", "rejected"
    return "rejected", None, "rejected, not registered (losers: skip)"


def _found(
    client: RegistryClient, city: str, group: str, job_name: str, own: Mapping[str, Any]
) -> CityDecision:
    """The decision as the job's package records it: nothing is registered twice, and nothing decided again."""
    package = describe_package(client, str(own["ModelPackageArn"]))
    metric = recorded_metric(package)
    champion_arn, champion = recorded_champion(package)
    status = str(package.get("ModelApprovalStatus") or "") or None
    reason = reason_of_description(package.get("ModelPackageDescription"))
    if reason and status and not package.get("ApprovalDescription"):
        # the try that made it stopped before writing the reason: write it now, keeping the status as it is
        client.update_model_package(**approval_request(str(package["ModelPackageArn"]), status, reason))
    return CityDecision(
        city=city,
        decision=recorded_decision(package, status),
        reason=str(
            package.get("ApprovalDescription") or reason or "registered by an earlier try of this run"
        ),
        job_name=job_name,
        metric=metric,
        challenger=recorded_value(package, metric) if metric else None,
        champion=champion,
        champion_arn=champion_arn,
        group=group,
        package_arn=str(package["ModelPackageArn"]),
        status=status,
        found=True,
    )


def _not_trained(city: str, record: TrainingJobRecord | None) -> CityDecision:
    if record is None:
        reason = "no training job in this run: nothing to register"
    else:
        why = f": {record.failure_reason}" if record.failure_reason else ""
        reason = f"its latest job {record.name} is {record.status}{why}; nothing to register"
    return CityDecision(city, "not_trained", reason, job_name=record.name if record else None)


def _no_metric(city: str, record: TrainingJobRecord, metric: str, value: float | None) -> CityDecision:
    reported = ", ".join(name for name, _ in record.final_metrics) or "no final metric"
    what = (
        f"reported {metric} = {value}"
        if value is not None
        else f"reported no {metric} (it reported {reported})"
    )
    return CityDecision(
        city,
        "no_metric",
        f"job {record.name} {what}: the gate cannot compare it, nothing registered",
        job_name=record.name,
        metric=metric,
    )


def _with(decision: CityDecision, **changes: Any) -> CityDecision:
    return dataclasses.replace(decision, **changes)
