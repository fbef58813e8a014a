"""The bar charts of ``report.html`` as inline SVG: spend vs on-demand, warm vs cold starts, cost per city."""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING

from sagemaker_fleet.cost.svg import COLORS, esc, num, rect, text, title, usd
from sagemaker_fleet.jobs.duration_text import duration

if TYPE_CHECKING:
    from sagemaker_fleet.cost.totals import CostTotals

WIDTH = 720
CITY_ROWS = 50


def _bar_frame(chart_id: str, height: float, label: str) -> str:
    return (
        f'<svg id="{esc(chart_id)}" class="chart" role="img" aria-label="{esc(label)}" width="{WIDTH}" '
        f'height="{num(height)}" viewBox="0 0 {WIDTH} {num(height)}">'
    )


def spend_chart(totals: CostTotals) -> str:
    """One bar as long as the on-demand equivalent: billed compute, retained idle, and what spot saved."""
    full = max(totals.on_demand_cost_usd, totals.cost_usd, 1e-12)
    scale = (WIDTH - 20) / full
    compute = totals.cost_usd - totals.retained_cost_usd
    pieces = [
        ("billed compute", compute, COLORS["training"]),
        ("retained warm-pool idle", totals.retained_cost_usd, COLORS["retained"]),
        ("saved by spot", totals.spot_savings_usd, COLORS["saved"]),
    ]
    parts = [_bar_frame("spend-chart", 74, "spend against the on-demand equivalent")]
    x = 10.0
    for name, value, color in pieces:
        if value <= 0:
            continue
        width = value * scale
        parts.append(f"<g>{title(f'{name}: {usd(value)}')}{rect(x, 8, width, 26, color)}</g>")
        x += width
    parts.append(
        text(10, 54, f"cost {usd(totals.cost_usd)} of {usd(totals.on_demand_cost_usd)} on-demand equivalent")
    )
    parts.append(_legend(pieces, 68))
    parts.append("</svg>")
    return "".join(parts)


def starts_chart(totals: CostTotals) -> str:
    """Warm against cold starts, with the start-up time warm pools saved."""
    jobs = max(totals.warm_starts + totals.cold_starts, 1)
    scale = (WIDTH - 20) / jobs
    parts = [_bar_frame("starts-chart", 74, "warm and cold starts")]
    x = 10.0
    for kind, count in (("warm", totals.warm_starts), ("cold", totals.cold_starts)):
        if count:
            width = count * scale
            parts.append(f"<g>{title(f'{kind} starts: {count}')}{rect(x, 8, width, 26, COLORS[kind])}</g>")
            if width > 60:
                parts.append(text(x + 6, 26, f"{count} {kind}", 'class="on-bar"'))
            x += width
    parts.append(
        text(
            10,
            54,
            f"{totals.warm_starts} warm · {totals.cold_starts} cold · start-up saved "
            f"{duration(totals.startup_seconds_saved)} against the cold-start model",
        )
    )
    parts.append(_legend([("warm start", 1.0, COLORS["warm"]), ("cold start", 1.0, COLORS["cold"])], 68))
    parts.append("</svg>")
    return "".join(parts)


def city_chart(by_city: Mapping[str, CostTotals]) -> str:
    """Cost per city, highest first (the first 50; the table below lists every city)."""
    ranked = sorted(by_city.items(), key=lambda item: (-item[1].cost_usd, item[0]))[:CITY_ROWS]
    if not ranked:
        return '<p class="empty">No jobs.</p>'
    label_w, value_w, row = 130, 150, 18
    top = max(t.cost_usd for _, t in ranked) or 1e-12
    scale = (WIDTH - label_w - value_w) / top
    height = row * len(ranked) + 24
    parts = [_bar_frame("city-chart", height, "cost per city")]
    for i, (city, totals) in enumerate(ranked):
        y = 4 + i * row
        compute = totals.cost_usd - totals.retained_cost_usd
        tip = (
            f"{city}: {usd(totals.cost_usd, 4)} over {totals.jobs} submission(s); retained idle "
            f"{usd(totals.retained_cost_usd, 4)}; on-demand equivalent {usd(totals.on_demand_cost_usd, 4)}"
        )
        parts.append(f'<g class="city">{title(tip)}')
        parts.append(text(label_w - 6, y + 11, city, 'text-anchor="end"'))
        parts.append(rect(label_w, y + 1, compute * scale, row - 5, COLORS["training"]))
        parts.append(
            rect(
                label_w + compute * scale,
                y + 1,
                totals.retained_cost_usd * scale,
                row - 5,
                COLORS["retained"],
            )
        )
        attempts = f" ({totals.jobs} jobs)" if totals.jobs > 1 else ""
        parts.append(text(label_w + totals.cost_usd * scale + 6, y + 11, f"{usd(totals.cost_usd)}{attempts}"))
        parts.append("</g>")
    parts.append(
        _legend(
            [("billed compute", 1.0, COLORS["training"]), ("retained idle", 1.0, COLORS["retained"])],
            height - 6,
        )
    )
    parts.append("</svg>")
    return "".join(parts)


def _legend(items: list[tuple[str, float, str]], y: float) -> str:
    parts = []
    x = 10.0
    for name, _, color in items:
        parts.append(rect(x, y - 9, 10, 10, color))
        parts.append(text(x + 14, y, name, 'class="legend"'))
        x += 24 + 7 * len(name)
    return "".join(parts)
