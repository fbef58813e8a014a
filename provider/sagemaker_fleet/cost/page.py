"""``report.html``: one self-contained page (inline CSS, SVG and a few lines of JS; nothing is fetched).

A Content-Security-Policy meta tag forbids every network load, so the page behaves the same offline, in an
S3 console preview or from a mail attachment. All text is escaped (see :mod:`sagemaker_fleet.cost.svg`).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING

from sagemaker_fleet.cost.charts import city_chart, spend_chart, starts_chart
from sagemaker_fleet.cost.export import lane_of_jobs
from sagemaker_fleet.cost.gantt import render_gantt
from sagemaker_fleet.cost.html import cell, head
from sagemaker_fleet.cost.metrics import city_metrics, metric_names, summarize
from sagemaker_fleet.cost.page_runs import other_runs_section, plan_section
from sagemaker_fleet.cost.svg import COLORS, esc, usd
from sagemaker_fleet.jobs.duration_text import duration

if TYPE_CHECKING:
    from sagemaker_fleet.cost.model import CostLine
    from sagemaker_fleet.cost.report import CostReport
    from sagemaker_fleet.cost.totals import CostTotals

CSP = "default-src 'none'; style-src 'unsafe-inline'; script-src 'unsafe-inline'; img-src data:"

STYLE = """
body{font:14px/1.4 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;margin:24px;color:#1d2433;background:#fff}
h1{font-size:22px;margin:0 0 4px}h2{font-size:17px;margin:28px 0 8px;border-bottom:1px solid #e3e6eb;padding-bottom:4px}
.meta{color:#5b6475;margin:0 0 16px}
.cards{display:flex;flex-wrap:wrap;gap:10px}
.card{border:1px solid #e3e6eb;border-radius:8px;padding:10px 14px;min-width:150px}
.card .v{font-size:20px;font-weight:600}.card .k{color:#5b6475;font-size:12px}
.chart text{font-size:12px;fill:#1d2433}.chart .tick{fill:#5b6475;font-size:11px}
.chart .lane{font-size:11px}.chart .legend{font-size:11px}.chart .on-bar{fill:#fff;font-weight:600}
.chart .grid{stroke:#e3e6eb;stroke-width:1}
.chart .job:hover rect{opacity:.8}
.scroll{overflow-x:auto}
table{border-collapse:collapse;font-size:12px;margin-top:6px}
th,td{border-bottom:1px solid #eceef2;padding:3px 8px;text-align:left;white-space:nowrap}
td.n,th.n{text-align:right}th{background:#f6f7f9;cursor:pointer;user-select:none;position:sticky;top:0}
tr.Failed td{color:#b71c1c}tr.Stopped td{color:#6d4c41}
.key{display:inline-block;width:10px;height:10px;margin:0 4px 0 12px;vertical-align:-1px}
.note{color:#5b6475;font-size:12px;max-width:1100px}
.empty{color:#5b6475}
.warn{border:1px solid #f0b429;background:#fff8e6;border-radius:8px;padding:8px 12px;max-width:1100px}
input[type=search]{font:inherit;padding:3px 6px;margin:4px 0;width:260px}
"""

SCRIPT = """
(function () {
  function cellValue(row, index) {
    var cell = row.cells[index];
    var raw = cell ? (cell.getAttribute('data-v') || cell.textContent) : '';
    var number = parseFloat(raw);
    return isNaN(number) || !/^-?[0-9.]+(e-?[0-9]+)?$/.test(raw.trim()) ? raw.toLowerCase() : number;
  }
  function sortBy(table, index, header) {
    var body = table.tBodies[0];
    var rows = Array.prototype.slice.call(body.rows);
    var ascending = header.getAttribute('data-order') !== 'asc';
    rows.sort(function (a, b) {
      var x = cellValue(a, index), y = cellValue(b, index);
      if (x === y) { return 0; }
      return (x < y ? -1 : 1) * (ascending ? 1 : -1);
    });
    rows.forEach(function (row) { body.appendChild(row); });
    header.setAttribute('data-order', ascending ? 'asc' : 'desc');
  }
  document.querySelectorAll('table.sortable').forEach(function (table) {
    Array.prototype.forEach.call(table.tHead.rows[0].cells, function (header, index) {
      header.addEventListener('click', function () { sortBy(table, index, header); });
    });
  });
  var filter = document.getElementById('job-filter');
  var jobs = document.getElementById('jobs');
  if (filter && jobs) {
    filter.addEventListener('input', function () {
      var needle = filter.value.toLowerCase();
      Array.prototype.forEach.call(jobs.tBodies[0].rows, function (row) {
        row.style.display = row.textContent.toLowerCase().indexOf(needle) === -1 ? 'none' : '';
      });
    });
  }
  document.documentElement.setAttribute('data-ready', '1');
})();
"""

JOB_COLUMNS: tuple[tuple[str, bool], ...] = (
    ("city", False),
    ("attempt", True),
    ("job", False),
    ("status", False),
    ("instances", False),
    ("spot", False),
    ("start", False),
    ("start-up", True),
    ("training s", True),
    ("billable s", True),
    ("retained s", True),
    ("$/h", True),
    ("price source", False),
    ("cost", True),
    ("on-demand", True),
    ("spot saved %", True),
    ("lane", False),
    ("failure reason", False),
)


def _card(value: str, label: str) -> str:
    return f'<div class="card"><div class="v">{esc(value)}</div><div class="k">{esc(label)}</div></div>'


def _cards(t: CostTotals) -> str:
    cards = [
        _card(
            usd(t.cost_usd),
            f"total cost, leaving out {t.unpriced_jobs} unpriced job(s) (below)"
            if t.unpriced_jobs
            else "total cost",
        ),
        _card(usd(t.on_demand_cost_usd), "on-demand equivalent"),
        _card(
            f"{usd(t.spot_savings_usd)} ({t.spot_savings_pct:.1f} %)",
            f"saved by spot on {t.spot_jobs} spot job(s)",
        ),
        _card(usd(t.retained_cost_usd), "retained warm-pool idle"),
        _card(
            f"{t.jobs}",
            f"submissions: {t.completed} completed, {t.failed} failed, {t.stopped} stopped, "
            f"{t.in_progress} running, {t.resubmitted} re-submissions",
        ),
        _card(
            f"{t.warm_starts} / {t.cold_starts}",
            f"warm / cold starts ({t.warm_image_pulls} warm with the image re-pulled)",
        ),
        _card(duration(t.startup_seconds_saved), "start-up saved by warm pools"),
        _card(
            f"{t.pools_taken_from_other_runs} / {t.pools_given_to_other_runs}",
            "warm pools taken from / given to other runs",
        ),
    ]
    return f'<div class="cards">{"".join(cards)}</div>'


#: What a report shows in place of another fleet's job (:mod:`.disclosure`): whoever reads the report may not read
#: that fleet's runs.
def _start_label(line: CostLine) -> str:
    return "warm, image re-pulled" if line.start == "warm" and line.image_pulled else line.start


def _jobs_table(report: CostReport) -> str:
    lanes = lane_of_jobs(report)
    rows = []
    for line in report.lines:
        cells = [
            cell(line.city),
            cell(line.attempt, True),
            cell(line.job_name),
            cell(f"{line.status} / {line.secondary_status}"),
            cell(f"{line.instance_count} × {line.instance_type}"),
            cell("spot" if line.spot else "on-demand"),
            cell(f"{_start_label(line)} ({line.start_evidence})"),
            cell(duration(line.startup_seconds), True, round(line.startup_seconds, 3)),
            cell(line.training_seconds, True),
            cell(line.billable_seconds, True),
            cell(line.retained_billable_seconds, True),
            *_money_cells(line),
            cell(f"{line.spot_savings_pct:.1f}", True),
            cell(lanes.get(line.job_name, "")),
            cell(line.failure_reason or ""),
        ]
        rows.append(f'<tr class="{esc(line.status)}">{"".join(cells)}</tr>')
    return (
        '<input type="search" id="job-filter" placeholder="filter jobs (city, status, lane…)">'
        f'<div class="scroll"><table id="jobs" class="sortable">{head(JOB_COLUMNS)}'
        f"<tbody>{''.join(rows)}</tbody></table></div>"
    )


TOTAL_COLUMNS: tuple[tuple[str, bool], ...] = (
    ("jobs", True),
    ("completed", True),
    ("failed", True),
    ("stopped", True),
    ("cost", True),
    ("on-demand", True),
    ("spot saved", True),
    ("retained idle", True),
    ("warm", True),
    ("cold", True),
    ("start-up saved", True),
)


def _totals_cells(t: CostTotals) -> str:
    return "".join(
        [
            cell(t.jobs, True),
            cell(t.completed, True),
            cell(t.failed, True),
            cell(t.stopped, True),
            cell(usd(t.cost_usd, 4), True, round(t.cost_usd, 6)),
            cell(usd(t.on_demand_cost_usd, 4), True, round(t.on_demand_cost_usd, 6)),
            cell(usd(t.spot_savings_usd, 4), True, round(t.spot_savings_usd, 6)),
            cell(usd(t.retained_cost_usd, 4), True, round(t.retained_cost_usd, 6)),
            cell(t.warm_starts, True),
            cell(t.cold_starts, True),
            cell(duration(t.startup_seconds_saved), True, round(t.startup_seconds_saved, 3)),
        ]
    )


def _totals_table(
    table_id: str, first: Sequence[tuple[str, bool]], rows: Sequence[tuple[Sequence[str], CostTotals]]
) -> str:
    body = "".join(f"<tr>{''.join(cell(v) for v in names)}{_totals_cells(t)}</tr>" for names, t in rows)
    return (
        f'<div class="scroll"><table id="{esc(table_id)}" class="sortable">{head([*first, *TOTAL_COLUMNS])}'
        f"<tbody>{body}</tbody></table></div>"
    )


def _groups_table(report: CostReport) -> str:
    rows = [((g.id, g.label), report.by_group[g.id]) for g in report.groups if g.id in report.by_group]
    rows += [((f"all {itype}", "instance type"), t) for itype, t in report.by_instance_type.items()]
    return _totals_table("groups", [("group", False), ("pool key", False)], rows)


def _city_table(by_city: Mapping[str, CostTotals]) -> str:
    return _totals_table("cities", [("city", False)], [((city,), t) for city, t in by_city.items()])


def _metrics_section(report: CostReport) -> str:
    """A column per final metric, a row per city, and the best and worst city of each (none without metrics)."""
    names = metric_names(report.lines)
    if not names:
        return ""
    by_city = city_metrics(report.lines)
    summaries = summarize(by_city, names)
    notes = "".join(
        f"<li><b>{esc(m.name)}</b> ({'higher' if m.higher_is_better else 'lower'} is better, "
        f"{m.cities} cities): best {esc(m.best[0])} {m.best[1]:g}, worst {esc(m.worst[0])} {m.worst[1]:g}</li>"
        for m in summaries
    )
    columns = [("city", False), *((name, True) for name in names)]
    rows = "".join(
        f"<tr>{cell(city)}{''.join(cell(values.get(name), True, values.get(name)) for name in names)}</tr>"
        for city, values in by_city.items()
    )
    return (
        f'<h2>Final metrics</h2><ul class="note" id="metric-summary">{notes}</ul>'
        f'<div class="scroll"><table id="metrics" class="sortable">{head(columns)}'
        f"<tbody>{rows}</tbody></table></div>"
    )


def _models_section(report: CostReport) -> str:
    """Each city's model through the registry's gate: its value, the champion's, the decision, the package and
    why (none without ``register:``)."""
    if report.models is None:
        return ""
    counts = report.models.counts
    note = ", ".join(f"{counts[key]} {label}" for key, label in _DECISION_LABELS.items())
    columns = [
        ("city", False),
        ("decision", False),
        ("metric", False),
        ("value", True),
        ("champion", True),
        ("package", False),
        ("why", False),
    ]
    rows = "".join(
        f'<tr class="{esc(d.decision)}">{cell(d.city)}{cell(d.decision)}{cell(d.metric)}'
        f"{cell(d.challenger, True, d.challenger)}{cell(d.champion, True, d.champion)}"
        f"{cell(d.package_arn or 'not registered')}{cell(d.reason)}</tr>"
        for d in report.models.cities
    )
    return (
        f'<h2>Models</h2><p class="note" id="model-counts">{esc(note)}</p>'
        f'<div class="scroll"><table id="models" class="sortable">{head(columns)}'
        f"<tbody>{rows}</tbody></table></div>"
    )


#: The run's counts of decisions, as the page words them.
_DECISION_LABELS = {
    "approved": "approved",
    "pending": "pending approval",
    "rejected": "rejected",
    "no_metric": "without the metric",
    "not_trained": "not trained",
}


def legend() -> str:
    """The colour key of the lane timeline (shared with the Fleet view)."""
    keys = [
        ("cold start-up", COLORS["cold"]),
        ("warm start-up", COLORS["warm"]),
        ("training (on-demand)", COLORS["training"]),
        ("training (spot)", COLORS["spot"]),
        ("spot interruption", COLORS["interrupted"]),
        ("uploading", COLORS["uploading"]),
        ("other state", COLORS["other"]),
        ("retained idle (billed)", COLORS["retained"]),
    ]
    spans = "".join(f'<span class="key" style="background:{c}"></span>{esc(name)}' for name, c in keys)
    return f'<p class="note">{spans}<br>Red outline: failed; dashed: stopped. Hover a bar for details.</p>'


def _money_cells(line: CostLine) -> list[str]:
    """A job's price, its source, cost and on-demand equivalent — "no price" for a type no source knows."""
    if not line.priced:
        return [
            cell("no price", True, ""),
            cell(line.price_source),
            cell("—", True, ""),
            cell("—", True, ""),
        ]
    return [
        cell(line.price_per_hour, True),
        cell(line.price_source),
        cell(usd(line.cost_usd, 4), True, round(line.cost_usd, 6)),
        cell(usd(line.on_demand_cost_usd, 4), True, round(line.on_demand_cost_usd, 6)),
    ]


def _group_key(report: CostReport) -> str:
    items = " · ".join(f"<b>{esc(g.id)}</b> {esc(g.label)}" for g in report.groups)
    return f'<p class="note">Groups (one matching warm-pool key; spot apart): {items}</p>' if items else ""


def _prices_note(report: CostReport) -> str:
    items = "".join(
        f"<li>{esc(itype)}: {esc(usd(p.usd_per_hour, 4))}/h — {esc(p.source)}: {esc(p.detail)}</li>"
        if p.known
        else f'<li class="unpriced">{esc(itype)}: no price — {esc(p.detail)}</li>'
        for itype, p in sorted(report.prices.items())
    )
    return f'<ul class="note">{items}</ul>' if items else '<p class="empty">No prices were needed.</p>'


def render_html(report: CostReport) -> str:
    t = report.totals
    group_labels = {g.id: f"{g.id}: {g.label}" for g in report.groups}
    missing = ", ".join(report.cities_without_jobs)
    missing_note = (
        f'<p class="note">Cities with no submission in this run: {esc(missing)}</p>' if missing else ""
    )
    title_text = f"Cost report · {report.fleet} · run {report.run_key}"
    return f"""<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="{esc(CSP)}">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>{esc(title_text)}</title><style>{STYLE}</style></head>
<body>
<h1>{esc(title_text)}</h1>
<p class="meta">{esc(report.region)} · input mode {esc(report.input_mode)} · generated {esc(report.generated_at.isoformat(timespec="seconds"))} · {t.jobs} submissions</p>
{_cards(t)}
<h2>Plan against actual</h2>{plan_section(report)}
<h2>Spend and spot savings</h2>{spend_chart(t)}
<h2>Warm and cold starts</h2>{starts_chart(t)}
<h2>Warm pools across runs</h2>{other_runs_section(report)}
<h2>Lane timeline</h2>{legend()}<div class="scroll">{render_gantt(report.lines, report.lanes, group_labels)}</div>
{_group_key(report)}
<h2>Cost per city</h2>{city_chart(report.by_city)}{missing_note}
<details><summary>Every city</summary>{_city_table(report.by_city)}</details>
{_metrics_section(report)}
{_models_section(report)}
<h2>Warm-pool groups and instance types</h2>{_groups_table(report)}
<h2>Jobs</h2>{_jobs_table(report)}
<h2>Prices and method</h2>{_prices_note(report)}
<p class="note">cost = (BillableTimeInSeconds + retained warm-pool seconds) × instances × on-demand price; the
on-demand equivalent uses TrainingTimeInSeconds instead of BillableTimeInSeconds. A start is warm when another job
of the run, or of another run of the account, handed it its warm pool (ReusedByJob), cold for spot jobs and jobs that never trained, and otherwise
judged by its start-up time against the start-up model. A warm start is "warm, image re-pulled" when its
TrainingImage differs from that of the job that handed it the pool: the image is no warm-pool matching criterion,
so the pool is reused but the image is pulled from ECR again. Start-up saved = cold-start model − observed start-up, for
warm starts. Price table as of {esc(report.price_table_as_of)}.</p>
<script>{SCRIPT}</script>
</body></html>
"""
