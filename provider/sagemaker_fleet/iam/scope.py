"""What the fleet's policies name: its account, partition and region, its job-name prefix, its execution roles and
the S3 prefixes its runs read and write — and the ARNs of each (pure).

Every job name of a fleet starts with ``{fleet}-`` and a fleet name has no ``-`` (docs/concepts/names.md), so
``training-job/{fleet}-*`` is exactly the fleet's jobs: another fleet's name never starts with it.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import TYPE_CHECKING

from sagemaker_fleet.errors import SageMakerFleetError
from sagemaker_fleet.fleetspec.formats import FLEET_RE
from sagemaker_fleet.fleetspec.names import reports_s3_prefix, split_s3_uri

if TYPE_CHECKING:
    from sagemaker_fleet.fleetspec.model import FleetSpec

_ROLE_ARN_RE = re.compile(r"^arn:(?P<partition>aws[a-z-]*):iam::(?P<account>\d{12}):role/")
ACCOUNT_RE = re.compile(r"^\d{12}$")


class PolicyScopeError(SageMakerFleetError, ValueError):
    """The spec and the flags do not say which account the policies are for (the message names the fix)."""


@dataclass(frozen=True)
class S3Prefix:
    """A bucket and a key prefix in it (``fleets/citydemand/reports/``; empty for the whole bucket)."""

    bucket: str
    prefix: str

    @classmethod
    def of(cls, uri: str) -> S3Prefix:
        bucket, key = split_s3_uri(uri)
        return cls(bucket, key)


@dataclass(frozen=True)
class PolicyScope:
    """The names the policies are written for."""

    partition: str
    account: str
    region: str
    fleet: str
    roles: tuple[str, ...]
    reports: S3Prefix
    board: S3Prefix | None
    #: other fleets of the account whose jobs the runs may describe (``--describe-fleet``), sorted
    describe_fleets: tuple[str, ...] = ()

    @classmethod
    def of(
        cls, spec: FleetSpec, account: str | None = None, describe_fleets: tuple[str, ...] = ()
    ) -> PolicyScope:
        """The scope of ``spec``'s policies: the account given, else the one every execution role is in."""
        roles = tuple(sorted({spec.role_arn, *(city.role_arn for city in spec.cities)}))
        parsed = [_ROLE_ARN_RE.match(role) for role in roles]
        accounts = sorted({match.group("account") for match in parsed if match})
        partitions = sorted({match.group("partition") for match in parsed if match}) or ["aws"]
        if account is None:
            if len(accounts) != 1:
                raise PolicyScopeError(
                    f"the execution roles are in {len(accounts)} accounts ({', '.join(accounts) or 'none'}): "
                    "name the account the jobs run in with --account-id"
                )
            account = accounts[0]
        if not ACCOUNT_RE.fullmatch(account):
            raise PolicyScopeError(f"--account-id {account!r}: an AWS account id is 12 digits")
        others = tuple(sorted(set(describe_fleets)))
        for other in others:
            if not FLEET_RE.fullmatch(other) or other == spec.fleet:
                raise PolicyScopeError(
                    f"--describe-fleet {other!r}: name another fleet of the account (1-20 lowercase letters or "
                    "digits, its spec's `fleet:`)"
                )
        board = S3Prefix.of(spec.sharing.board) if spec.sharing is not None else None
        return cls(
            partitions[0],
            account,
            spec.region,
            spec.fleet,
            roles,
            S3Prefix.of(reports_s3_prefix(spec.output_s3_uri)),
            board,
            others,
        )

    # ------------------------------------------------------------------------------------------------ ARNs

    def jobs_arn(self, fleet: str | None = None) -> str:
        """Every training job of ``fleet`` (default: this one) in the region: ``training-job/{fleet}-*``."""
        return f"arn:{self.partition}:sagemaker:{self.region}:{self.account}:training-job/{fleet or self.fleet}-*"

    def job_arn(self, name: str) -> str:
        """One training job's ARN (SageMaker writes the name in lower case there; fleet job names are)."""
        return f"arn:{self.partition}:sagemaker:{self.region}:{self.account}:training-job/{name.lower()}"

    def bucket_arn(self, bucket: str) -> str:
        return f"arn:{self.partition}:s3:::{bucket}"

    def objects_arn(self, where: S3Prefix) -> str:
        """Every object under ``where``."""
        return f"arn:{self.partition}:s3:::{where.bucket}/{where.prefix}*"

    def ecr_repository_arn(self, registry: str, region: str, repository: str) -> str:
        return f"arn:{self.partition}:ecr:{region}:{registry}:repository/{repository}"
