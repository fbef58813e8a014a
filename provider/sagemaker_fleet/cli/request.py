"""``sagemaker-fleet request FLEET.yaml CITY [--run-key K] [--attempt N] [--spot | --on-demand]``.

Prints the CreateTrainingJob request (JSON) the city's task would send for that submission: what to check before a
first run, and what ``import`` round-trips. The keep-alive is the plan's for the city (``plan`` shows the lanes);
the Airflow try tag (``sagemaker-fleet:airflow-try``) is the one field only a running task knows, so it is left out.
"""

from __future__ import annotations

import argparse
import json

from sagemaker_fleet.cli.inputs import INPUT_ERRORS, add_run_key_argument, load_spec, refused, run_key_of
from sagemaker_fleet.fleetspec.names import MAX_SUBMISSIONS
from sagemaker_fleet.jobs.request import Submission, compile_training_request
from sagemaker_fleet.plan import plan_fleet

HELP = (
    "print the CreateTrainingJob request (JSON) the operator would send for a city: the shorthands, the city's "
    "job: template rendered for the run, and the provider's own fields (job name, keep-alive from the plan, "
    "checkpoints, tags; the Airflow try tag, known only to a running task, is left out)"
)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.description = HELP
    parser.add_argument("spec", metavar="FLEET.yaml", help="the fleet spec")
    parser.add_argument("city", metavar="CITY", help="the city's name in the spec")
    add_run_key_argument(parser)
    parser.add_argument(
        "--attempt",
        type=int,
        default=1,
        metavar="N",
        help=f"the submission: 1 the first, 2-{MAX_SUBMISSIONS} a re-submission (job name suffix -rN)",
    )
    kind = parser.add_mutually_exclusive_group()
    kind.add_argument(
        "--spot", dest="spot", action="store_const", const=True, help="a managed-spot attempt (a spot city)"
    )
    kind.add_argument(
        "--on-demand",
        dest="spot",
        action="store_const",
        const=False,
        help="an on-demand attempt (a spot city's fallback)",
    )


def run(args: argparse.Namespace) -> int:
    try:
        spec = load_spec(args.spec)
        run_key = run_key_of(args)
        city = spec.city(args.city)
    except KeyError:
        names = ", ".join(city.name for city in spec.cities[:10])
        return refused(
            ValueError(f"no city {args.city!r} in fleet {spec.fleet}; its cities: {names}, …"), args.spec
        )
    except INPUT_ERRORS as exc:
        return refused(exc, args.spec)
    if args.spot and city.spot is None:
        return refused(ValueError(f"city {city.name} has no `spot:` settings; leave out --spot"), args.spec)
    if not 1 <= args.attempt <= MAX_SUBMISSIONS:
        return refused(ValueError(f"--attempt {args.attempt}: use 1-{MAX_SUBMISSIONS}"), args.spec)
    try:
        keep_alive = plan_fleet(spec, run_key).job(city.name).keep_alive_seconds
    except INPUT_ERRORS as exc:
        return refused(exc, args.spec)
    spot = args.spot if args.spot is not None else city.spot is not None
    submission = Submission(
        city.name, run_key, args.attempt, spot=spot, keep_alive_seconds=0 if spot else keep_alive
    )
    print(json.dumps(compile_training_request(spec, city, submission), indent=2, ensure_ascii=False))
    return 0
