"""The plan's lanes as a timeline in report.html's language: start-up by how the job is planned to start (cold or
warm), training on-demand or spot, and the keep-alive a pool is planned to idle for its successor (hatched).

Drawn on the same :class:`~sagemaker_fleet.cost.gantt.TimeScale` as the actual lanes, so plan and reality line up.
"""

from __future__ import annotations

from collections.abc import Mapping
from datetime import timedelta
from typing import Any

from sagemaker_fleet.cost.gantt import BAR, TimeScale, chart_head, lane_head, start_marker
from sagemaker_fleet.cost.svg import COLORS, esc, rect, title
from sagemaker_fleet.jobs.duration_text import duration


def plan_makespan(plan: Mapping[str, Any] | None) -> int:
    """The latest planned end, in seconds from the run's start (0 without a plan)."""
    return max((int(job["planned_end_seconds"]) for job in (plan or {}).get("jobs") or ()), default=0)


def _lanes(plan: Mapping[str, Any]) -> list[tuple[tuple[str, int], list[Mapping[str, Any]]]]:
    lanes: dict[tuple[str, int], list[Mapping[str, Any]]] = {}
    for job in plan.get("jobs") or ():
        lanes.setdefault((str(job["group"]), int(job["lane"])), []).append(job)
    for jobs in lanes.values():
        jobs.sort(key=lambda job: int(job["position"]))
    return sorted(lanes.items(), key=lambda item: (item[0][0], item[0][1]))


def _planned_job(
    job: Mapping[str, Any], successor: Mapping[str, Any] | None, scale: TimeScale, y: float
) -> str:
    start, end = int(job["planned_start_seconds"]), int(job["planned_end_seconds"])
    startup = max(0, end - start - int(job["expected_seconds"]))

    def at(seconds: int) -> float:
        return scale.x(scale.origin + timedelta(seconds=seconds))

    kind = "warm" if job.get("start") == "warm" else "cold"
    tip = (
        f"{job['city']} · {job['job_name']} (planned)\n{kind} start, start-up {duration(startup)}, training "
        f"{duration(int(job['expected_seconds']))}" + (" · spot" if job.get("spot") else "")
    )
    parts = [
        f'<g class="job planned" data-city="{esc(job["city"])}">',
        title(tip),
        rect(at(start), y, max(at(start + startup) - at(start), 0.75), BAR, COLORS[kind]),
        rect(
            at(start + startup),
            y,
            max(at(end) - at(start + startup), 0.75),
            BAR,
            COLORS["spot" if job.get("spot") else "training"],
        ),
    ]
    if successor is not None and int(job["keep_alive_seconds"]) > 0:
        idle = min(int(successor["planned_start_seconds"]) - end, int(job["keep_alive_seconds"]))
        if idle > 0:
            parts.append(
                rect(at(end), y + 3, at(end + idle) - at(end), BAR - 6, "url(#idle)", 'class="idle"')
            )
    parts += [start_marker(at(start), y, kind), "</g>"]
    return "".join(parts)


def render_plan_gantt(plan: Mapping[str, Any], scale: TimeScale, group_labels: Mapping[str, str]) -> str:
    """The planned lanes SVG (one row per planned lane, numbered within its group, named as the actual lanes are:
    the plan's group ids), or an empty-state paragraph."""
    lanes = _lanes(plan)
    if not lanes:
        return '<p class="empty">The plan has no jobs.</p>'
    parts = chart_head("plan-gantt", "planned lanes", len(lanes), scale)
    numbers: dict[str, int] = {}
    for row, ((group, _), jobs) in enumerate(lanes):
        numbers[group] = numbers.get(group, 0) + 1
        label = f"{group} · lane {numbers[group]}"
        y, head = lane_head(row, label, group_labels.get(group, group))
        parts += head
        for job, successor in zip(jobs, [*jobs[1:], None], strict=True):
            parts.append(_planned_job(job, successor, scale, y))
    parts.append("</svg>")
    return "".join(parts)
