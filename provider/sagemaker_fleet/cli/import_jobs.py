"""``sagemaker-fleet import JOB [JOB ...]`` and ``import --request FILE [...]``: a fleet spec drafted from jobs you
already run (docs/guides/bring-your-job.md).

Jobs are read with DescribeTrainingJob and ListTags (DescribeTrainingJob carries no tags) through the same endpoint
rules as ``report``: ``--endpoint-url``, else ``AWS_ENDPOINT_URL``, else AWS. The drafting itself is pure
(:mod:`sagemaker_fleet.fleetspec.draft`); the draft is checked like any spec before it is written.
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
from sagemaker_fleet.fleetspec.draft import Draft, ImportedJob, draft_spec, request_of_description
from sagemaker_fleet.fleetspec.formats import CITY_RE, FLEET_RE
from sagemaker_fleet.fleetspec.names import CITY_TAG
from sagemaker_fleet.hooks.request_model import BOTOCORE_MODEL

HELP = "draft a fleet spec from training jobs you already run, or from CreateTrainingJob request files"
EPILOG = (
    "How jobs map to cities: the i-th city of --cities is the i-th job, JOBs first, then --request files, in the "
    "order given; without --cities a job's city is its sagemaker-fleet:city tag, else its name (lowercased). "
    "Where the spec goes: to --out FILE (refused if it exists, unless --force), else to standard output. What "
    "every job shares goes in the fleet-level `job:`, what differs in each city's `job:`, with {city} where the "
    "city's name appeared; every field left out (the provider's own, read-only ones, SageMaker's defaults) is "
    "listed at the end of the spec and on standard error."
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
    draft = draft_spec(jobs, args.fleet or _fleet_name(sources), region)
    return _write(draft, args, [source for source, _, _ in sources])


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
        names = [_city_of(request) for _, request, _ in sources]
    bad = [name for name in names if not CITY_RE.fullmatch(name)]
    if bad:
        raise ValueError(
            f"not a city name: {', '.join(bad)}; use lowercase letters, digits and '-' (--cities)"
        )
    if len(set(names)) != len(names):
        raise ValueError(f"two jobs map to one city ({', '.join(names)}); name each job's city with --cities")
    return names


def _city_of(request: dict[str, Any]) -> str:
    tags = {tag.get("Key"): tag.get("Value") for tag in request.get("Tags") or ()}
    name = str(tags.get(CITY_TAG) or request.get("TrainingJobName") or "city")
    return re.sub(r"[^a-z0-9-]+", "-", name.lower()).strip("-") or "city"


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
