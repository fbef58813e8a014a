"""Whether what a fleet spec names exists in the account (thin I/O: the boto3 clients are passed in).

- each execution role: IAM GetRole on the name in ``role_arn``, the role SageMaker may assume;
- the output bucket (``output_s3_uri``) and, for every city, at least one object under its ``train_s3_uri``
  (SageMaker fails a job whose channel has no object): S3 ListObjectsV2, one key at most;
- the account's board (``sharing``): S3 ListObjectsV2 of its prefix, one key at most (a WARNING when it cannot be
  read: the run still goes);
- each training image in ECR: DescribeImages in the image's registry and region. An image outside ECR is a NOTE:
  not checked.

A refused check (AccessDenied) is a WARNING naming the permission it needs, never an ERROR: the run may still
work with the execution role's rights. Errors of the connection itself (no credentials, endpoint unreachable) are
left to the caller.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from typing import TYPE_CHECKING, Any
from urllib.parse import unquote

from botocore.exceptions import ClientError

from sagemaker_fleet.fleetspec.builtin_images import builtin_xgboost
from sagemaker_fleet.fleetspec.ecr import ecr_image
from sagemaker_fleet.fleetspec.names import split_s3_uri
from sagemaker_fleet.fleetspec.render import some_names
from sagemaker_fleet.iam.parts import SAGEMAKER_SERVICE
from sagemaker_fleet.jobs.errors import error_code, error_message
from sagemaker_fleet.preflight.findings import Finding
from sagemaker_fleet.preflight.targets import role_name

if TYPE_CHECKING:
    from sagemaker_fleet.fleetspec.model import SharingSettings

#: Error codes of a check the credentials may not make.
ACCESS_DENIED = frozenset({"AccessDenied", "AccessDeniedException", "UnauthorizedOperation", "403"})
#: S3 calls in flight at once for the cities' data prefixes.
DATA_WORKERS = 8
#: The service an execution role must trust: the one the generated policies pass the roles to.
SAGEMAKER_PRINCIPAL = SAGEMAKER_SERVICE


def _error(exc: ClientError) -> tuple[str, str]:
    return error_code(exc), error_message(exc)


def not_checked(subject: str, exc: ClientError, permission: str) -> Finding:
    code, message = _error(exc)
    if code in ACCESS_DENIED:
        return Finding("WARNING", subject, f"not checked: {code} — the check needs {permission}")
    return Finding("WARNING", subject, f"not checked: {code}: {message}")


def trusts_sagemaker(document: Any) -> bool:
    """Whether a role's trust policy names SageMaker (boto3 gives the document decoded; raw IAM gives it
    URL-encoded)."""
    if isinstance(document, str):
        document = unquote(document)
    text = document if isinstance(document, str) else json.dumps(document)
    return SAGEMAKER_PRINCIPAL in text


def role_findings(iam: Any, roles: Mapping[str, Sequence[str]]) -> list[Finding]:
    """``roles``: each role ARN of the spec → the cities that use it."""
    findings = []
    for arn, cities in roles.items():
        name = role_name(arn)
        subject = f"role {name}"
        try:
            role = iam.get_role(RoleName=name)["Role"]
        except ClientError as exc:
            if _error(exc)[0] == "NoSuchEntity":
                findings.append(
                    Finding(
                        "ERROR",
                        subject,
                        f"{arn} does not exist in this account: every job of {some_names(cities)} would fail at "
                        "once; create the role (docs/guides/aws.md, the execution roles) or correct role_arn",
                    )
                )
            else:
                findings.append(not_checked(subject, exc, "iam:GetRole"))
            continue
        found = str(role.get("Arn", ""))
        if found and found != arn:
            findings.append(
                Finding(
                    "WARNING",
                    subject,
                    f"these credentials' account has {found}, the spec names {arn}: a job can use only a role of "
                    "the account that creates it; check the credentials (profile, region) or role_arn",
                )
            )
        elif not trusts_sagemaker(role.get("AssumeRolePolicyDocument", "")):
            findings.append(
                Finding(
                    "WARNING",
                    subject,
                    f"its trust policy does not name {SAGEMAKER_PRINCIPAL}: SageMaker cannot assume it and every "
                    f"job of {some_names(cities)} would fail at once",
                )
            )
        else:
            findings.append(
                Finding("OK", subject, f"exists and SageMaker may assume it ({len(cities)} cities)")
            )
    return findings


def _first_key(s3: Any, uri: str) -> str | None:
    """The first key under ``uri`` (None when there is none); ClientError for a missing bucket or a refusal."""
    bucket, prefix = split_s3_uri(uri)
    page = s3.list_objects_v2(Bucket=bucket, Prefix=prefix, MaxKeys=1)
    contents = page.get("Contents") or []
    return str(contents[0]["Key"]) if contents else None


def output_findings(s3: Any, output_s3_uri: str, region: str) -> list[Finding]:
    bucket, _ = split_s3_uri(output_s3_uri)
    subject = f"bucket {bucket}"
    try:
        _first_key(s3, output_s3_uri)
    except ClientError as exc:
        if _error(exc)[0] == "NoSuchBucket":
            return [
                Finding(
                    "ERROR",
                    subject,
                    f"the bucket of output_s3_uri does not exist: every job writes its model and checkpoints there "
                    f"and the run its cost report; create it in {region}",
                )
            ]
        return [not_checked(subject, exc, "s3:ListBucket")]
    return [Finding("OK", subject, "exists (output_s3_uri: models, checkpoints, reports)")]


def board_findings(s3: Any, sharing: SharingSettings | None) -> list[Finding]:
    """The account's board (``sharing``): listed, never written (preflight changes nothing). A board that cannot be
    read is a WARNING, not an ERROR: the run goes on first come, first served."""
    if sharing is None:
        return [Finding("NOTE", "board", "sharing: false: the run posts nothing on the account's board")]
    subject = f"board {sharing.board}"
    bucket, prefix = split_s3_uri(sharing.board)
    try:
        s3.list_objects_v2(Bucket=bucket, Prefix=prefix, MaxKeys=1)
    except ClientError as exc:
        code, message = _error(exc)
        return [
            Finding(
                "WARNING",
                subject,
                f"cannot be read ({code}: {message}): runs that start together may both take the free room, and "
                "shares and priorities go unheeded; create the bucket or name a board: in sharing, and allow "
                "s3:ListBucket, s3:GetObject and s3:PutObject on it",
            )
        ]
    return [
        Finding(
            "OK",
            subject,
            "readable; each run also needs s3:GetObject and s3:PutObject there (not checked: preflight writes "
            "nothing)",
        )
    ]


def data_findings(s3: Any, cities: Mapping[str, str], workers: int = DATA_WORKERS) -> list[Finding]:
    """``cities``: each city's name → its ``train_s3_uri``. One ERROR per city without data, one per missing
    bucket (naming its cities), one OK for the rest."""
    names = list(cities)

    def probe(name: str) -> str | ClientError | None:
        try:
            return _first_key(s3, cities[name])
        except ClientError as exc:
            return exc

    with ThreadPoolExecutor(max_workers=max(1, workers)) as pool:
        results = dict(zip(names, pool.map(probe, names), strict=True))
    findings: list[Finding] = []
    failed: dict[tuple[str, str], list[str]] = {}  # (bucket, code) → cities
    empty = []
    for name, result in results.items():
        if isinstance(result, ClientError):
            failed.setdefault((split_s3_uri(cities[name])[0], _error(result)[0]), []).append(name)
        elif result is None:
            empty.append(name)
    for (bucket, code), members in failed.items():
        findings.append(_bucket_failure(bucket, code, members))
    for name in empty:
        findings.append(
            Finding(
                "ERROR",
                f"data {name}",
                f"no object under {cities[name]}: SageMaker fails a job whose training channel is empty; upload "
                "the city's data there or correct train_s3_uri",
            )
        )
    found = len(names) - len(empty) - sum(len(members) for members in failed.values())
    if found:
        findings.insert(0, Finding("OK", "data", f"training data found for {found} of {len(names)} cities"))
    return findings


def _bucket_failure(bucket: str, code: str, cities: Sequence[str]) -> Finding:
    subject = f"data bucket {bucket}"
    if code == "NoSuchBucket":
        return Finding(
            "ERROR", subject, f"does not exist: the training data of {some_names(cities)} cannot be read"
        )
    if code in ACCESS_DENIED:
        return Finding(
            "WARNING",
            subject,
            f"not checked for {some_names(cities)}: {code} — the check needs s3:ListBucket",
        )
    return Finding("WARNING", subject, f"not checked for {some_names(cities)}: {code}")


def image_findings(
    ecr_for_region: Callable[[str], Any], images: Mapping[str, Sequence[str]]
) -> list[Finding]:
    """``images``: each training image URI → its cities; ``ecr_for_region``: an ECR client of a region."""
    findings = []
    for uri, cities in images.items():
        image = ecr_image(uri)
        subject = f"image {uri}"
        if builtin_xgboost().is_builtin(uri):
            findings.append(
                Finding(
                    "OK",
                    subject,
                    "SageMaker's built-in XGBoost image: SageMaker pulls it with its own credentials",
                )
            )
            continue
        if image is None:
            findings.append(
                Finding("NOTE", subject, "not in ECR: not checked; SageMaker must be able to pull it")
            )
            continue
        try:
            ecr_for_region(image.region).describe_images(
                registryId=image.registry_id, repositoryName=image.repository, imageIds=[image.image_id]
            )
        except ClientError as exc:
            code, _ = _error(exc)
            where = f"registry {image.registry_id} ({image.region})"
            if code == "RepositoryNotFoundException":
                text = f"no repository {image.repository} in {where}"
            elif code == "ImageNotFoundException":
                text = f"no image {image.reference} in {where}"
            else:
                findings.append(not_checked(subject, exc, "ecr:DescribeImages"))
                continue
            findings.append(
                Finding("ERROR", subject, f"{text}: every job of {some_names(cities)} would fail to start")
            )
            continue
        findings.append(Finding("OK", subject, f"exists ({len(cities)} cities)"))
    return findings
