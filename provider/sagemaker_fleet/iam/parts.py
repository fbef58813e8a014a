"""The fleet's policies, one per principal (pure): what Airflow's principal needs, what the Fleet view needs, what
a person at the command line needs. Each part is a tuple of sections, one concern each (``Section``); a new
concern — the Model Registry calls of a ``register:`` section, say — is one more section function added to the
parts that make those calls.

The shipped code's calls and where they are made: docs/guides/aws.md ("What the code calls").
"""

from __future__ import annotations

import os.path
from collections import defaultdict
from collections.abc import Callable

from sagemaker_fleet.fleetspec.ecr import ecr_image
from sagemaker_fleet.fleetspec.model import FleetSpec
from sagemaker_fleet.iam.context import KEEP_ALIVE
from sagemaker_fleet.iam.launch import launch_statements
from sagemaker_fleet.iam.scope import PolicyScope, S3Prefix
from sagemaker_fleet.iam.statement import PolicyPart, Statement
from sagemaker_fleet.registry.permissions import TRAINING_JOB_ARN, registry_permissions

#: One concern's statements for a spec (empty when the spec does not have that concern).
Section = Callable[[FleetSpec, PolicyScope], list[Statement]]

#: The service that may be handed the execution roles (and that their trust policies must name: preflight checks).
SAGEMAKER_SERVICE = "sagemaker.amazonaws.com"


def _in_region(scope: PolicyScope) -> dict[str, dict[str, str | list[str]]]:
    return {"StringEquals": {"aws:RequestedRegion": scope.region}}


# ------------------------------------------------------------------------------------------------ the jobs


def jobs_section(spec: FleetSpec, scope: PolicyScope) -> list[Statement]:
    """The fleet's own jobs: read (describe, tags), tag (at create, and when a user stops a task), stop; and end
    an idle pool — keep-alive 0, never longer."""
    own = (scope.jobs_arn(),)
    return [
        Statement(
            "ReadTagAndStopTheFleetsJobsOnly",
            (
                "sagemaker:DescribeTrainingJob",
                "sagemaker:ListTags",
                "sagemaker:AddTags",
                "sagemaker:StopTrainingJob",
            ),
            own,
        ),
        Statement(
            "EndTheFleetsIdlePoolsNeverExtendThem",
            ("sagemaker:UpdateTrainingJob",),
            own,
            {"NumericEquals": {KEEP_ALIVE: "0"}},
        ),
    ]


def listing_section(spec: FleetSpec, scope: PolicyScope) -> list[Statement]:
    """ListTrainingJobs: AWS gives it no resource type, so ``*``, kept to the fleet's region."""
    return [
        Statement(
            "ListTrainingJobsHasNoResourceLevelPermissions",
            ("sagemaker:ListTrainingJobs",),
            ("*",),
            _in_region(scope),
        )
    ]


def own_describe_section(spec: FleetSpec, scope: PolicyScope) -> list[Statement]:
    """DescribeTrainingJob of the fleet's own jobs (the view and the command line, which tag and stop nothing)."""
    return [Statement("DescribeTheFleetsJobsOnly", ("sagemaker:DescribeTrainingJob",), (scope.jobs_arn(),))]


def other_fleets_section(spec: FleetSpec, scope: PolicyScope) -> list[Statement]:
    """DescribeTrainingJob of the other fleets named with ``--describe-fleet`` (none by default): their jobs'
    instance types and counts then count against the quotas, and their idle pools are warm starts."""
    if not scope.describe_fleets:
        return []
    return [
        Statement(
            "DescribeTheseOtherFleetsJobs",
            ("sagemaker:DescribeTrainingJob",),
            tuple(scope.jobs_arn(fleet) for fleet in scope.describe_fleets),
        )
    ]


def pass_role_section(spec: FleetSpec, scope: PolicyScope) -> list[Statement]:
    """Hand the spec's execution roles to SageMaker, and to nothing else."""
    return [
        Statement(
            "PassTheFleetsExecutionRolesToSageMakerOnly",
            ("iam:PassRole",),
            scope.roles,
            {"StringEquals": {"iam:PassedToService": SAGEMAKER_SERVICE}},
        )
    ]


def quotas_section(spec: FleetSpec, scope: PolicyScope) -> list[Statement]:
    """The account's training quotas: ListServiceQuotas has no resource type and no condition key of its own, so
    ``*``, kept to the fleet's region (it reads quota names and values only)."""
    return [
        Statement(
            "ListServiceQuotasHasNoResourceLevelPermissions",
            ("servicequotas:ListServiceQuotas",),
            ("*",),
            _in_region(scope),
        )
    ]


# ------------------------------------------------------------------------------------------------ S3


def _list_prefix(sid: str, scope: PolicyScope, where: S3Prefix) -> Statement:
    return Statement(
        sid,
        ("s3:ListBucket",),
        (scope.bucket_arn(where.bucket),),
        {"StringLike": {"s3:prefix": f"{where.prefix}*"}},
    )


def reports_section(spec: FleetSpec, scope: PolicyScope) -> list[Statement]:
    """The fleet's cost reports: listed and read by the plan (duration history), written by the cost report."""
    return [
        _list_prefix("ListTheFleetsReports", scope, scope.reports),
        Statement(
            "ReadAndWriteTheFleetsReports",
            ("s3:GetObject", "s3:PutObject"),
            (scope.objects_arn(scope.reports),),
        ),
    ]


def read_reports_section(spec: FleetSpec, scope: PolicyScope) -> list[Statement]:
    """A finished run's report, served by the Fleet view."""
    return [Statement("ReadTheFleetsReports", ("s3:GetObject",), (scope.objects_arn(scope.reports),))]


def write_reports_section(spec: FleetSpec, scope: PolicyScope) -> list[Statement]:
    """``sagemaker-fleet report`` uploads the report it writes."""
    return [Statement("UploadTheFleetsReports", ("s3:PutObject",), (scope.objects_arn(scope.reports),))]


def board_section(spec: FleetSpec, scope: PolicyScope) -> list[Statement]:
    """The account's board (``sharing``): every run lists and reads the records there and posts its own."""
    if scope.board is None:
        return []
    return [
        _list_prefix("ListTheAccountsBoard", scope, scope.board),
        Statement(
            "ReadAndPostOnTheAccountsBoard",
            ("s3:GetObject", "s3:PutObject"),
            (scope.objects_arn(scope.board),),
        ),
    ]


def read_board_section(spec: FleetSpec, scope: PolicyScope) -> list[Statement]:
    """The account's board as the Fleet view reads it (``sharing``): its waiting reasons rank the run as the
    triggerer does; it posts nothing."""
    if scope.board is None:
        return []
    return [
        _list_prefix("ListTheAccountsBoard", scope, scope.board),
        Statement("ReadTheAccountsBoard", ("s3:GetObject",), (scope.objects_arn(scope.board),)),
    ]


# ------------------------------------------------------------------------------------------------ preflight


def preflight_section(spec: FleetSpec, scope: PolicyScope) -> list[Statement]:
    """What ``sagemaker-fleet preflight`` reads (its quotas are :func:`quotas_section`): each execution role, one
    key of the output prefix, of the board and of every city's data, and each ECR image."""
    listed: dict[str, set[str]] = defaultdict(set)
    output = S3Prefix.of(spec.output_s3_uri)
    listed[output.bucket].add(output.prefix)
    if scope.board is not None:
        listed[scope.board.bucket].add(f"{scope.board.prefix}*")
    data: dict[str, list[str]] = defaultdict(list)
    for city in spec.cities:
        if city.train_s3_uri:
            where = S3Prefix.of(city.train_s3_uri)
            data[where.bucket].append(where.prefix)
    for bucket, prefixes in data.items():
        listed[bucket].add(f"{os.path.commonprefix(prefixes)}*")
    statements = [
        Statement("ReadTheFleetsExecutionRoles", ("iam:GetRole",), scope.roles),
        *(
            Statement(
                f"PreflightListsBucket{number}",
                ("s3:ListBucket",),
                (scope.bucket_arn(bucket),),
                {"StringLike": {"s3:prefix": sorted(prefixes)}},
            )
            for number, (bucket, prefixes) in enumerate(sorted(listed.items()), start=1)
        ),
    ]
    repositories = sorted(
        {
            scope.ecr_repository_arn(image.registry_id, image.region, image.repository)
            for uri in {spec.image_uri, *(city.image_uri for city in spec.cities)}
            if (image := ecr_image(uri)) is not None
        }
    )
    if repositories:
        statements.append(Statement("DescribeTheFleetsImages", ("ecr:DescribeImages",), tuple(repositories)))
    return statements


def register_section(spec: FleetSpec, scope: PolicyScope) -> list[Statement]:
    """The model registry's gate (a spec with ``register:``): each city's group read and made, its versions
    registered, described and approved — on the groups the spec's patterns name only; a champion's training job read
    only when it is one of the fleet's own (a champion registered by hand from another job counts as one whose
    metric is unknown: its city's new model goes to a person)."""
    groups = sorted({city.register.group for city in spec.cities if city.register is not None})
    if not groups:
        return []
    merged: dict[tuple[str, ...], set[str]] = defaultdict(set)
    for group in groups:
        for permission in registry_permissions(group, spec.fleet):
            for resource in permission.resources:
                if resource == TRAINING_JOB_ARN:
                    resource = scope.jobs_arn()
                merged[permission.actions].add(
                    resource.format(partition=scope.partition, region=scope.region, account=scope.account)
                    if "{" in resource
                    else resource
                )
    names = {
        ("sagemaker:DescribeModelPackageGroup", "sagemaker:CreateModelPackageGroup", "sagemaker:AddTags"): (
            "ReadAndMakeTheFleetsModelPackageGroups"
        ),
        ("sagemaker:ListModelPackages",): "ListModelPackagesNoResourceType",
        ("sagemaker:DescribeTrainingJob",): "ReadAChampionsTrainingJobOfTheFleet",
    }
    return [
        Statement(
            names.get(actions, "RegisterAndApproveTheFleetsModels"),
            actions,
            tuple(sorted(resources)),
            _in_region(scope) if resources == {"*"} else {},
        )
        for actions, resources in merged.items()
    ]


# ------------------------------------------------------------------------------------------------ the parts

#: What Airflow's principal needs: the triggerer (training tasks, the run's poller) and the workers (plan, pool
#: release, cost report) of every fleet DAG.
AIRFLOW: tuple[Section, ...] = (
    launch_statements,
    jobs_section,
    listing_section,
    other_fleets_section,
    pass_role_section,
    quotas_section,
    reports_section,
    board_section,
    register_section,
)
#: What the api-server needs for the Fleet view: it reads, it never creates, tags, ends or stops a job.
VIEW: tuple[Section, ...] = (
    listing_section,
    own_describe_section,
    other_fleets_section,
    read_reports_section,
    read_board_section,
)
#: What a person needs to try the fleet from the command line before the DAGs: ``preflight`` and ``report``.
PILOT: tuple[Section, ...] = (
    quotas_section,
    preflight_section,
    listing_section,
    own_describe_section,
    write_reports_section,
)

PARTS: dict[str, tuple[str, tuple[Section, ...]]] = {
    "airflow": ("the identity of Airflow's triggerer and workers (the fleet's AWS connection)", AIRFLOW),
    "view": ("the identity of Airflow's api-server, for the Fleet view", VIEW),
    "pilot": ("a person who runs `sagemaker-fleet preflight` and `report` against the account", PILOT),
}


def policy_part(name: str, spec: FleetSpec, scope: PolicyScope) -> PolicyPart:
    """The policy ``name`` (a key of :data:`PARTS`) for ``spec``."""
    principal, sections = PARTS[name]
    statements = tuple(statement for section in sections for statement in section(spec, scope))
    return PolicyPart(name, principal, statements, part_notes(name, spec, scope))


def part_notes(name: str, spec: FleetSpec, scope: PolicyScope) -> tuple[str, ...]:
    """What the reader of part ``name`` should know: what it cannot narrow, and what it leaves out."""
    notes = [
        "sagemaker:ListTrainingJobs and servicequotas:ListServiceQuotas have no resource type and no condition "
        f'key of their own in IAM: Resource is "*", kept to {scope.region} by aws:RequestedRegion. A listing '
        "gives job names, statuses and times, not a job's Environment or HyperParameters.",
        f"sagemaker:DescribeTrainingJob returns a job's Environment and HyperParameters: on training-job/* it "
        f"would read every team's secrets. It is granted on this fleet's jobs only (training-job/{spec.fleet}-*)"
        + (
            f" and those of {', '.join(scope.describe_fleets)} (--describe-fleet)."
            if scope.describe_fleets
            else "."
        ),
    ]
    if name == "airflow":
        notes += [
            "Other runs' jobs the sweeps list but may not describe count for nothing against the quotas, except "
            "what their runs post on the account's board (fleets with sharing, the default); a city that then "
            "meets their capacity backs off from ResourceLimitExceeded and retries. Their idle pools are not "
            "taken as warm starts. Add --describe-fleet NAME for a fleet of the account whose jobs this one may "
            "read.",
            "CreateTrainingJob: one statement per instance type, conditioned on what the spec's requests of that "
            "type ask at most — sagemaker:InstanceTypes, sagemaker:MaxRuntimeInSeconds, sagemaker:KeepAlivePeriod "
            "(the keep-alive ceiling: the spec's keep_alive, or the planner's automatic maximum), the VPC subnets "
            "and security groups, the KMS keys by ARN; a key the spec never sets must be absent. A launch outside "
            "them is refused.",
            "UpdateTrainingJob only with keep-alive 0 (sagemaker:KeepAlivePeriod = 0): the runs end idle pools, "
            "they never extend one.",
        ]
    if name == "view":
        notes.append(
            "Other runs' jobs the Fleet view lists but may not describe count in its account table as jobs that "
            "may not be described with these credentials; it never creates, tags, ends or stops a job."
        )
    if name == "pilot":
        notes.append(
            "`sagemaker-fleet report --price-list` also needs pricing:GetProducts (no resource type: "
            'Resource "*"); without it, use the price table the package ships.'
        )
    return tuple(notes)
