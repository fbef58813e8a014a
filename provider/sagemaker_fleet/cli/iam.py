"""``sagemaker-fleet iam FLEET.yaml [--account-id ID] [--part airflow|view|pilot|all] [--format text|json]
[--describe-fleet NAME ...]``: the fleet's least-privilege IAM policies, generated from its spec.

Text: each part's policy with what it is for and what it cannot narrow (``#`` lines). JSON: the policy document
of one part, as IAM takes it (``aws iam put-role-policy --policy-document file://…``), or, for ``--part all``, an
object of the three by part. A policy longer than a managed policy may be is a warning on stderr. Exit 2 when the
spec does not read or does not say which account (the message names the fix).
"""

from __future__ import annotations

import argparse
import json
import sys

from sagemaker_fleet.cli.inputs import INPUT_ERRORS, load_spec, refused
from sagemaker_fleet.iam import PARTS, PolicyScope, PolicyScopeError, policy_part
from sagemaker_fleet.iam.statement import MANAGED_POLICY_MAX_CHARS, PolicyPart

#: What refuses the input: the spec's errors, and a scope the spec and flags do not give.
REFUSED: tuple[type[Exception], ...] = (*INPUT_ERRORS, PolicyScopeError)

HELP = (
    "print the fleet's least-privilege IAM policies: Airflow's principal (its jobs only, CreateTrainingJob within "
    "the spec), the Fleet view's, and the command line's"
)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.description = HELP
    parser.add_argument("spec", metavar="FLEET.yaml", help="the fleet spec")
    parser.add_argument(
        "--account-id",
        metavar="ID",
        default=None,
        help="the 12-digit account the jobs run in (default: the account of the spec's execution roles)",
    )
    parser.add_argument(
        "--part",
        choices=(*PARTS, "all"),
        default="all",
        help="airflow: the triggerer's and workers' identity; view: the api-server's (Fleet view); pilot: a "
        "person running preflight and report; all: the three",
    )
    parser.add_argument(
        "--format",
        choices=("text", "json"),
        default="text",
        help="text: the policies with notes; json: the policy document (an object by part for --part all)",
    )
    parser.add_argument(
        "--describe-fleet",
        metavar="NAME",
        action="append",
        default=[],
        help="another fleet of the account whose jobs this fleet's runs and view may describe (their "
        "environment and hyperparameters too): their capacity is then counted and their idle pools taken; "
        "repeat for several",
    )


def run(args: argparse.Namespace) -> int:
    try:
        spec = load_spec(args.spec)
        scope = PolicyScope.of(spec, args.account_id, tuple(args.describe_fleet))
        names = list(PARTS) if args.part == "all" else [args.part]
        parts = [policy_part(name, spec, scope) for name in names]
    except REFUSED as exc:
        return refused(exc, args.spec)
    for part in parts:
        if part.size() > MANAGED_POLICY_MAX_CHARS:
            print(
                f"warning: the {part.name} policy has {part.size():,} characters (whitespace not counted), more "
                f"than a managed policy's {MANAGED_POLICY_MAX_CHARS:,}: attach it inline (a role's inline policies "
                "hold 10,240 in all) or split its statements",
                file=sys.stderr,
            )
    if args.format == "json":
        documents = {part.name: part.document() for part in parts}
        print(json.dumps(documents if args.part == "all" else documents[args.part], indent=2))
    else:
        print("\n\n".join(_text(part, scope) for part in parts))
    return 0


def _text(part: PolicyPart, scope: PolicyScope) -> str:
    lines = [f"# {part.name}: {part.principal} (account {scope.account}, {scope.region})"]
    lines += [f"# - {note}" for note in part.notes]
    return "\n".join(lines) + "\n" + json.dumps(part.document(), indent=2)
