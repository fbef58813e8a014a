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
from typing import TYPE_CHECKING, Any

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
from sagemaker_fleet.cost.errors import CostReportError
from sagemaker_fleet.jobs.duration_text import duration

if TYPE_CHECKING:
    from sagemaker_fleet.sim.driver import SimulationResult

#: Rows of the readable comparison: (label, simulate JSON field); ratios are naive / planned.
COMPARED = (
    ("warm starts", "warm_starts"),
    ("cold starts", "cold_starts"),
    ("warm image re-pulls", "warm_image_pulls"),
    ("re-submitted", "resubmitted"),
    ("failed", "failed"),
    ("makespan s", "makespan_seconds"),
    ("start-up s", "startup_seconds"),
    ("billable s", "billable_seconds"),
    ("retained pool s", "retained_billable_seconds"),
    ("cost USD", "cost_usd"),
    ("retained cost USD", "retained_cost_usd"),
    ("on-demand equiv. USD", "on_demand_equivalent_usd"),
    ("quota rejections", "quota_rejections"),
    ("throttled", "throttled"),
)


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
    from sagemaker_fleet.sim.driver import STRATEGIES, SimulateOptions, simulate_fleet

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
    from sagemaker_fleet.sim.driver import SimulationError

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


def _ratio(naive: float, planned: float) -> float | None:
    return round(naive / planned, 3) if planned else None


def ratios(by_strategy: dict[str, dict[str, Any]]) -> dict[str, float | None]:
    """naive / planned for every compared number (None where planned is 0)."""
    from sagemaker_fleet.sim.driver.result import COUNTED_OPERATIONS

    planned, naive = by_strategy["planned"], by_strategy["naive"]
    out = {field: _ratio(naive[field], planned[field]) for _, field in COMPARED}
    for call in COUNTED_OPERATIONS:
        out[f"api_calls.{call}"] = _ratio(naive["api_calls"][call], planned["api_calls"][call])
    out["api_calls.total"] = _ratio(sum(naive["api_calls"].values()), sum(planned["api_calls"].values()))
    return out


def render_summary(doc: dict[str, Any], real_seconds: float) -> str:
    calls = doc["api_calls"]
    plan = doc.get("plan")
    planned_starts = f" (plan: {plan['warm_starts']} warm / {plan['cold_starts']} cold)" if plan else ""
    planned_span = f" (plan: {duration(plan['planned_makespan_seconds'])})" if plan else ""
    lines = [
        f"fleet {doc['fleet']} · run {doc['run_key']} · strategy {doc['strategy']} · seed {doc['seed']}"
        f" — simulated in {real_seconds:.2f} s",
        f"cities     {doc['jobs']}: {doc['completed']} completed, {doc['failed']} failed, "
        f"{doc['resubmitted']} re-submitted ({doc['submissions']} submissions)",
        f"starts     {doc['warm_starts']} warm ({doc['warm_image_pulls']} with the image re-pulled) / "
        f"{doc['cold_starts']} cold{planned_starts}",
        f"makespan   {duration(doc['makespan_seconds'])}{planned_span}",
        f"seconds    start-up {doc['startup_seconds']:,} · training {doc['training_seconds']:,} · "
        f"billed {doc['billable_seconds']:,} · retained pools {doc['retained_billable_seconds']:,}",
        f"cost       ${doc['cost_usd']:,.2f} (on-demand equivalent ${doc['on_demand_equivalent_usd']:,.2f}; "
        f"spot saved {doc['spot_savings_pct']:.1f} % on spot jobs) · retained pools "
        f"${doc['retained_cost_usd']:,.2f}",
        f"API calls  Create {calls['CreateTrainingJob']:,} · Describe {calls['DescribeTrainingJob']:,} · "
        f"List {calls['ListTrainingJobs']:,} · throttled {doc['throttled']:,} · "
        f"quota rejections {doc['quota_rejections']:,}",
    ]
    missed = plan.get("missed_warm_starts", []) if plan else []
    if missed:
        lines.insert(3, f"missed     {len(missed)} planned warm start(s) started cold:")
        lines[4:4] = [f"  {m['city']}: {m['reason']} — {m['detail']}" for m in missed]
    return "\n".join(lines)


def _cell(value: Any) -> str:
    if value is None:
        return "—"
    if isinstance(value, float):
        return f"{value:,.2f}"
    return f"{value:,}"


def render_comparison(docs: list[dict[str, Any]], real_seconds: float) -> str:
    from sagemaker_fleet.sim.driver.result import COUNTED_OPERATIONS

    by_strategy = {doc["strategy"]: doc for doc in docs}
    planned, naive = by_strategy["planned"], by_strategy["naive"]
    ratio = ratios(by_strategy)
    rows = [(label, planned[field], naive[field], ratio[field]) for label, field in COMPARED]
    rows += [
        (f"{call} calls", planned["api_calls"][call], naive["api_calls"][call], ratio[f"api_calls.{call}"])
        for call in COUNTED_OPERATIONS
    ]
    lines = [
        f"fleet {planned['fleet']} · run {planned['run_key']} · seed {planned['seed']} · {planned['jobs']} cities"
        f" — both simulated in {real_seconds:.2f} s",
        f"{'':24} {'planned':>12} {'naive':>12} {'naive/planned':>14}",
    ]
    lines += [f"{label:24} {_cell(p):>12} {_cell(n):>12} {_cell(r):>14}" for label, p, n, r in rows]
    lines += why_behind(planned, naive)
    return "\n".join(lines)


#: Planned makespan may exceed naive's by this share before ``--compare`` explains it.
MAKESPAN_TOLERANCE = 0.02


def _reasons(plan: dict[str, Any]) -> str:
    """The missed planned warm starts counted by reason: ``ordering 2, quota 1`` (``none`` without any)."""
    counts: dict[str, int] = {}
    for missed in plan.get("missed_warm_starts", []):
        counts[missed["reason"]] = counts.get(missed["reason"], 0) + 1
    return (
        ", ".join(f"{reason} {n}" for reason, n in sorted(counts.items(), key=lambda i: (-i[1], i[0])))
        or "none"
    )


def why_behind(planned: dict[str, Any], naive: dict[str, Any]) -> list[str]:
    """One line for each way the planned run did worse than naive (fewer warm starts; a makespan more than
    :data:`MAKESPAN_TOLERANCE` longer), saying why from the run's own counts: how many warm starts the plan has
    (its lanes beyond the warm-pool quota start cold), which of them the run missed and why, which it got
    unplanned; for the makespan, what the plan expected. Empty when planned is at least as good."""
    plan = planned.get("plan")
    if plan is None:
        return []
    lines = []
    missed = len(plan.get("missed_warm_starts", []))
    if planned["warm_starts"] < naive["warm_starts"]:
        unplanned = planned["warm_starts"] - (plan["warm_starts"] - missed)
        span = (
            planned["makespan_seconds"] / naive["makespan_seconds"] - 1 if naive["makespan_seconds"] else 0.0
        )
        shorter = f"{-span:.0%} shorter" if span < 0 else f"{span:.0%} longer"
        lines.append(
            f"why: planned got {naive['warm_starts'] - planned['warm_starts']} warm start(s) fewer than naive — "
            f"the plan has {plan['warm_starts']} (its lanes beyond the warm-pool quota start cold; its run was "
            f"{shorter} than naive's), the run missed {missed} of them ({_reasons(plan)}) and got {unplanned} "
            "it did not plan"
        )
    if planned["makespan_seconds"] > naive["makespan_seconds"] * (1 + MAKESPAN_TOLERANCE):
        lines.append(
            f"why: planned ran {planned['makespan_seconds'] / naive['makespan_seconds'] - 1:.0%} longer than naive — "
            f"the plan expected {plan['planned_makespan_seconds']:,} s and the run took "
            f"{planned['makespan_seconds']:,} s (durations differ from the expected ones; missed warm starts: "
            f"{_reasons(plan)})"
        )
    return lines
