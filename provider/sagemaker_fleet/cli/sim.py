"""``sagemaker-fleet sim serve``: the simulated SageMaker endpoint (CONTRACT §4).

Prints the endpoint URL on its first line, then serves until SIGINT/SIGTERM. Point boto3, aiobotocore or the
Airflow AWS connection at it with ``endpoint_url`` / ``AWS_ENDPOINT_URL`` (any credentials, e.g. ``testing``).
"""

from __future__ import annotations

import argparse
import signal
import sys
import threading
from dataclasses import replace
from types import FrameType, MappingProxyType
from typing import TYPE_CHECKING

from sagemaker_fleet.spec import FleetSpecError, InstanceQuota, load_fleet_spec

if TYPE_CHECKING:
    from sagemaker_fleet.sim.server import ServerSettings


def add_arguments(parser: argparse.ArgumentParser) -> None:
    sub = parser.add_subparsers(dest="sim_command", required=True, metavar="SUBCOMMAND")
    serve = sub.add_parser("serve", help="serve the simulated AWS endpoint on loopback", description=__doc__)
    serve.add_argument("--host", default="127.0.0.1", help="address to bind (default 127.0.0.1)")
    serve.add_argument("--port", type=int, default=0, help="port (default 0: a free port)")
    serve.add_argument("--speed", type=_positive, default=1.0, help="simulated seconds per wall second")
    serve.add_argument("--seed", type=int, default=0, help="seed of every random draw (default 0)")
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
        "--throttle", type=_share, default=0.0, metavar="SHARE", help="share of calls throttled"
    )
    serve.add_argument("--spot-interruptions-per-hour", type=float, default=None, metavar="RATE")
    serve.add_argument("--spot-discount", type=_share, default=None, metavar="FRACTION")
    serve.add_argument("--default-work-seconds", type=_positive, default=None, metavar="SECONDS")
    serve.add_argument("--no-moto", action="store_true", help="serve only the SageMaker training APIs")
    serve.add_argument("--log-requests", action="store_true", help="log one line per HTTP request")


def run(args: argparse.Namespace) -> int:
    try:
        settings = settings_from_args(args)
    except FleetSpecError as exc:
        print(str(exc), file=sys.stderr)
        return 2
    from sagemaker_fleet.sim.server import SimulatorServer

    server = SimulatorServer(settings, log_requests=args.log_requests).start()
    print(server.url, flush=True)
    stopped = threading.Event()

    def _stop(signum: int, frame: FrameType | None) -> None:
        stopped.set()

    signal.signal(signal.SIGINT, _stop)
    signal.signal(signal.SIGTERM, _stop)
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
    return 0


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
        seed=args.seed, work=work, quotas=MappingProxyType(quotas), throttle_share=args.throttle
    )
    spot = config.spot
    if args.spot_interruptions_per_hour is not None:
        spot = replace(spot, interruptions_per_hour=args.spot_interruptions_per_hour)
    if args.spot_discount is not None:
        spot = replace(spot, discount=args.spot_discount)
    config = replace(config, spot=spot)
    return ServerSettings(
        host=args.host, port=args.port, speed=args.speed, config=config, with_moto=not args.no_moto
    )


def _quota(text: str) -> tuple[str, InstanceQuota]:
    try:
        instance_type, numbers = text.split("=", 1)
        parts = [int(p) for p in numbers.split(":")]
        if not 2 <= len(parts) <= 3 or min(parts) < 0:
            raise ValueError
    except ValueError:
        raise argparse.ArgumentTypeError(
            f"{text!r}: write TYPE=INSTANCES:WARM_POOLS[:SPOT], e.g. ml.m5.xlarge=20:8:20"
        ) from None
    spot = parts[2] if len(parts) == 3 else None
    return instance_type, InstanceQuota(instances=parts[0], warm_pools=parts[1], spot_instances=spot)


def _positive(text: str) -> float:
    value = float(text)
    if value <= 0:
        raise argparse.ArgumentTypeError(f"{text!r}: must be > 0")
    return value


def _share(text: str) -> float:
    value = float(text)
    if not 0.0 <= value <= 1.0:
        raise argparse.ArgumentTypeError(f"{text!r}: must be a fraction between 0 and 1")
    return value
