"""``sagemaker-fleet validate FLEET.yaml``: exit 0 with a one-line summary, or exit 2 with every error."""

from __future__ import annotations

import argparse
import sys
from collections import Counter

from sagemaker_fleet.cli.inputs import add_connection_argument, load_spec, refused
from sagemaker_fleet.fleetspec import FleetSpecError
from sagemaker_fleet.plan.advice import fleet_advice


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("spec", metavar="FLEET.yaml", help="the fleet spec to check")
    add_connection_argument(parser)


def run(args: argparse.Namespace) -> int:
    try:
        spec = load_spec(args.spec, conn_id=args.aws_conn_id)
    except FleetSpecError as exc:
        return refused(exc)
    for note in fleet_advice(
        spec
    ):  # advice from AWS's warm-pool best practices (docs/concepts/warm-pools.md)
        print(f"warning: {note}", file=sys.stderr)
    spot = sum(1 for city in spec.cities if city.spot is not None)
    types = Counter(city.instance_type for city in spec.cities)
    roles = len({city.role_arn for city in spec.cities})
    mix = ", ".join(f"{count}× {itype}" for itype, count in sorted(types.items()))
    print(
        f"{args.spec}: fleet {spec.fleet} OK — {len(spec.cities)} cities ({spot} spot), {roles} role(s), {mix}"
    )
    return 0
