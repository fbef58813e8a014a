"""``sagemaker-fleet plan FLEET.yaml [--history H.json] [--run-key K] [--format table|json]``.

Prints the pool-aware plan (the plan JSON by default, or a table). Exit 0 with the plan; exit 2 with
every error on stderr when the spec, the run key, the history file or the quotas do not allow a plan.
"""

from __future__ import annotations

import argparse
import sys

from sagemaker_fleet.cli.inputs import (
    INPUT_ERRORS,
    add_connection_argument,
    add_run_key_argument,
    load_history,
    load_spec,
    refused,
    run_key_of,
)
from sagemaker_fleet.plan import FleetPlan, plan_fleet
from sagemaker_fleet.plan.render import render_table


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("spec", metavar="FLEET.yaml", help="the fleet spec to plan")
    parser.add_argument(
        "--history",
        metavar="H.json",
        help="a previous run's report.json: its measured training seconds replace expected_seconds",
    )
    add_run_key_argument(parser)
    add_connection_argument(parser)
    parser.add_argument(
        "--format", choices=("json", "table"), default="json", help="plan JSON (default) or a readable table"
    )


def _build(args: argparse.Namespace) -> FleetPlan:
    spec = load_spec(args.spec, conn_id=args.aws_conn_id)
    return plan_fleet(spec, run_key_of(args), load_history(args.history, spec))


def run(args: argparse.Namespace) -> int:
    try:
        plan = _build(args)
    except INPUT_ERRORS as exc:
        return refused(exc, args.spec)
    for warning in plan.warnings:
        print(f"warning: {warning}", file=sys.stderr)
    print(render_table(plan) if args.format == "table" else plan.dumps(indent=2))
    return 0
