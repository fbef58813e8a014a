"""What a pilot is asked to do (:class:`PilotSettings`), its flags, and what every pilot keeps the same: three stores,
the fleet ``pilot``, one instance at a time, SageMaker's built-in XGBoost on a few kilobytes of CSV.

The flags are checked by their argparse types (a bad value is ``error: argument --role-arn: …`` and exit 2 before
anything else happens); what depends on several of them (the region's image, the price) is checked when the fleet
is built (:mod:`.fleet`).
"""

from __future__ import annotations

import argparse
import datetime as dt
from dataclasses import dataclass
from decimal import Decimal, InvalidOperation
from pathlib import Path

from sagemaker_fleet.cli.argtypes import positive
from sagemaker_fleet.contract import POLL_INTERVAL
from sagemaker_fleet.fleetspec.formats import ROLE_ARN_RE, S3_URI_RE
from sagemaker_fleet.fleetspec.model import MAX_RUNTIME_LIMIT
from sagemaker_fleet.fleetspec.names import InvalidRunKeyError, split_s3_uri, validate_run_key

#: The fleet's name: every job is ``pilot-<store>-<run key>``, so a policy scopes the pilot to ``training-job/pilot-*``.
FLEET = "pilot"
#: Three stores: the first starts cold, the next two on the warm pool the one before leaves.
STORES = ("store-1", "store-2", "store-3")
#: The smallest instance of the family SageMaker's XGBoost guide recommends for its CPU training (M5: memory-bound).
DEFAULT_INSTANCE_TYPE = "ml.m5.large"
#: A job's limit: XGBoost on a few kilobytes trains in seconds; the limit is what the cost ceiling counts.
DEFAULT_MAX_RUNTIME = 600
MIN_MAX_RUNTIME = 60
#: The longest sweep interval: the clean-up waits that long between its looks, and a job's end is seen that late.
MAX_POLL_INTERVAL = 600.0
#: The ceiling the pilot refuses to go above unless told otherwise (USD).
DEFAULT_MAX_COST = Decimal("1.00")
#: Between sweeps of the run: the training task's ``poll_interval`` default (AWS: at least 5 s, the dispatch's floor).
DEFAULT_POLL_INTERVAL = POLL_INTERVAL


@dataclass(frozen=True)
class PilotSettings:
    """One pilot: where (region, bucket, prefix, role), under which run key, on what, and within which cost."""

    region: str
    bucket: str
    prefix: str  # the user's prefix, without a trailing '/' ("" for the bucket's root)
    role_arn: str
    run_key: str
    instance_type: str = DEFAULT_INSTANCE_TYPE
    max_runtime_seconds: int = DEFAULT_MAX_RUNTIME
    max_cost: Decimal = DEFAULT_MAX_COST
    price_per_hour: Decimal | None = None
    poll_interval: float = DEFAULT_POLL_INTERVAL
    delete_data: bool = False

    @property
    def account(self) -> str:
        """The account the role is in: the pilot's jobs run there (the policies' ARNs name it)."""
        return self.role_arn.split(":")[4]

    @property
    def partition(self) -> str:
        return self.role_arn.split(":")[1]

    @property
    def run_prefix(self) -> str:
        """The key prefix of everything this run writes: ``{prefix}/{run_key}/``."""
        return f"{self.prefix}/{self.run_key}/" if self.prefix else f"{self.run_key}/"

    @property
    def output_s3_uri(self) -> str:
        """The fleet's ``output_s3_uri``: the run's prefix (models/ and checkpoints/ below it, and the data)."""
        return f"s3://{self.bucket}/{self.run_prefix.rstrip('/')}"

    def data_key(self, store: str) -> str:
        return f"{self.run_prefix}data/{store}/train.csv"

    def train_s3_uri(self, store: str) -> str:
        return f"s3://{self.bucket}/{self.run_prefix}data/{store}/"


def default_run_key(now: dt.datetime | None = None) -> str:
    """``p`` and the UTC minute (``p2612061230``): a new key for every pilot, so its names and prefix are new."""
    moment = now or dt.datetime.now(dt.UTC)
    return "p" + moment.astimezone(dt.UTC).strftime("%y%m%d%H%M")


# ------------------------------------------------------------------------------------------------ argument types


def role_arn(text: str) -> str:
    if not ROLE_ARN_RE.fullmatch(text):
        raise argparse.ArgumentTypeError(
            f"{text!r}: give the SageMaker execution role's ARN, e.g. arn:aws:iam::111122223333:role/SageMakerPilot"
        )
    return text


def s3_prefix(text: str) -> tuple[str, str]:
    """(bucket, prefix without a trailing '/') of ``s3://bucket[/prefix]``."""
    if not S3_URI_RE.fullmatch(text.rstrip("/")):
        raise argparse.ArgumentTypeError(f"{text!r}: give an S3 URI such as s3://my-bucket/sagemaker-pilot")
    bucket, prefix = split_s3_uri(text)
    return bucket, prefix.strip("/")


def run_key(text: str) -> str:
    try:
        return validate_run_key(text)
    except InvalidRunKeyError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None


def usd(text: str) -> Decimal:
    try:
        value = Decimal(text)
    except InvalidOperation:
        raise argparse.ArgumentTypeError(f"{text!r} is not an amount in USD, e.g. 0.50") from None
    if not value.is_finite() or value <= 0:
        raise argparse.ArgumentTypeError(f"{text!r}: give an amount in USD above 0, e.g. 0.50")
    return value


def max_runtime(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a whole number of seconds") from None
    if not MIN_MAX_RUNTIME <= value <= MAX_RUNTIME_LIMIT:
        raise argparse.ArgumentTypeError(
            f"{text!r}: give {MIN_MAX_RUNTIME}-{MAX_RUNTIME_LIMIT} seconds (the pilot's jobs train in about a minute)"
        )
    return value


def poll_interval(text: str) -> float:
    value = positive(text)
    if value > MAX_POLL_INTERVAL:
        raise argparse.ArgumentTypeError(f"{text!r}: give at most {MAX_POLL_INTERVAL:.0f} seconds")
    return value


def add_arguments(parser: argparse.ArgumentParser) -> None:
    where = parser.add_argument_group("where it runs (your account)")
    where.add_argument("--region", required=True, help="the AWS region to train in, e.g. us-east-1")
    where.add_argument(
        "--role-arn",
        type=role_arn,
        required=True,
        help="the SageMaker execution role the jobs run as (docs/guides/pilot.md gives its least policy)",
    )
    where.add_argument(
        "--s3-prefix",
        type=s3_prefix,
        required=True,
        metavar="s3://BUCKET[/PREFIX]",
        help="an existing bucket, and a prefix: the pilot writes under PREFIX/RUN_KEY/ only",
    )
    run = parser.add_argument_group("the run")
    run.add_argument(
        "--run-key",
        type=run_key,
        default=None,
        help="run key in the job names and the S3 prefix, 1-16 lowercase letters or digits (default: p and the "
        "UTC minute, e.g. p2612061230); give the dry run's key to run exactly the calls it listed",
    )
    run.add_argument(
        "--instance-type",
        default=DEFAULT_INSTANCE_TYPE,
        help=f"the training instance type (default {DEFAULT_INSTANCE_TYPE}, the smallest M5, the family the XGBoost "
        "guide recommends)",
    )
    run.add_argument(
        "--max-runtime",
        type=max_runtime,
        default=DEFAULT_MAX_RUNTIME,
        metavar="SECONDS",
        help=f"each job's MaxRuntimeInSeconds (default {DEFAULT_MAX_RUNTIME}); the cost ceiling counts it in full",
    )
    run.add_argument(
        "--poll-interval",
        type=poll_interval,
        default=DEFAULT_POLL_INTERVAL,
        metavar="SECONDS",
        help=f"seconds between sweeps of the run (default {DEFAULT_POLL_INTERVAL:.0f}; against AWS at least 5)",
    )
    money = parser.add_argument_group("money")
    money.add_argument(
        "--max-cost",
        type=usd,
        default=DEFAULT_MAX_COST,
        metavar="USD",
        help=f"refuse to start (exit 2) when the cost ceiling is above this (default {DEFAULT_MAX_COST})",
    )
    money.add_argument(
        "--price-per-hour",
        type=usd,
        default=None,
        metavar="USD",
        help="the instance type's on-demand training price in the region, where the shipped price table has none",
    )
    out = parser.add_argument_group("output")
    out.add_argument(
        "--dry-run", action="store_true", help="list every AWS call and the cost ceiling; call nothing"
    )
    out.add_argument(
        "--json", action="store_true", help="with --dry-run: print the calls and the ceiling as JSON"
    )
    out.add_argument(
        "--policy",
        choices=("caller", "execution-role"),
        default=None,
        help="print the least IAM policy of whoever runs the pilot (caller) or of the jobs' role, and exit",
    )
    out.add_argument(
        "--out",
        type=Path,
        default=None,
        help="folder for the comparison and the records (default ./pilot-RUN_KEY)",
    )
    out.add_argument(
        "--delete-data",
        action="store_true",
        help="delete every object under the run's prefix at the end (the data, the models, the checkpoints)",
    )


def settings_of(args: argparse.Namespace) -> PilotSettings:
    bucket, prefix = args.s3_prefix
    return PilotSettings(
        region=args.region,
        bucket=bucket,
        prefix=prefix,
        role_arn=args.role_arn,
        run_key=args.run_key or default_run_key(),
        instance_type=args.instance_type,
        max_runtime_seconds=args.max_runtime,
        max_cost=args.max_cost,
        price_per_hour=args.price_per_hour,
        poll_interval=args.poll_interval,
        delete_data=args.delete_data,
    )
