"""``sagemaker-fleet sim serve``: the simulated SageMaker endpoint (docs/quickstart.md).

Prints the endpoint URL on its first line, then serves until SIGINT/SIGTERM. Point boto3, aiobotocore or the
Airflow AWS connection at it with ``endpoint_url`` / ``AWS_ENDPOINT_URL`` (any credentials, e.g. ``testing``).
"""

from __future__ import annotations

import argparse
import errno
import signal
import socket
import sys
import threading
from dataclasses import replace
from types import FrameType, MappingProxyType
from typing import TYPE_CHECKING

from sagemaker_fleet.cli.argtypes import account_id, non_negative, port, positive, share
from sagemaker_fleet.cli.extras import extra_missing, is_sim_extra_error, missing_sim_module
from sagemaker_fleet.cli.inputs import refused
from sagemaker_fleet.fleetspec import FleetSpecError, InstanceQuota, load_fleet_spec
from sagemaker_fleet.fleetspec.formats import INSTANCE_TYPE_RE
from sagemaker_fleet.fleetspec.model import QUOTA_MAX

if TYPE_CHECKING:
    from sagemaker_fleet.sim.server import ServerSettings, SimulatorServer


def add_arguments(parser: argparse.ArgumentParser) -> None:
    from sagemaker_fleet.sim.config import (  # the defaults the help states, from their one definition
        SimConfig,
        SpotMarketConfig,
    )
    from sagemaker_fleet.sim.workload import WorkModel

    spot, work = SpotMarketConfig(), WorkModel()
    sub = parser.add_subparsers(dest="sim_command", required=True, metavar="SUBCOMMAND")
    serve = sub.add_parser("serve", help="serve the simulated AWS endpoint on loopback", description=__doc__)
    serve.add_argument("--host", default="127.0.0.1", help="address to bind (default 127.0.0.1)")
    serve.add_argument("--port", type=port, default=0, help="port 0-65535 (default 0: a free port)")
    serve.add_argument("--speed", type=positive, default=1.0, help="simulated seconds per wall second")
    serve.add_argument("--seed", type=int, default=0, help="seed of every random draw (default 0)")
    serve.add_argument(
        "--account-id",
        type=account_id,
        default=None,
        metavar="ID",
        help=f"the simulated AWS account, 12 digits (default {SimConfig().account_id}): the account of its ARNs "
        "and of everything moto keeps, e.g. the account your fleet spec's role_arn names",
    )
    serve.add_argument(
        "--fleet",
        action="append",
        default=[],
        metavar="FLEET.yaml",
        help="fleet spec whose cities' expected_seconds and quotas the simulator uses (repeatable)",
    )
    serve.add_argument(
        "--quota",
        action="append",
        default=[],
        type=_quota,
        metavar="TYPE=INSTANCES:WARM_POOLS[:SPOT]",
        help="quota of one instance type, e.g. ml.m5.xlarge=20:8:20 (repeatable; wins over fleet specs)",
    )
    serve.add_argument(
        "--throttle", type=share, default=0.0, metavar="SHARE", help="share of calls throttled"
    )
    serve.add_argument(
        "--spot-interruptions-per-hour",
        type=non_negative,
        default=None,
        metavar="RATE",
        help=f"mean interruptions per hour of a running spot job, 0 for none (default {spot.interruptions_per_hour:g})",
    )
    serve.add_argument(
        "--spot-discount",
        type=share,
        default=None,
        metavar="FRACTION",
        help=f"spot price saving against on-demand, 0..1, each job's drawn within ±{spot.discount_spread:g} of it "
        f"(default {spot.discount:g})",
    )
    serve.add_argument(
        "--default-work-seconds",
        type=positive,
        default=None,
        metavar="SECONDS",
        help=f"training seconds of a job whose city sets no expected_seconds (default {work.default_seconds:g})",
    )
    serve.add_argument(
        "--refuse-keep-alive-while-running",
        action="store_true",
        help="answer UpdateTrainingJob's keep-alive change of a running job with ValidationException, as AWS "
        "may (undocumented; default: accept it, applied when the job ends)",
    )
    provision = serve.add_mutually_exclusive_group()
    provision.add_argument(
        "--provision",
        action="store_true",
        default=None,
        help="create in the simulated account what each --fleet spec names: its execution roles, buckets, an "
        "object under every city's train_s3_uri and its ECR images (again after each reset), so that a fleet DAG "
        "and 'sagemaker-fleet preflight' find them (the default with --fleet, unless --no-moto)",
    )
    provision.add_argument(
        "--no-provision",
        dest="provision",
        action="store_false",
        help="create nothing the --fleet specs name: only their durations and quotas are used",
    )
    serve.add_argument("--no-moto", action="store_true", help="serve only the SageMaker training APIs")
    serve.add_argument("--log-requests", action="store_true", help="log one line per HTTP request")
    from sagemaker_fleet.cli import sim_env

    sim_env.add_arguments(
        sub.add_parser("env", help=sim_env.HELP, description=sim_env.DESCRIPTION),
    )


def run(args: argparse.Namespace) -> int:
    if args.sim_command == "env":
        from sagemaker_fleet.cli import sim_env

        return sim_env.run(args)
    if args.provision and (not args.fleet or args.no_moto):
        why = "give the fleets with --fleet FLEET.yaml" if not args.fleet else "it needs moto: drop --no-moto"
        print(f"error: --provision creates what the --fleet specs name; {why}", file=sys.stderr)
        return 2
    missing = missing_sim_module(with_moto=not args.no_moto)
    if missing is not None:
        return extra_missing("sim serve", "sim", missing)
    try:
        return _serve(args)
    except ImportError as exc:  # a part of the extra found but broken, or one the check above does not name
        if not is_sim_extra_error(exc):
            raise
        return extra_missing("sim serve", "sim", exc.name)


def _serve(args: argparse.Namespace) -> int:
    """Start the endpoint from the flags, print its URL and serve until stopped."""
    try:
        settings = settings_from_args(args)
    except FleetSpecError as exc:
        return refused(exc)
    problem = cannot_listen(settings.host, settings.port)
    if problem is not None:
        print(f"error: --host {settings.host} --port {settings.port}: {problem}", file=sys.stderr)
        return 2
    from sagemaker_fleet.sim.server import SimulatorServer

    try:
        server = SimulatorServer(settings, log_requests=args.log_requests).start()
    except SystemExit:  # werkzeug exits when it cannot bind (taken since the check above): say what to do
        print(
            f"error: --port {settings.port}: cannot listen there; pick another port (0 picks a free one)",
            file=sys.stderr,
        )
        return 2
    stopped = stop_on_signals()  # before the URL: whoever reads it may stop the server at once
    print(server.url, flush=True)
    for line in server.not_provisioned:
        print(f"warning: not provisioned: {line}", file=sys.stderr)
    serve_until_stopped(server, settings, stopped)
    return 0


def cannot_listen(host: str, port: int) -> str | None:
    """Why the endpoint could not listen on ``host:port``, or None: checked before starting so that a taken port
    or an unknown host is one line and exit 2, not a server that dies after printing its URL."""
    try:
        family, kind, proto, _, address = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)[0]
        with socket.socket(family, kind, proto) as probe:
            probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
            probe.bind(address)
    except socket.gaierror as exc:
        return f"unknown host ({exc.strerror}); use an address such as 127.0.0.1"
    except OSError as exc:
        if exc.errno == errno.EADDRINUSE:
            return "the port is in use by another program; stop it or pick another port (0 picks a free one)"
        return f"cannot listen there ({exc.strerror}); use a local address such as 127.0.0.1 and a free port"
    except (UnicodeError, ValueError) as exc:
        return f"not a host name ({exc}); use an address such as 127.0.0.1"
    return None


def stop_on_signals() -> threading.Event:
    """An event that SIGINT or SIGTERM sets from now on (installed before the server's URL is printed, so a caller
    that stops the server as soon as it has read the URL stops it cleanly)."""
    stopped = threading.Event()

    def _stop(signum: int, frame: FrameType | None) -> None:
        stopped.set()

    signal.signal(signal.SIGINT, _stop)
    signal.signal(signal.SIGTERM, _stop)
    return stopped


def serve_until_stopped(
    server: SimulatorServer, settings: ServerSettings, stopped: threading.Event | None = None
) -> None:
    """Serve until SIGINT/SIGTERM (``stopped``: the event :func:`stop_on_signals` gave), then stop the server."""
    if stopped is None:
        stopped = stop_on_signals()
    config = settings.config
    print(
        f"sagemaker-fleet sim: speed {settings.speed}×, seed {config.seed}, "
        f"{len(config.quotas)} quota(s), admin at {server.url}/_sim/state; Ctrl-C stops",
        file=sys.stderr,
        flush=True,
    )
    while not stopped.wait(0.5):
        pass
    server.stop()


def settings_from_args(args: argparse.Namespace) -> ServerSettings:
    from sagemaker_fleet.sim.config import SimConfig
    from sagemaker_fleet.sim.server import ServerSettings
    from sagemaker_fleet.sim.workload import WorkModel

    fleets = [load_fleet_spec(path) for path in args.fleet]
    quotas: dict[str, InstanceQuota] = {}
    for fleet in fleets:
        if fleet.quotas_given:
            quotas.update(fleet.quotas)
    quotas.update(dict(args.quota))
    work = WorkModel.from_fleets(fleets)
    if args.default_work_seconds is not None:
        work = replace(work, default_seconds=args.default_work_seconds)
    config = SimConfig(
        seed=args.seed,
        work=work,
        quotas=MappingProxyType(quotas),
        throttle_share=args.throttle,
        refuse_keep_alive_while_running=args.refuse_keep_alive_while_running,
    )
    if args.account_id is not None:
        config = replace(config, account_id=args.account_id)
    spot = config.spot
    if args.spot_interruptions_per_hour is not None:
        spot = replace(spot, interruptions_per_hour=args.spot_interruptions_per_hour)
    if args.spot_discount is not None:
        spot = replace(spot, discount=args.spot_discount)
    config = replace(config, spot=spot)
    return ServerSettings(
        host=args.host,
        port=args.port,
        speed=args.speed,
        config=config,
        with_moto=not args.no_moto,
        # by default what the fleets name is made, so that their DAGs run as they are (buckets, data, roles)
        provision=tuple(fleets) if args.provision or (args.provision is None and not args.no_moto) else (),
    )


def _quota(text: str) -> tuple[str, InstanceQuota]:
    try:
        instance_type, numbers = text.split("=", 1)
        parts = [int(p) for p in numbers.split(":")]
        if (
            not INSTANCE_TYPE_RE.fullmatch(instance_type)
            or not 2 <= len(parts) <= 3
            or min(parts) < 0
            or max(parts) > QUOTA_MAX
        ):
            raise ValueError
    except ValueError:
        raise argparse.ArgumentTypeError(
            f"{text!r}: write TYPE=INSTANCES:WARM_POOLS[:SPOT] with counts 0-{QUOTA_MAX}, e.g. ml.m5.xlarge=20:8:20"
        ) from None
    spot = parts[2] if len(parts) == 3 else None
    return instance_type, InstanceQuota(instances=parts[0], warm_pools=parts[1], spot_instances=spot)
