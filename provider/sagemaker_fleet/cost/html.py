"""The report page's table cells and headers (escaped, sortable by their ``data-v``), shared by its sections."""

from __future__ import annotations

from collections.abc import Sequence

from sagemaker_fleet.cost.svg import esc


def cell(value: object, numeric: bool = False, sort_value: object | None = None) -> str:
    cls = ' class="n"' if numeric else ""
    data = f' data-v="{esc(sort_value)}"' if sort_value is not None else ""
    return f"<td{cls}{data}>{esc('' if value is None else value)}</td>"


def head(columns: Sequence[tuple[str, bool]]) -> str:
    numeric_th = '<th class="n">'
    cells = "".join(f"{numeric_th if numeric else '<th>'}{esc(name)}</th>" for name, numeric in columns)
    return f"<thead><tr>{cells}</tr></thead>"
