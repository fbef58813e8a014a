"""``sagemaker-fleet sim env``: the environment that points Airflow (and this command line) at a running simulator.

Prints ``export`` lines for a shell to ``eval``: the ``aws_default`` connection (``AIRFLOW_CONN_AWS_DEFAULT``) with
the simulator's URL and the fleet's region, and the standard AWS variables, so that ``airflow dags test`` and
``sagemaker-fleet`` commands talk to the simulator in the fleet's own region and nobody writes a connection by hand.
It waits until the simulator answers (``sim serve … &`` may still be starting), so the next command finds it::

    sagemaker-fleet sim serve --port 4566 --speed 40 --fleet dags/fleets/bakery.yaml &
    eval "$(sagemaker-fleet sim env --port 4566 --fleet dags/fleets/bakery.yaml)"
"""

from __future__ import annotations

import argparse
import json
import shlex
import sys
import time
import urllib.error
import urllib.request

from sagemaker_fleet.cli.argtypes import port, positive
from sagemaker_fleet.cli.inputs import refused
from sagemaker_fleet.fleetspec import FleetSpecError, load_fleet_spec

HELP = "print the export lines that point Airflow's aws_default connection at a running simulator"
DESCRIPTION = (
    "Print export lines for a shell to eval: the aws_default connection (AIRFLOW_CONN_AWS_DEFAULT) with the "
    "simulator's URL and the fleet's region, and the standard AWS variables, so that airflow dags test and the "
    "sagemaker-fleet commands talk to the simulator in the fleet's own region. Waits until the simulator answers: "
    'eval "$(sagemaker-fleet sim env --port 4566 --fleet FLEET.yaml)" right after "sim serve ... &".'
)
#: The simulated account takes any credentials; these are what its examples and moto's use.
CREDENTIALS = "testing"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--host", default="127.0.0.1", help="the simulator's address (default 127.0.0.1)")
    parser.add_argument("--port", type=port, required=True, help="the simulator's port (sim serve --port)")
    parser.add_argument(
        "--fleet",
        action="append",
        default=[],
        metavar="FLEET.yaml",
        help="the fleet spec(s) the simulator serves: the connection's region is theirs (they must agree)",
    )
    parser.add_argument("--region", default=None, help="the region, when no --fleet names it")
    parser.add_argument(
        "--conn-id",
        default="aws_default",
        help="the Airflow connection to define (default aws_default: what the fleet DAGs use)",
    )
    parser.add_argument(
        "--wait",
        type=positive,
        default=60.0,
        metavar="SECONDS",
        help="wait this long for the simulator to answer (default 60)",
    )


def run(args: argparse.Namespace) -> int:
    try:
        regions = {load_fleet_spec(path).region for path in args.fleet}
    except FleetSpecError as exc:
        return refused(exc)
    if args.region is not None:
        regions.add(args.region)
    if len(regions) != 1:
        why = "give --fleet FLEET.yaml (or --region)" if not regions else f"they name {sorted(regions)}"
        print(f"error: sim env: one region for the connection; {why}", file=sys.stderr)
        return 2
    (region,) = regions
    url = f"http://{args.host}:{args.port}"
    if not _answers(url, args.wait):
        print(
            f"error: sim env: nothing answers at {url} after {args.wait:g} s; start it first: "
            f"sagemaker-fleet sim serve --port {args.port} --fleet FLEET.yaml &",
            file=sys.stderr,
        )
        return 1
    connection = {
        "conn_type": "aws",
        "login": CREDENTIALS,
        "password": CREDENTIALS,
        "extra": {"endpoint_url": url, "region_name": region},
    }
    variables = {
        f"AIRFLOW_CONN_{args.conn_id.upper()}": json.dumps(connection),
        "AWS_ENDPOINT_URL": url,
        "AWS_ACCESS_KEY_ID": CREDENTIALS,
        "AWS_SECRET_ACCESS_KEY": CREDENTIALS,
        "AWS_DEFAULT_REGION": region,
    }
    for name, value in variables.items():
        print(f"export {name}={shlex.quote(value)}")
    return 0


def _answers(url: str, wait: float) -> bool:
    """Whether the simulator at ``url`` answers an admin path within ``wait`` seconds."""
    deadline = time.monotonic() + wait
    while True:
        try:
            with urllib.request.urlopen(f"{url}/_sim/calls", timeout=5) as response:  # noqa: S310 - http on loopback
                return bool(response.status == 200)
        except (urllib.error.URLError, OSError):
            if time.monotonic() >= deadline:
                return False
            time.sleep(0.25)
