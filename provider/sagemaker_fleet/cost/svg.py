"""Small, escaping-by-default helpers for the inline SVG and HTML of ``report.html``.

Every piece of text that reaches the page goes through :func:`esc` (element text and attribute values alike),
so job names, failure reasons or spec values can never inject markup.
"""

from __future__ import annotations

import html

#: Colours shared by the charts, the timeline and the legend.
COLORS = {
    "cold": "#e07b39",
    "warm": "#2e9e44",
    "training": "#3b6fb6",
    "spot": "#8d5cc4",
    "interrupted": "#d62728",
    "uploading": "#7fb3d5",
    "other": "#a0a0a0",
    "retained": "#b8b8b8",
    "saved": "#cfe8d4",
    "failed": "#c62828",
}


def esc(value: object) -> str:
    return html.escape(str(value), quote=True)


def num(value: float) -> str:
    """A coordinate: short, and never in exponent notation."""
    text = f"{value:.2f}".rstrip("0").rstrip(".")
    return "0" if text in ("-0", "") else text


def rect(x: float, y: float, w: float, h: float, fill: str, extra: str = "") -> str:
    tail = f" {extra}" if extra else ""
    return (
        f'<rect x="{num(x)}" y="{num(y)}" width="{num(max(w, 0.0))}" height="{num(h)}" '
        f'fill="{esc(fill)}"{tail}/>'
    )


def text(x: float, y: float, content: object, extra: str = "") -> str:
    tail = f" {extra}" if extra else ""
    return f'<text x="{num(x)}" y="{num(y)}"{tail}>{esc(content)}</text>'


def title(content: object) -> str:
    """A native tooltip for the enclosing SVG element."""
    return f"<title>{esc(content)}</title>"


def usd(value: float, places: int = 2) -> str:
    sign = "-" if value < 0 else ""
    return f"{sign}${abs(value):,.{places}f}"


def clock(seconds: float) -> str:
    """Elapsed time on an axis: ``0:00``, ``1:30`` (hours:minutes)."""
    minutes = round(seconds / 60)
    return f"{minutes // 60}:{minutes % 60:02d}"
