"""The lane timeline of ``report.html``: one row per lane, each job drawn phase by phase.

Start-up is coloured by how the job started (cold or warm), training by how it was billed (on-demand or spot),
spot interruptions in red, and the idle time a warm pool was retained (and billed) after a job as a hatched bar.
Failed jobs get a red outline, stopped ones a dashed one. Hovering a job shows its details.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import TYPE_CHECKING

from sagemaker_fleet.cost.lanes import Lane, occupied_until
from sagemaker_fleet.cost.svg import COLORS, clock, esc, num, rect, text, title, usd
from sagemaker_fleet.jobs.duration_text import duration
from sagemaker_fleet.jobs.statuses import STARTUP_STATES

if TYPE_CHECKING:
    from sagemaker_fleet.cost.model import CostLine

LABEL_WIDTH = 190
PLOT_WIDTH = 1000
ROW = 22
BAR = 14
AXIS = 28
#: A lane timeline's width: the lane labels, the plot and a margin.
WIDTH = LABEL_WIDTH + PLOT_WIDTH + 20
TICK_STEPS = (60, 120, 300, 600, 900, 1800, 3600, 7200, 10800, 21600, 43200, 86400)


@dataclass(frozen=True)
class TimeScale:
    origin: datetime
    span_seconds: float

    def x(self, when: datetime) -> float:
        offset = (when - self.origin).total_seconds()
        return LABEL_WIDTH + PLOT_WIDTH * offset / self.span_seconds


def time_scale(lines: Sequence[CostLine]) -> TimeScale | None:
    starts = [line.created_at for line in lines if line.created_at is not None]
    ends = [end for line in lines if (end := occupied_until(line)) is not None]
    if not starts:
        return None
    origin = min(starts)
    span = max([(end - origin).total_seconds() for end in ends], default=0.0)
    return TimeScale(origin, max(span, 60.0))


def phase_color(status: str, line: CostLine) -> str:
    if status in STARTUP_STATES:
        return COLORS[line.start]
    if status == "Training":
        return COLORS["spot" if line.spot else "training"]
    if status == "Interrupted":
        return COLORS["interrupted"]
    if status == "Uploading":
        return COLORS["uploading"]
    return COLORS["other"]


def _segments(line: CostLine) -> list[tuple[str, datetime, datetime]]:
    """(status, from, to) pieces of the job's life; transitions when present, else created/trained/ended."""
    end = line.ended_at
    if line.phases:
        pieces = []
        for phase in line.phases:
            until = phase.end or end
            if until is not None and until > phase.start:
                pieces.append((phase.status, phase.start, until))
        return pieces
    if line.created_at is None or end is None:
        return []
    trained = line.training_started_at or end
    return [("Starting", line.created_at, trained), ("Training", trained, end)]


def _job_tooltip(line: CostLine) -> str:
    parts = [
        f"{line.city} · {line.job_name} (attempt {line.attempt})",
        f"{line.status} / {line.secondary_status}"
        + (f": {line.failure_reason}" if line.failure_reason else ""),
        f"{line.instance_count} × {line.instance_type}" + (" · spot" if line.spot else ""),
        f"{line.start} start ({line.start_evidence}), start-up {duration(line.startup_seconds)}",
        f"billable {duration(line.billable_seconds)}, retained idle {duration(line.retained_billable_seconds)}",
        f"cost {usd(line.cost_usd, 4)} (on-demand {usd(line.on_demand_cost_usd, 4)})",
    ]
    return "\n".join(parts)


def _job(line: CostLine, scale: TimeScale, y: float) -> str:
    parts = [f'<g class="job" data-job="{esc(line.job_name)}">', title(_job_tooltip(line))]
    segments = _segments(line)
    for status, begin, until in segments:
        x0, x1 = scale.x(begin), scale.x(until)
        parts.append(rect(x0, y, max(x1 - x0, 0.75), BAR, phase_color(status, line)))
    if line.ended_at is not None and line.retained_billable_seconds > 0:
        x0 = scale.x(line.ended_at)
        x1 = scale.x(line.ended_at + timedelta(seconds=line.retained_billable_seconds))
        parts.append(rect(x0, y + 3, x1 - x0, BAR - 6, "url(#idle)", 'class="idle"'))
    if segments:
        x0, x1 = scale.x(segments[0][1]), scale.x(segments[-1][2])
        parts.append(_outline(line, x0, y, x1 - x0))
        parts.append(start_marker(x0, y, line.start))
    parts.append("</g>")
    return "".join(parts)


def _outline(line: CostLine, x: float, y: float, w: float) -> str:
    if line.status == "Failed":
        style = f'fill="none" stroke="{COLORS["failed"]}" stroke-width="1.6"'
    elif line.status in ("Stopped", "Stopping"):
        style = 'fill="none" stroke="#555" stroke-width="1.2" stroke-dasharray="3 2"'
    else:
        style = 'fill="none" stroke="#ffffff" stroke-width="0.6"'
    return f'<rect x="{num(x)}" y="{num(y)}" width="{num(max(w, 0.75))}" height="{BAR}" {style}/>'


def start_marker(x: float, y: float, kind: str) -> str:
    """The dot at a job's start on a row whose top is ``y``, coloured by how it started (``cold`` or ``warm``)."""
    return (
        f'<circle cx="{num(x)}" cy="{num(y + BAR / 2)}" r="3.2" fill="{COLORS[kind]}" '
        f'stroke="#fff" stroke-width="1" class="start-{kind}"/>'
    )


def chart_head(svg_id: str, aria_label: str, rows: int, scale: TimeScale) -> list[str]:
    """The opening of a lane timeline of ``rows`` lanes: the ``<svg>`` element, the hatch that idle pools are drawn
    with and the time axis. The caller adds the rows (:func:`lane_head`) and ``</svg>``."""
    height = AXIS + ROW * rows + 6
    return [
        f'<svg id="{esc(svg_id)}" class="chart" role="img" aria-label="{esc(aria_label)}" width="{WIDTH}" '
        f'height="{num(height)}" viewBox="0 0 {WIDTH} {num(height)}">',
        '<defs><pattern id="idle" width="6" height="6" patternUnits="userSpaceOnUse" '
        'patternTransform="rotate(45)"><rect width="6" height="6" fill="#e4e4e4"/>'
        f'<rect width="3" height="6" fill="{COLORS["retained"]}"/></pattern></defs>',
        axis(scale, height),
    ]


def lane_head(row: int, label: str, tip: str) -> tuple[float, list[str]]:
    """Row ``row`` of a lane timeline: the top of its bars, and its start (every other row shaded, the lane's
    label, ``tip`` on hover)."""
    y = AXIS + row * ROW
    parts = [rect(0, y - 3, WIDTH, ROW, "#f6f7f9")] if row % 2 else []
    name = text(6, y + BAR - 3, label, 'class="lane"')
    parts.append(f"<g>{title(tip)}{name}</g>")
    return y, parts


def axis(scale: TimeScale, height: float) -> str:
    """Vertical grid lines and elapsed-time ticks over the plot."""
    step = next((s for s in TICK_STEPS if scale.span_seconds / s <= 12), TICK_STEPS[-1])
    parts = []
    tick = 0.0
    while tick <= scale.span_seconds + 1e-9:
        x = LABEL_WIDTH + PLOT_WIDTH * tick / scale.span_seconds
        parts.append(f'<line x1="{num(x)}" y1="{AXIS - 6}" x2="{num(x)}" y2="{num(height)}" class="grid"/>')
        parts.append(text(x, AXIS - 10, clock(tick), 'text-anchor="middle" class="tick"'))
        tick += step
    return "".join(parts)


def render_gantt(
    lines: Sequence[CostLine],
    lanes: Sequence[Lane],
    group_labels: dict[str, str],
    scale: TimeScale | None = None,
    svg_id: str = "gantt",
) -> str:
    """The timeline SVG (empty-state text when no job has times). ``scale``: another chart's time axis, so that
    two timelines drawn one above the other (the Fleet view's plan and actual lanes) line up."""
    scale = scale or time_scale(lines)
    if scale is None or not lanes:
        return '<p class="empty">No job has timing information yet.</p>'
    by_name = {line.job_name: line for line in lines}
    parts = chart_head(svg_id, "lane timeline", len(lanes), scale)
    for row, lane in enumerate(lanes):
        y, head = lane_head(row, lane.label, group_labels.get(lane.group, lane.group))
        parts += head
        parts.extend(_job(by_name[name], scale, y) for name in lane.jobs if name in by_name)
    parts.append("</svg>")
    return "".join(parts)
