"""``sagemaker-fleet import JOB [JOB ...]`` and ``import --request FILE [...]``: a fleet spec drafted from jobs you
already run (docs/guides/bring-your-job.md).

Jobs are read with DescribeTrainingJob and ListTags (DescribeTrainingJob carries no tags), and the account's
quotas with ListServiceQuotas, through the same endpoint rules as ``report``: ``--endpoint-url``, else
``AWS_ENDPOINT_URL``, else AWS. The drafting itself is pure (:mod:`sagemaker_fleet.fleetspec.draft`, the cities
from the job names in :mod:`sagemaker_fleet.fleetspec.draft_cities`); the draft is checked like any spec before it
is written.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from pathlib import Path
from typing import Any

import yaml

from sagemaker_fleet.cli.argtypes import endpoint_url
from sagemaker_fleet.fleetspec import FleetSpecError, parse_fleet_spec
from sagemaker_fleet.fleetspec.draft import (
    Draft,
    ImportedJob,
    QuotaReading,
    draft_spec,
    request_of_description,
)
from sagemaker_fleet.fleetspec.draft_cities import city_of_name, guess_cities
from sagemaker_fleet.fleetspec.formats import CITY_RE, FLEET_RE
from sagemaker_fleet.fleetspec.names import CITY_TAG
from sagemaker_fleet.hooks.request_model import BOTOCORE_MODEL

HELP = "draft a fleet spec from training jobs you already run, or from CreateTrainingJob request files"
EPILOG = (
    "How jobs map to cities: the i-th city of --cities is the i-th job, JOBs first, then --request files, in the "
    "order given; without --cities a job's city is its sagemaker-fleet:city tag, else what differs between the "
    "jobs' names once the words they share and the timestamp at their end are set aside "
    "(demand-oslo-2026-11-28-02-00-00 gives oslo), else its whole name (lowercased). "
    "Where the spec goes: to --out FILE (refused if it exists, unless --force), else to standard output. What "
    "every job shares goes in the fleet-level `job:`, what differs in each city's `job:`, with {city} where the "
    "city's name appeared; output_s3_uri is the prefix the jobs' output paths share; quotas are the account's "
    "(Service Quotas), else TODO values that validate refuses, saying what to write; every field left out (the "
    "provider's own, read-only ones, SageMaker's defaults) is listed at the end of the spec and on standard "
    "error."
)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.description = HELP
    parser.epilog = EPILOG
    parser.add_argument("jobs", nargs="*", metavar="JOB", help="training job names to read from SageMaker")
    parser.add_argument(
        "--request",
        action="append",
        default=[],
        metavar="FILE",
        help="a CreateTrainingJob request as JSON or YAML (e.g. what the SageMaker SDK builds); repeatable",
    )
    parser.add_argument("--cities", metavar="A,B,…", help="the cities' names, one per job, in order")
    parser.add_argument("--fleet", metavar="NAME", help="the fleet's name (default: from the job names)")
    parser.add_argument("--region", help="the jobs' region (default: the AWS environment's, else us-east-1)")
    parser.add_argument(
        "--endpoint-url",
        type=endpoint_url,
        default=None,
        help="SageMaker endpoint, e.g. the simulator's (default: AWS_ENDPOINT_URL or AWS itself)",
    )
    parser.add_argument(
        "--quotas-from-account",
        action="store_true",
        help="read the quotas from Service Quotas for --request files too (JOBs always do; without either the "
        "draft's quotas are TODO)",
    )
    parser.add_argument("--out", "-o", type=Path, default=None, help="write the spec here (default: stdout)")
    parser.add_argument("--force", action="store_true", help="overwrite --out if it exists")


def _fail(message: str, code: int) -> int:
    print(f"error: {message}", file=sys.stderr)
    return code


def run(args: argparse.Namespace) -> int:
    if not args.jobs and not args.request:
        return _fail("name at least one JOB or --request FILE", 2)
    if args.out is not None and args.out.exists() and not args.force:
        return _fail(f"--out {args.out} exists; pass --force to overwrite it", 2)
    try:
        requests = [_read_request(Path(path)) for path in args.request]
    except (OSError, ValueError) as exc:
        return _fail(str(exc), 2)
    import boto3
    from botocore.exceptions import BotoCoreError, ClientError

    session = boto3.session.Session(region_name=args.region)
    region = session.region_name or "us-east-1"
    described: list[tuple[str, dict[str, Any], list[tuple[str, str]]]] = []
    if args.jobs:
        try:
            client = session.client("sagemaker", region_name=region, endpoint_url=args.endpoint_url)
            for name in args.jobs:
                described.append((f"job {name}", *_describe(client, name)))
        except (BotoCoreError, ClientError, ValueError) as exc:
            return _fail(f"cannot read the training jobs: {exc}", 1)
    sources = [
        *described,
        *((f"request {path}", *read) for path, read in zip(args.request, requests, strict=True)),
    ]
    try:
        cities = _cities(args.cities, sources)
    except ValueError as exc:
        return _fail(str(exc), 2)
    jobs = [
        ImportedJob(city, request, source, tuple(left_out))
        for city, (source, request, left_out) in zip(cities, sources, strict=True)
    ]
    if args.jobs or args.quotas_from_account:
        quotas = _account_quotas(session, region, args.endpoint_url, _instance_types(sources))
    else:
        quotas = QuotaReading(why_not="request files only: pass --quotas-from-account to read them")
    draft = draft_spec(jobs, args.fleet or _fleet_name(sources), region, quotas)
    return _write(draft, args, [source for source, _, _ in sources])


def _instance_types(sources: list[tuple[str, dict[str, Any], Any]]) -> list[str]:
    types = ((request.get("ResourceConfig") or {}).get("InstanceType") for _, request, _ in sources)
    return sorted({str(itype) for itype in types if itype})


def _account_quotas(session: Any, region: str, endpoint: str | None, types: list[str]) -> QuotaReading:
    """The account's quotas of ``types`` from Service Quotas, or why they could not be read (the draft then says
    TODO): an import never fails for want of them."""
    from botocore.config import Config
    from botocore.exceptions import BotoCoreError

    from sagemaker_fleet.preflight.quotas import QuotaReadError, read_account_quotas

    if not types:
        return QuotaReading()
    config = Config(connect_timeout=10, read_timeout=30, retries={"mode": "standard", "max_attempts": 3})
    try:
        client = session.client("service-quotas", region_name=region, endpoint_url=endpoint, config=config)
        return QuotaReading(found=read_account_quotas(client, types))
    except QuotaReadError as exc:
        return QuotaReading(why_not=str(exc))
    except (BotoCoreError, ValueError) as exc:
        return QuotaReading(why_not=f"Service Quotas is out of reach: {exc}")


def _describe(client: Any, name: str) -> tuple[dict[str, Any], list[tuple[str, str]]]:
    description = client.describe_training_job(TrainingJobName=name)
    tags: list[dict[str, str]] = []
    token = None
    while True:
        page = client.list_tags(
            ResourceArn=description["TrainingJobArn"], **({"NextToken": token} if token else {})
        )
        tags += page.get("Tags") or []
        token = page.get("NextToken")
        if not token:
            break
    members = BOTOCORE_MODEL.load().request.members
    request, read_only = request_of_description(description, tags, members)
    return request, read_only


#: Keys of request files that are not CreateTrainingJob's but that a known builder writes beside it: left out, why.
SDK_ONLY_KEYS = {
    "S3Operations": (
        "the SageMaker SDK v2's upload of your source directory, done by its Airflow operator before it creates "
        "the job; upload that archive once to the S3 key it names (the sagemaker_submit_directory hyperparameter "
        "points at it)"
    ),
}


def _read_request(path: Path) -> tuple[dict[str, Any], list[tuple[str, str]]]:
    """The request a file holds, and the keys left out of it (SDK_ONLY_KEYS) with why."""
    text = path.read_text(encoding="utf-8")
    try:
        data = json.loads(text) if path.suffix.lower() == ".json" else yaml.safe_load(text)
    except (json.JSONDecodeError, yaml.YAMLError) as exc:
        raise ValueError(f"--request {path}: not JSON or YAML: {exc}") from None
    if not isinstance(data, dict):
        raise ValueError(f"--request {path}: a CreateTrainingJob request is a mapping of AWS's field names")
    left_out = [(key, SDK_ONLY_KEYS[key]) for key in data if key in SDK_ONLY_KEYS]
    data = {key: value for key, value in data.items() if key not in SDK_ONLY_KEYS}
    unknown = sorted(set(data) - set(BOTOCORE_MODEL.load().request.members))
    if unknown:
        raise ValueError(f"--request {path}: not CreateTrainingJob fields: {', '.join(unknown)}")
    return data, left_out


def _cities(given: str | None, sources: list[tuple[str, dict[str, Any], Any]]) -> list[str]:
    if given is not None:
        names = [name.strip() for name in given.split(",") if name.strip()]
        if len(names) != len(sources):
            raise ValueError(
                f"--cities names {len(names)} cities for {len(sources)} jobs; name one per job, in order"
            )
    else:
        names = _cities_of_jobs([request for _, request, _ in sources])
    bad = [name for name in names if not CITY_RE.fullmatch(name)]
    if bad:
        raise ValueError(
            f"not a city name: {', '.join(bad)}; use lowercase letters, digits and '-' (--cities)"
        )
    if len(set(names)) != len(names):
        raise ValueError(f"two jobs map to one city ({', '.join(names)}); name each job's city with --cities")
    return names


def _cities_of_jobs(requests: list[dict[str, Any]]) -> list[str]:
    """Each job's city without --cities: its sagemaker-fleet:city tag, else the city guessed from the names of
    the jobs without one (said on stderr, as is a guess that cannot be made), else its whole name."""
    tagged = [_city_tag(request) for request in requests]
    names = [str(request.get("TrainingJobName") or "") for request in requests]
    untagged = [index for index, tag in enumerate(tagged) if tag is None and names[index]]
    guessed: dict[int, str] = {}
    if len(untagged) >= 2:
        guess = guess_cities([names[index] for index in untagged])
        if guess.cities is None:
            print(
                f"note: no city guessed from the job names: {guess.why_not}; each city is named after its whole "
                "job name (name them with --cities)",
                file=sys.stderr,
            )
        else:
            guessed = dict(zip(untagged, guess.cities, strict=True))
            print(
                f"cities guessed from the job names: {', '.join(guess.cities)} (name them with --cities to "
                "choose others)",
                file=sys.stderr,
            )
    return [
        tagged[index] or guessed.get(index) or city_of_name(names[index]) for index in range(len(requests))
    ]


def _city_tag(request: dict[str, Any]) -> str | None:
    tags = {tag.get("Key"): tag.get("Value") for tag in request.get("Tags") or ()}
    value = tags.get(CITY_TAG)
    return city_of_name(str(value)) if value else None


def _fleet_name(sources: list[tuple[str, dict[str, Any], Any]]) -> str:
    names = [str(request.get("TrainingJobName") or "") for _, request, _ in sources]
    head = re.sub(r"[^a-z0-9]", "", (names[0].split("-", 1)[0] if names and names[0] else "").lower())[:20]
    return head if head and FLEET_RE.fullmatch(head) else "imported"


def _write(draft: Draft, args: argparse.Namespace, sources: list[str]) -> int:
    header = [
        f"Drafted by `sagemaker-fleet import` from {', '.join(sources)}.",
        "Check it with `sagemaker-fleet validate` and `sagemaker-fleet request SPEC CITY` (docs/guides/bring-your-job.md).",
    ]
    text = draft.yaml(header)
    for line in draft.left_out_lines():
        print(f"left out: {line}", file=sys.stderr)
    for line in draft.notes:
        print(f"note: {line}", file=sys.stderr)
    for line in draft.todo:
        print(f"TODO: {line}", file=sys.stderr)
    try:
        parse_fleet_spec(text, source=str(args.out or "<draft>"), model=BOTOCORE_MODEL)
    except FleetSpecError as exc:
        print(f"note: the draft needs edits before it validates:\n{exc}", file=sys.stderr)
    if args.out is None:
        sys.stdout.write(text)
        return 0
    try:
        args.out.write_text(text, encoding="utf-8")
    except OSError as exc:
        return _fail(f"--out {args.out}: {exc.strerror}", 2)
    print(
        f"wrote {args.out}: fleet {draft.spec['fleet']}, {len(draft.spec['cities'])} cities", file=sys.stderr
    )
    return 0
