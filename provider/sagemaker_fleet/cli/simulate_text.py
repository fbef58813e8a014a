"""What ``sagemaker-fleet simulate`` prints for people: one run's summary, the side-by-side ``--compare`` of the
planned and naive orders with their ratios, and why the planned run did worse where it did. Kept apart from the
command's arguments and runs so that ``simulate`` and ``simulate A.yaml B.yaml`` both print through it."""

from __future__ import annotations

from typing import Any

from sagemaker_fleet.jobs.duration_text import duration

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


def _ratio(naive: float, planned: float) -> float | None:
    return round(naive / planned, 3) if planned else None


def ratios(by_strategy: dict[str, dict[str, Any]]) -> dict[str, float | None]:
    """naive / planned for every compared number (None where planned is 0)."""
    from sagemaker_fleet.simulate.result import COUNTED_OPERATIONS

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
    models = doc.get("models")
    if models:
        lines += models_lines(models)
    missed = plan.get("missed_warm_starts", []) if plan else []
    if missed:
        lines.insert(3, f"missed     {len(missed)} planned warm start(s) started cold:")
        lines[4:4] = [f"  {m['city']}: {m['reason']} — {m['detail']}" for m in missed]
    return "\n".join(lines)


def models_lines(models: dict[str, Any]) -> list[str]:
    """The registry gate's what-if: each decision's count against an empty registry, and the cities it refuses."""
    counts = models["counts"]
    lines = [
        f"models     what-if of a first run (no champion yet, the bound decides): {counts['approved']} approved, "
        f"{counts['pending']} pending, {counts['rejected']} rejected, {counts['no_metric']} without the metric"
    ]
    for decision in ("rejected", "no_metric", "pending"):
        cities = [c for c in models["cities"] if c["decision"] == decision]
        if cities:
            shown = ", ".join(
                f"{c['city']} ({c['challenger']:g})" if "challenger" in c else c["city"] for c in cities[:5]
            )
            more = f" and {len(cities) - 5} more" if len(cities) > 5 else ""
            lines.append(f"  {decision}: {shown}{more}")
    return lines


def _cell(value: Any) -> str:
    if value is None:
        return "—"
    if isinstance(value, float):
        return f"{value:,.2f}"
    return f"{value:,}"


def render_comparison(docs: list[dict[str, Any]], real_seconds: float) -> str:
    from sagemaker_fleet.simulate.result import COUNTED_OPERATIONS

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
