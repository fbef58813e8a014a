"""``sagemaker-fleet models FLEET.yaml``: each city's champion in the model registry, its metric and age, and the
last model the fleet registered for it with the gate's decision (docs/guides/model-registry.md).

Reads the registry (AWS, or the simulator through ``--endpoint-url`` / ``AWS_ENDPOINT_URL``): one listing of each
city's group and a DescribeModelPackage or two, a few cities at a time. Exit codes: 0 printed; 1 the registry could
not be read; 2 the spec is invalid or registers no city.
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import sys
from typing import TYPE_CHECKING, Any

from sagemaker_fleet.cli.argtypes import endpoint_url, workers
from sagemaker_fleet.cli.streams import library_logs_to_stderr
from sagemaker_fleet.fleetspec import FleetSpecError, load_fleet_spec
from sagemaker_fleet.jobs.duration_text import duration
from sagemaker_fleet.registry.registration import DEFAULT_REGISTER_WORKERS
from sagemaker_fleet.registry.standing import CityStanding, standings

if TYPE_CHECKING:
    from collections.abc import Sequence


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("spec", metavar="FLEET.yaml", help="the fleet spec (with register:)")
    parser.add_argument(
        "--endpoint-url",
        type=endpoint_url,
        default=None,
        help="SageMaker endpoint, e.g. the simulator's (default: AWS_ENDPOINT_URL or AWS itself)",
    )
    parser.add_argument("--json", action="store_true", help="print JSON: one object per city")
    parser.add_argument(
        "--workers",
        type=workers,
        default=DEFAULT_REGISTER_WORKERS,
        help=f"cities read at once, 1-64 (default {DEFAULT_REGISTER_WORKERS})",
    )


def run(args: argparse.Namespace) -> int:
    with library_logs_to_stderr():  # the table or the JSON alone on stdout
        return _run(args)


def _run(args: argparse.Namespace) -> int:
    from sagemaker_fleet.hooks.request_model import BOTOCORE_MODEL

    try:
        spec = load_fleet_spec(args.spec, BOTOCORE_MODEL)
    except FleetSpecError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    cities = [
        (city.name, city.register.group_name(spec.fleet, city.name), city.register.metric)
        for city in spec.cities
        if city.register is not None
    ]
    if not cities:
        print(
            f"error: {args.spec}: no city registers its models; add a `register:` block "
            "(docs/guides/model-registry.md)",
            file=sys.stderr,
        )
        return 2
    import boto3
    from botocore.config import Config
    from botocore.exceptions import BotoCoreError, ClientError

    config = Config(retries={"mode": "adaptive", "max_attempts": 10})
    try:
        client: Any = boto3.session.Session(region_name=spec.region).client(
            "sagemaker", endpoint_url=args.endpoint_url, config=config
        )
        found = standings(client, cities, args.workers)
    except ValueError as exc:  # botocore refuses an endpoint, e.g. a bad AWS_ENDPOINT_URL
        print(f"error: {exc}; set --endpoint-url (or AWS_ENDPOINT_URL) to an http(s) URL", file=sys.stderr)
        return 2
    except (BotoCoreError, ClientError) as exc:
        print(f"error: cannot read the model registry: {exc}", file=sys.stderr)
        return 1
    # an endpoint whose clock runs ahead (the simulator at speed) must not make a champion younger than zero
    now = max([dt.datetime.now(dt.UTC), *(s.champion_created for s in found if s.champion_created)])
    if args.json:
        print(json.dumps([standing.to_json(now) for standing in found], indent=1))
    else:
        for line in table(found, cities[0][2], now):
            print(line)
    return 0


def table(found: Sequence[CityStanding], metric: str, now: dt.datetime) -> list[str]:
    """A line per city: its champion, value and age, and the last model's decision and value."""
    rows = [("city", "champion", metric, "age", "last model")]
    for standing in found:
        if not standing.group_exists:
            rows.append((standing.city, "—", "", "", f"no group {standing.group} yet"))
            continue
        age = standing.age(now)
        last = "—"
        if standing.last is not None:
            value = f" {standing.last_value:g}" if standing.last_value is not None else ""
            now_status = (
                f" (now {standing.last_status})"
                if standing.last_status and standing.last_status != _status_of(standing.last_decision)
                else ""
            )
            last = f"{standing.last}: {standing.last_decision}{value}{now_status}"
        rows.append(
            (
                standing.city,
                standing.champion or "none Approved",
                f"{standing.champion_value:g}" if standing.champion_value is not None else "",
                duration(age) if age is not None else "",
                last,
            )
        )
    widths = [max(len(row[i]) for row in rows) for i in range(4)]
    return [
        "  ".join(cell.ljust(width) for cell, width in zip(row, [*widths, 0], strict=True)).rstrip()
        for row in rows
    ]


def _status_of(decision: str | None) -> str | None:
    return {"approved": "Approved", "rejected": "Rejected", "pending": "PendingManualApproval"}.get(
        decision or ""
    )
