"""``sagemaker-fleet simulate A.yaml B.yaml [--offset B.yaml=SECONDS …]``: several fleets' runs on one account.

Every fleet given runs on ONE simulated engine — one account, whose quotas are those the specs declare (per type
and field the largest; a warning where they differ) — each with its own plan, tracker and poller, account-aware
as the triggerer runs them side by side, each beginning at its ``--offset`` (simulated seconds after the first;
0 when not given). ``FILE@RUN_KEY`` gives a run its own run key, so a fleet can run beside a copy of itself (a
manual run beside the scheduled one); without it a run has ``--run-key``. Prints each run's summary and the
account's totals, or with ``--json`` the document of docs/formats.md (simulate JSON of several fleets). Exit 2,
naming the argument, for a fleet given twice with the same run key, an ``--offset`` naming a fleet not given,
fleets in different regions, and ``--compare`` or ``--history`` (one fleet's) with several fleets.
"""

from __future__ import annotations

import argparse
import json
import math
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from sagemaker_fleet.cli.inputs import INPUT_ERRORS, load_spec, refused, run_key_of
from sagemaker_fleet.cli.simulate_text import render_summary
from sagemaker_fleet.errors import SageMakerFleetError
from sagemaker_fleet.fleetspec.names import validate_run_key
from sagemaker_fleet.fleetspec.sharing import shares_over_100
from sagemaker_fleet.jobs.duration_text import duration
from sagemaker_fleet.jobs.errors import CostReportError

if TYPE_CHECKING:
    from sagemaker_fleet.simulate import AccountResult, AccountRun


class ArgumentError(SageMakerFleetError, ValueError):
    """A command-line argument that allows no run: the message names it."""


@dataclass(frozen=True)
class FleetArgument:
    """A ``FLEET.yaml[@RUN_KEY]`` argument: the text as written, the file, the run key it gives (None: none)."""

    text: str
    path: str
    run_key: str | None

    @classmethod
    def parse(cls, text: str) -> FleetArgument:
        """``FILE@KEY`` splits at the last ``@`` unless a file of the whole name exists."""
        path, at, key = text.rpartition("@")
        if not at or not path or Path(text).exists():
            return cls(text, text, None)
        return cls(text, path, key)

    def names(self, other: FleetArgument, run_key: str) -> bool:
        """Whether this text (an ``--offset``'s) names ``other``, a run of ``run_key``: the same file (however
        written) and, when this gives one, the same run key."""
        same = Path(self.path).resolve() == Path(other.path).resolve()
        return same and (self.run_key is None or self.run_key == run_key)


def offset(text: str) -> tuple[str, float]:
    """``--offset FLEET.yaml[@RUN_KEY]=SECONDS`` (argparse type): the fleet and a finite number of seconds ≥ 0."""
    name, equals, seconds = text.rpartition("=")
    if not equals or not name:
        raise argparse.ArgumentTypeError(f"{text!r}: write FLEET.yaml=SECONDS, e.g. b.yaml=600")
    try:
        value = float(seconds)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r}: {seconds!r} is not a number of seconds") from None
    if not math.isfinite(value) or value < 0:
        raise argparse.ArgumentTypeError(
            f"{text!r}: an offset is seconds ≥ 0 after the first run's start (give the others a later one)"
        )
    return name, value


def offsets_of(fleets: list[FleetArgument], keys: list[str], given: list[tuple[str, float]]) -> list[float]:
    """Each run's offset (0 where none is given); :class:`ArgumentError` for one naming no fleet, several, or a
    run named twice."""
    out: list[float | None] = [None] * len(fleets)
    for text, seconds in given:
        name = FleetArgument.parse(text)
        hits = [i for i, fleet in enumerate(fleets) if name.names(fleet, keys[i])]
        if not hits:
            listed = ", ".join(fleet.text for fleet in fleets)
            raise ArgumentError(
                f"--offset {text}={seconds:g}: {text} is not among the fleets given ({listed})"
            )
        if len(hits) > 1:
            runs = ", ".join(f"{fleets[i].path}@{keys[i]}" for i in hits)
            raise ArgumentError(
                f"--offset {text}={seconds:g}: {text} names {len(hits)} runs ({runs}); write FILE@RUN_KEY"
            )
        if out[hits[0]] is not None:
            raise ArgumentError(f"--offset: {fleets[hits[0]].text} is given an offset twice")
        out[hits[0]] = seconds
    return [0.0 if seconds is None else seconds for seconds in out]


def _refuse_single_fleet_flags(args: argparse.Namespace) -> None:
    if args.compare:
        raise ArgumentError(
            "--compare: with several fleets, simulate one strategy per command (--strategy planned, then naive)"
        )
    if args.history:
        raise ArgumentError(
            f"--history {args.history}: a report.json holds one fleet's durations; with several fleets it is "
            "not taken (simulate that fleet alone with it)"
        )


def _run_key(fleet: FleetArgument, default: str) -> str:
    try:
        return validate_run_key(fleet.run_key or default)
    except ValueError as exc:
        raise ArgumentError(f"{fleet.text}: {exc}" if fleet.run_key else str(exc)) from None


def account_runs(args: argparse.Namespace) -> list[AccountRun]:
    """The runs the arguments give, in order, each with its spec, run key and offset."""
    from sagemaker_fleet.simulate import AccountRun

    _refuse_single_fleet_flags(args)
    fleets = [FleetArgument.parse(text) for text in args.specs]
    default_key = run_key_of(args)
    keys = [_run_key(fleet, default_key) for fleet in fleets]
    offsets = offsets_of(fleets, keys, args.offset or [])
    specs = [load_spec(fleet.path) for fleet in fleets]
    seen: dict[tuple[str, str], int] = {}
    for index, (fleet, spec, key) in enumerate(zip(fleets, specs, keys, strict=True)):
        first = seen.setdefault((spec.fleet, key), index)
        if first != index:
            raise ArgumentError(
                f"{fleet.text} (fleet argument {index + 1}): fleet {spec.fleet} with run key {key} is already "
                f"fleet argument {first + 1} ({fleets[first].text}); both runs would name the same jobs — give "
                f"this one its own run key, e.g. {fleet.path}@manual"
            )
    return [
        AccountRun(spec, key, seconds, fleet.text)
        for fleet, spec, key, seconds in zip(fleets, specs, keys, offsets, strict=True)
    ]


def run_account(args: argparse.Namespace) -> int:
    """``simulate`` with several fleets (see the module docstring)."""
    from sagemaker_fleet.simulate import SimulateOptions, SimulationError, simulate_account

    refusals: tuple[type[Exception], ...] = (*INPUT_ERRORS, ArgumentError, SimulationError, CostReportError)
    began = time.perf_counter()
    try:
        runs = account_runs(args)
        for problem in shares_over_100(run.spec for run in runs):
            raise ArgumentError(problem)
        options = SimulateOptions(
            strategy=args.strategy,
            seed=args.seed,
            throttle_share=args.throttle_share,
            refuse_keep_alive_while_running=args.refuse_keep_alive_while_running,
        )
        result = simulate_account(runs, options)
    except refusals as exc:
        return refused(exc)
    real = time.perf_counter() - began
    for note in result.quota_notes:
        print(f"warning: {note}", file=sys.stderr)
    if args.report_dir:
        try:
            _write_reports(result, Path(args.report_dir))
        except OSError as exc:
            print(f"{args.report_dir}: cannot write the cost reports: {exc}", file=sys.stderr)
            return 2
    doc = result.to_json()
    print(json.dumps(doc, indent=2) if args.json else render_account(doc, real))
    return 0


def _write_reports(result: AccountResult, out_dir: Path) -> None:
    from sagemaker_fleet.cost.publish import write_report_files

    for run in result.runs:
        files = write_report_files(run.report, out_dir / f"{run.fleet}-{run.run_key}")
        print(f"{run.fleet} {run.run_key}: cost report in {files.html.parent}", file=sys.stderr)


def render_account(doc: dict[str, Any], real_seconds: float) -> str:
    """Each run's summary (as ``simulate`` prints one fleet's), then the account's totals."""
    blocks = []
    for run in doc["runs"]:
        lines = render_summary(run, real_seconds).split("\n")
        lines.insert(
            1,
            f"account    {run['spec']} · starts at {duration(run['offset_seconds'])} · pools taken by other "
            f"runs {run['pools_to_other_runs']} · from other runs {run['pools_from_other_runs']}",
        )
        blocks.append("\n".join(lines))
    account = doc["account"]
    quotas = " · ".join(
        f"{itype} {q['instances']} instances / {q['warm_pools']} warm pools"
        + ("" if q["spot_instances"] is None else f" / {q['spot_instances']} spot")
        for itype, q in account["quotas"].items()
    )
    calls = account["api_calls"]
    blocks.append(
        "\n".join(
            [
                f"account: {account['runs']} runs on one simulated account — {quotas}",
                f"makespan   {duration(account['makespan_seconds'])} (first creation to last end)",
                f"quota      ResourceLimitExceeded {account['resource_limit_exceeded']:,} · throttled "
                f"{account['throttled']:,} · API calls Create {calls['CreateTrainingJob']:,} · Describe "
                f"{calls['DescribeTrainingJob']:,} · List {calls['ListTrainingJobs']:,}",
                f"cities     {account['jobs']}: {account['completed']} completed, {account['failed']} failed · "
                f"lost {account['lost']} · duplicated {account['duplicated']}",
                f"starts     {account['warm_starts']} warm / {account['cold_starts']} cold · pools taken across "
                f"runs {account['pools_across_runs']}",
                f"cost       ${account['cost_usd']:,.2f} · idle pools ${account['retained_cost_usd']:,.2f} "
                f"({100 * account['idle_share']:.1f} % of the cost)",
            ]
        )
    )
    return "\n\n".join(blocks)
