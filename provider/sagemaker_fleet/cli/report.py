"""``sagemaker-fleet report FLEET.yaml --run-key K [--out DIR] [--plan PLAN.json]``: the cost report of one run.

Reads the run's jobs with ListTrainingJobs + DescribeTrainingJob (AWS, or the simulator through ``--endpoint-url``
/ ``AWS_ENDPOINT_URL``), writes report.json, report.csv and report.html into DIR (default
``./out/reports/{run_key}``) and uploads them to ``{output_s3_uri}/reports/{run_key}/``. With ``--plan`` (the run's
plan JSON: the plan task's ``plan`` XCom, or ``sagemaker-fleet plan --format json``) the report names groups as the
plan does and compares the run with it, group by group; without it that section says how to get it.

Upload policy: ``--no-upload`` skips it. A missing bucket (``NoSuchBucket``) is a warning — the local report is the
product and a dev or simulator account often has no bucket — so the command still exits 0. Any other upload error
(access denied, network) exits 1 after the local files are written.

Exit codes: 0 report written; 1 AWS could not be read or the upload failed; 2 the spec, the run key, a flag, the
output folder or a price is missing or wrong (the message names the fix); 3 (:data:`NO_JOBS_EXIT`) the run has no
training job, so no report is written: an empty $0.00 report would read like a real, free run, and a script must
tell "nothing ran under this key" (a mistyped key, the wrong endpoint or account) from a report. Flags and the output
folder are checked before AWS is called.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import sys
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

from sagemaker_fleet.cli.argtypes import endpoint_url, workers
from sagemaker_fleet.cost.collect import (
    DEFAULT_DESCRIBE_WORKERS,
    describe_run_jobs,
    find_other_runs_givers,
)
from sagemaker_fleet.cost.errors import PriceListError
from sagemaker_fleet.cost.pricelist import (
    PRICE_LIST_API_REGIONS,
    PriceListCache,
    default_cache_path,
    lookup_price_list,
)
from sagemaker_fleet.cost.publish import upload_refusal, upload_report_files, write_report_files
from sagemaker_fleet.cost.report import RunJobIndex, build_cost_report
from sagemaker_fleet.cost.summary import summary_lines
from sagemaker_fleet.fleetspec import FleetSpecError, load_fleet_spec
from sagemaker_fleet.fleetspec.names import InvalidRunKeyError, report_s3_uri
from sagemaker_fleet.jobs.errors import CostReportError, error_code
from sagemaker_fleet.jobs.prices import PriceBook
from sagemaker_fleet.jobs.reader import ClientJobReader
from sagemaker_fleet.plan import FleetPlan
from sagemaker_fleet.plan.errors import PlanFormatError

if TYPE_CHECKING:
    from collections.abc import Mapping, Sequence

    import boto3

    from sagemaker_fleet.cost.report import CostReport
    from sagemaker_fleet.fleetspec.model import FleetSpec

#: exit code of ``report`` for a run without any training job (nothing written, nothing uploaded)
NO_JOBS_EXIT = 3
#: A ``--plan`` file larger than this is no plan (a plan of 10,000 cities is about 4 MB).
MAX_PLAN_BYTES = 64 * 1024 * 1024


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("spec", metavar="FLEET.yaml", help="the fleet spec")
    parser.add_argument("--run-key", required=True, help="the run to report on (e.g. 20261129)")
    parser.add_argument(
        "--out", type=Path, default=None, help="output folder (default ./out/reports/RUN_KEY)"
    )
    parser.add_argument(
        "--endpoint-url",
        type=endpoint_url,
        default=None,
        help="SageMaker and S3 endpoint, e.g. the simulator's (default: AWS_ENDPOINT_URL or AWS itself)",
    )
    parser.add_argument("--no-upload", action="store_true", help="write the files locally only")
    parser.add_argument(
        "--plan",
        type=Path,
        default=None,
        metavar="PLAN.json",
        help="the run's plan (the plan task's `plan` XCom, or `sagemaker-fleet plan FLEET.yaml --run-key K "
        "--format json`): the report compares the run with it per group (planned warm starts, warm starts got, "
        "why each missed one started cold)",
    )
    parser.add_argument(
        "--price-list",
        action="store_true",
        help="price instance types the spec does not price through the AWS Price List API (cached locally)",
    )
    parser.add_argument(
        "--price-cache",
        type=Path,
        default=None,
        help=f"Price List cache file (default {default_cache_path()})",
    )
    parser.add_argument(
        "--describe-workers",
        type=workers,
        default=DEFAULT_DESCRIBE_WORKERS,
        help="DescribeTrainingJob calls in flight at once, 1-64 (SageMaker throttles many more)",
    )


def _fail(message: str, code: int) -> int:
    print(f"error: {message}", file=sys.stderr)
    return code


def run(args: argparse.Namespace) -> int:
    try:
        spec, index, plan = _read_inputs(args)
    except (FleetSpecError, InvalidRunKeyError, PlanFormatError) as exc:
        return _fail(str(exc), 2)
    out_dir = args.out if args.out is not None else Path("out") / "reports" / args.run_key
    created, problem = _unwritable(out_dir)
    if problem is not None:
        return _fail(f"--out {out_dir}: {problem}", 2)
    import boto3  # lazily: the CLI's other commands must not pay for it
    from botocore.exceptions import BotoCoreError, ClientError

    session = boto3.session.Session(region_name=spec.region)
    try:
        sagemaker = _client(session, "sagemaker", args.endpoint_url)
    except ValueError as exc:  # botocore refuses an endpoint, e.g. a bad AWS_ENDPOINT_URL
        return _fail(f"{exc}; set --endpoint-url (or AWS_ENDPOINT_URL) to an http(s) URL", 2)
    try:
        reader = ClientJobReader(sagemaker)
        describes = describe_run_jobs(reader, index, args.describe_workers)
        # the other runs' jobs that handed a job of the run their warm pool: no call when none could have
        other_runs = find_other_runs_givers(reader, index, describes, args.describe_workers)
    except (BotoCoreError, ClientError) as exc:
        return _fail(f"cannot read the training jobs of run {args.run_key}: {exc}", 1)
    if not describes:
        if created:
            with contextlib.suppress(OSError):  # the folder made for the report, left empty: leave no trace
                out_dir.rmdir()
        where = args.endpoint_url or os.environ.get("AWS_ENDPOINT_URL") or f"AWS {spec.region}"
        return _fail(
            f"no training job of fleet {spec.fleet} run {args.run_key} was found at {where}; no report written. "
            f"Check the run key (a scheduled run's is its logical date in UTC, e.g. 20261129) and the account or "
            f"--endpoint-url the run used (exit {NO_JOBS_EXIT}: a run without jobs)",
            NO_JOBS_EXIT,
        )
    book = _price_book(spec, describes, args, session)
    try:
        report = build_cost_report(
            spec,
            args.run_key,
            describes,
            book,
            generated_at=datetime.now(UTC),
            index=index,
            other_runs=other_runs,
            plan=plan,
        )
    except CostReportError as exc:
        return _fail(str(exc), 1)
    try:
        files = write_report_files(report, out_dir)
    except OSError as exc:
        return _fail(f"--out {out_dir}: cannot write the report: {exc.strerror}", 2)
    code = 0 if args.no_upload else _upload(session, args, spec, files)
    unpriced = sorted(itype for itype, price in report.prices.items() if not price.known)
    if unpriced:
        lookup = "" if args.price_list else "; or pass --price-list to look them up in the AWS Price List API"
        print(
            f"warning: {report.prices[unpriced[0]].detail}{lookup}: the report leaves their jobs' money out",
            file=sys.stderr,
        )
    _print_summary(report, files.html)
    return code


def _read_inputs(args: argparse.Namespace) -> tuple[FleetSpec, RunJobIndex, FleetPlan | None]:
    """The spec, the run's job names and the ``--plan`` given; raises the error that names what to fix."""
    spec = load_fleet_spec(args.spec)
    index = RunJobIndex.for_run(spec, args.run_key)
    plan = read_plan(args.plan, spec.fleet, args.run_key) if args.plan is not None else None
    return spec, index, plan


def read_plan(path: Path, fleet: str, run_key: str) -> FleetPlan:
    """The plan JSON at ``path``, checked to be the plan of ``fleet``'s run ``run_key``; raises
    :class:`PlanFormatError` naming the flag, what is wrong and what to pass instead."""
    fix = f"pass the plan of fleet {fleet} run {run_key} (the plan task's `plan` XCom of that run)"
    try:
        return _plan_file(path, fleet, run_key, fix)
    except PlanFormatError as exc:
        raise PlanFormatError(f"--plan {path}: {exc}") from exc


def _plan_file(path: Path, fleet: str, run_key: str, fix: str) -> FleetPlan:
    try:
        if path.stat().st_size > MAX_PLAN_BYTES:
            raise PlanFormatError(f"larger than {MAX_PLAN_BYTES:,} bytes, not a plan; {fix}")
        text = path.read_text(encoding="utf-8")
    except OSError as exc:
        raise PlanFormatError(f"cannot read the file: {exc.strerror}; {fix}") from exc
    except UnicodeDecodeError as exc:
        raise PlanFormatError(f"not UTF-8 text ({exc.reason}); {fix}") from exc
    try:
        plan = FleetPlan.from_json(text)
    except PlanFormatError as exc:
        raise PlanFormatError(f"not a plan JSON ({exc}); {fix}") from exc
    except (ValueError, RecursionError) as exc:  # a number of 5,000 digits, or [[[[… nested 100,000 deep
        raise PlanFormatError(f"not JSON (nested too deeply or a number too long); {fix}") from exc
    if (plan.fleet, plan.run_key) != (fleet, run_key):
        raise PlanFormatError(
            f"the plan of fleet {plan.fleet} run {plan.run_key}, not of {fleet} run {run_key}; {fix}"
        )
    return plan


def _unwritable(out_dir: Path) -> tuple[bool, str | None]:
    """Whether ``out_dir`` was made here (it was missing), and why the report could not be written into it (or
    None)."""
    try:
        created = not out_dir.exists()
        out_dir.mkdir(parents=True, exist_ok=True)
    except OSError as exc:  # a name too long for the file system, a file in the way, no permission
        return False, f"cannot create the folder ({exc.strerror}); pass a folder you can write to"
    if not os.access(out_dir, os.W_OK | os.X_OK):
        return created, "the folder is not writable; pass a folder you can write to"
    return created, None


def _client(session: boto3.session.Session, service: str, endpoint_url: str | None) -> Any:
    from botocore.config import Config

    config = Config(retries={"mode": "adaptive", "max_attempts": 10})
    return session.client(service, endpoint_url=endpoint_url, config=config)  # type: ignore[call-overload]


def _price_book(
    spec: FleetSpec,
    describes: Sequence[Mapping[str, Any]],
    args: argparse.Namespace,
    session: boto3.session.Session,
) -> PriceBook:
    book = PriceBook.for_spec(spec)
    if not args.price_list:
        return book
    needed = {_instance_type(d) for d in describes} - set(spec.prices) - {""}
    if not needed:
        return book
    from botocore.exceptions import BotoCoreError, ClientError

    cache = PriceListCache(args.price_cache or default_cache_path())
    try:
        pricing = session.client("pricing", region_name=PRICE_LIST_API_REGIONS[0])
        found = lookup_price_list(pricing, spec.region, needed, cache)
    except (BotoCoreError, ClientError, PriceListError, OSError) as exc:
        print(
            f"warning: AWS Price List look-up failed ({exc}); using the shipped table for those types "
            "(AWS_ENDPOINT_URL applies to every service: set AWS_ENDPOINT_URL_PRICING to reach the real API)",
            file=sys.stderr,
        )
        return book
    prices = {itype: entry.usd_per_hour for itype, entry in found.items()}
    fetched = min(entry.fetched_at for entry in found.values()).date().isoformat()
    detail = f"AWS Price List API ({spec.region}, fetched {fetched}, cache {cache.path})"
    return PriceBook(spec.region, book.table, spec.prices, prices, detail)


def _instance_type(describe: Mapping[str, Any]) -> str:
    return str((describe.get("ResourceConfig") or {}).get("InstanceType", ""))


def _upload(session: boto3.session.Session, args: argparse.Namespace, spec: FleetSpec, files: Any) -> int:
    from botocore.exceptions import BotoCoreError, ClientError

    target = report_s3_uri(spec.output_s3_uri, args.run_key)
    try:
        uploaded = upload_report_files(_client(session, "s3", args.endpoint_url), files, target)
    except ClientError as exc:
        refusal = upload_refusal(error_code(exc), target, files.html.parent)
        if refusal is not None:
            print(f"warning: {refusal} (pass --no-upload to skip the upload)", file=sys.stderr)
            return 0
        return _fail(f"upload to {target} failed: {exc}", 1)
    except BotoCoreError as exc:
        return _fail(f"upload to {target} failed: {exc}", 1)
    print(f"uploaded: {uploaded[-1]}")
    return 0


def _print_summary(report: CostReport, page: Path) -> None:
    for line in summary_lines(report):
        print(line)
    print(f"page: {page.resolve()}")
