"""``sagemaker-fleet simulate FLEET.yaml [--strategy planned|naive] [--seed N] [--json] [--compare]``.

Several fleets (``simulate A.yaml B.yaml [--offset B.yaml=SECONDS]``) run on one simulated account:
:mod:`.simulate_account`. One fleet: runs the whole fleet through the simulator engine in virtual time (no Airflow, no HTTP) and prints the simulate
JSON (``--json``) or a readable summary. ``--compare`` runs both strategies with the same seed and shows
them side by side with the ratio naive / planned. The run key defaults to today's date in UTC, as for ``plan``;
the simulated draws follow the job names, so a fixed ``--run-key`` reproduces a result another day. Exit 0 with the result; exit 2 with the errors on stderr when
the spec, the run key, the history file, the quotas or the prices do not allow a run.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path
from typing import TYPE_CHECKING

from sagemaker_fleet.cli.argtypes import share
from sagemaker_fleet.cli.inputs import (
    INPUT_ERRORS,
    add_run_key_argument,
    load_history,
    load_spec,
    refused,
    run_key_of,
)
from sagemaker_fleet.cli.simulate_account import ArgumentError, FleetArgument, offset, offsets_of, run_account
from sagemaker_fleet.cli.simulate_text import ratios, render_comparison, render_summary
from sagemaker_fleet.jobs.errors import CostReportError

if TYPE_CHECKING:
    from sagemaker_fleet.simulate import SimulationResult


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "specs",
        nargs="+",
        metavar="FLEET.yaml[@RUN_KEY]",
        help="the fleet spec to simulate; several run side by side on one simulated account (its quotas the "
        "largest the specs declare); FILE@RUN_KEY gives that run its own run key (a fleet beside a copy of itself)",
    )
    parser.add_argument(
        "--strategy",
        choices=("planned", "naive"),
        default="planned",
        help="follow the planner (default), or the stock operator's pattern (spec order, 600 s keep-alive)",
    )
    parser.add_argument("--seed", type=int, default=7, help="seed of every simulated draw (default 7)")
    add_run_key_argument(parser)
    parser.add_argument(
        "--offset",
        action="append",
        type=offset,
        metavar="FLEET.yaml[@RUN_KEY]=SECONDS",
        help="with several fleets: that run starts SECONDS of simulated time after the first (default 0; repeatable)",
    )
    parser.add_argument("--json", action="store_true", help="print the simulate JSON (docs/quickstart.md)")
    parser.add_argument(
        "--compare", action="store_true", help="run both strategies with the same seed, side by side"
    )
    parser.add_argument(
        "--history", metavar="H.json", help="a previous run's report.json: the planner's durations (planned)"
    )
    parser.add_argument(
        "--report-dir",
        metavar="DIR",
        help="also write the simulated run's cost report (report.json, .csv, .html) there; with --compare "
        "one folder per strategy below it",
    )
    parser.add_argument(
        "--throttle-share",
        type=share,
        default=0.0,
        metavar="X",
        help="share of API calls the simulated endpoint throttles (0..1, default 0)",
    )
    parser.add_argument(
        "--refuse-keep-alive-while-running",
        action="store_true",
        help="the simulated endpoint refuses keep-alive changes of running jobs (ValidationException), as AWS "
        "may: the group's last jobs then keep their pools until the run's poller ends them",
    )


def _simulate(args: argparse.Namespace) -> list[SimulationResult]:
    from sagemaker_fleet.simulate import STRATEGIES, SimulateOptions, simulate_fleet

    fleet = FleetArgument.parse(args.specs[0])
    run_key = fleet.run_key or run_key_of(args)
    offsets_of([fleet], [run_key], args.offset or [])  # an --offset must name it (its value changes nothing)
    spec = load_spec(fleet.path)
    options = SimulateOptions(
        strategy=args.strategy,
        seed=args.seed,
        run_key=run_key,
        history=load_history(args.history, spec),
        throttle_share=args.throttle_share,
        refuse_keep_alive_while_running=args.refuse_keep_alive_while_running,
    )
    strategies = STRATEGIES if args.compare else (args.strategy,)
    return [simulate_fleet(spec, options.with_strategy(strategy)) for strategy in strategies]


def run(args: argparse.Namespace) -> int:
    from sagemaker_fleet.simulate import SimulationError

    if len(args.specs) > 1:
        return run_account(args)
    refusals: tuple[type[Exception], ...] = (*INPUT_ERRORS, SimulationError, CostReportError, ValueError)
    began = time.perf_counter()
    try:
        results = _simulate(args)
    except ArgumentError as exc:
        return refused(exc)
    except refusals as exc:
        return refused(exc, FleetArgument.parse(args.specs[0]).path)
    real = time.perf_counter() - began
    if args.report_dir:
        try:
            _write_reports(results, Path(args.report_dir), per_strategy=len(results) > 1)
        except OSError as exc:
            print(f"{args.report_dir}: cannot write the cost report: {exc}", file=sys.stderr)
            return 2
    if args.json:
        documents = [result.to_json() for result in results]
        if len(documents) == 1:
            print(json.dumps(documents[0], indent=2))
        else:
            by_strategy = {doc["strategy"]: doc for doc in documents}
            print(json.dumps({**by_strategy, "ratios": ratios(by_strategy)}, indent=2))
    elif len(results) == 1:
        print(render_summary(results[0].to_json(), real))
    else:
        print(render_comparison([result.to_json() for result in results], real))
    return 0


def _write_reports(results: list[SimulationResult], out_dir: Path, *, per_strategy: bool) -> None:
    from sagemaker_fleet.cost.publish import write_report_files

    for result in results:
        files = write_report_files(result.report, out_dir / result.strategy if per_strategy else out_dir)
        print(f"{result.strategy}: cost report in {files.html.parent}", file=sys.stderr)
