"""The Fleet tab's page and the fleet runs list: self-contained HTML (inline CSS and JS, nothing from a CDN).

The tab page fetches the run's JSON every few seconds and redraws itself (no page reload); the timelines arrive
as SVG already rendered by the server with report.html's own drawing code, every text in them escaped. All other
text is set through ``textContent``.
"""

from __future__ import annotations

from sagemaker_fleet.cost.page import STYLE, legend
from sagemaker_fleet.cost.svg import esc

CSP = (
    "default-src 'none'; connect-src 'self'; style-src 'unsafe-inline'; script-src 'unsafe-inline'; "
    "img-src data:"
)

EXTRA_STYLE = """
body{margin:12px 16px}.muted{color:#5b6475}.bad{color:#b71c1c}
.banner{border:1px solid #e3e6eb;border-radius:8px;padding:10px 14px;background:#f6f7f9}
a{color:#1f5fbf}td a{margin-right:8px}
"""

TAB_SCRIPT = """
(function () {
  var root = document.getElementById('fleet');
  var url = root.getAttribute('data-api');
  var every = parseInt(root.getAttribute('data-refresh'), 10) * 1000;
  function el(tag, text, cls) {
    var node = document.createElement(tag);
    if (text !== undefined && text !== null) { node.textContent = String(text); }
    if (cls) { node.className = cls; }
    return node;
  }
  function usd(value) {
    if (value === null || value === undefined) { return '—'; }
    return (value < 0 ? '-$' : '$') + Math.abs(value).toLocaleString('en-US',
      {minimumFractionDigits: 2, maximumFractionDigits: 2});
  }
  function card(value, label, id) {
    var box = el('div', null, 'card');
    var v = el('div', value, 'v');
    if (id) { v.id = id; }
    box.appendChild(v); box.appendChild(el('div', label, 'k'));
    return box;
  }
  function link(href, text) {
    var a = el('a', text); a.href = href; a.target = '_blank'; a.rel = 'noopener'; return a;
  }
  function table(id, headers, rows) {
    var t = el('table'); t.id = id;
    var head = t.createTHead().insertRow();
    headers.forEach(function (h) { head.appendChild(el('th', h)); });
    var body = t.createTBody();
    rows.forEach(function (cells) {
      var tr = body.insertRow();
      cells.forEach(function (c) {
        var td = tr.insertCell();
        if (c instanceof Node) { td.appendChild(c); } else { td.textContent = c === null ? '' : String(c); }
      });
    });
    return t;
  }
  function section(title, content) {
    var s = el('section'); s.appendChild(el('h2', title)); s.appendChild(content); return s;
  }
  function account(a) {
    var box = el('div');
    if (!a || !a.looked_up) { box.appendChild(el('p', 'The account was not read for this run.', 'empty')); return box; }
    box.appendChild(table('account-capacity',
      ['instance type', 'quota', 'this run: running', 'this run: idle pools', 'other runs: running',
       'other runs: idle pools', 'free'],
      a.capacity.map(function (c) {
        return [c.instance_type, c.quota_instances === null ? '—' : c.quota_instances, c.run_running, c.run_pools,
          c.other_running, c.other_pools, c.free === null ? '—' : c.free];
      })));
    if (a.other_jobs_unknown) {
      var unknown = el('p', a.other_jobs_unknown + " other job(s) of the account hold capacity of a type not known" +
        (a.other_jobs_denied ? ' (' + a.other_jobs_denied + ' may not be described with these credentials)' :
          ' yet'), 'note');
      unknown.id = 'account-unknown';
      box.appendChild(unknown);
    }
    var hidden = "a job of a fleet whose DAGs you may not read";
    var rows = a.pools_taken_from_other_runs.map(function (p) {
      return [p.city, p.job_name, 'took the pool of', p.from_job || hidden];
    }).concat(a.pools_given_to_other_runs.map(function (p) {
      return [p.city, p.job_name, 'pool taken by', p.taken_by_job || hidden];
    }));
    box.appendChild(el('h3', 'Warm pools across runs (' + a.pools_taken_from_other_runs.length + ' taken, ' +
      a.pools_given_to_other_runs.length + ' given)'));
    box.appendChild(rows.length ? table('pools-across-runs', ['city', 'job of this run', '', 'job of another run'],
      rows) : el('p', 'No warm pool went between this run and another run.', 'empty'));
    return box;
  }
  function againstPlan(p) {
    var box = el('div');
    if (!p) { box.appendChild(el('p', 'No plan yet: the plan task has not published it.', 'empty')); return box; }
    var head = el('p', (p.short ? 'Far fewer warm starts than planned: ' : '') + p.headline + '.',
      p.short ? 'warn' : 'note');
    head.id = p.short ? 'plan-short' : 'plan-headline';
    box.appendChild(head);
    box.appendChild(table('plan-groups', ['group', 'pool key', 'planned jobs', 'planned warm', 'warm got',
      'planned warm missed', 'why missed', 'pools nobody took', 'idle cost nobody took'],
      p.groups.map(function (g) {
        return [g.group, g.label, g.planned_jobs, g.planned_warm_starts, g.warm_starts, g.missed_warm_starts.length,
          g.missed_reasons + (g.planned_warm_not_started ? '; ' + g.planned_warm_not_started + ' not started' : ''),
          g.untaken_pools, usd(g.untaken_retained_cost_usd)];
      })));
    var missed = [];
    p.groups.forEach(function (g) {
      g.missed_warm_starts.forEach(function (m) { missed.push([m.city, m.job_name, m.group, m.reason, m.detail]); });
    });
    if (missed.length) {
      box.appendChild(el('h3', 'Planned warm starts that started cold'));
      box.appendChild(table('missed-warm', ['city', 'job', 'group', 'reason', 'why'], missed));
    }
    return box;
  }
  function render(v) {
    var out = document.createDocumentFragment();
    if (!v.fleet_dag) {
      out.appendChild(el('p', v.message || 'This run is not a fleet run.', 'banner'));
      return out;
    }
    if (v.refused) { out.appendChild(el('p', v.message, 'banner bad')); return out; }
    var c = v.counts, m = v.cost;
    var head = el('p', 'fleet ' + v.fleet + ' · run key ' + v.run_key + ' · ' + v.region + ' · run ' + v.state +
      (v.dry_run ? ' · dry run: nothing launched' : '') + ' · updated ' + v.generated_at.substring(11, 19) + ' UTC',
      'meta');
    head.id = 'run-meta';
    out.appendChild(head);
    var cards = el('div', null, 'cards');
    cards.appendChild(card(usd(m.so_far_usd), 'cost so far (billed ' + usd(m.billed_usd) + ' + running ' +
      usd(m.running_unbilled_usd) + ')', 'cost-so-far'));
    cards.appendChild(card(usd(m.projected_usd), 'projected total', 'cost-projected'));
    cards.appendChild(card(usd(m.expected_usd), "plan's expected cost", 'cost-expected'));
    cards.appendChild(card(c.completed + ' / ' + c.cities, 'cities trained (' + c.running + ' running, ' +
      c.waiting + ' waiting, ' + c.failed + ' failed)', 'count-trained'));
    cards.appendChild(card(c.warm_starts + ' / ' + c.cold_starts, 'warm / cold starts (planned ' +
      (c.planned_warm_starts === null ? '—' : c.planned_warm_starts) + ' / ' +
      (c.planned_cold_starts === null ? '—' : c.planned_cold_starts) + ')', 'count-starts'));
    cards.appendChild(card(String(c.resubmissions), 're-submissions', 'count-resubmissions'));
    cards.appendChild(card(usd(m.retained_usd), 'retained warm-pool idle', 'cost-retained'));
    out.appendChild(cards);
    if (v.report_url) {
      var p = el('p'); p.appendChild(link(v.report_url, 'Cost report (report.html)')); p.id = 'report-link';
      p.appendChild(document.createTextNode(' · '));
      p.appendChild(link(v.report_url.replace(/report\\.html$/, 'report.json'), 'report.json'));
      out.appendChild(p);
    }
    var lanes = el('div');
    var key = document.getElementById('legend').cloneNode(true); key.removeAttribute('id');
    lanes.appendChild(key);
    lanes.appendChild(el('h3', 'Planned lanes'));
    var plan = el('div', null, 'scroll'); plan.innerHTML = v.gantt.plan_svg ||
      '<p class="empty">No plan yet.</p>';
    lanes.appendChild(plan);
    lanes.appendChild(el('h3', 'What happened'));
    var actual = el('div', null, 'scroll'); actual.innerHTML = v.gantt.actual_svg;
    lanes.appendChild(actual);
    out.appendChild(section('Plan against actual', againstPlan(v.plan_against_actual)));
    out.appendChild(section('Lanes: plan and reality', lanes));
    out.appendChild(section('The account: capacity beside other runs', account(v.account)));
    out.appendChild(section('Cities waiting (' + v.waiting.length + ')', v.waiting.length ?
      table('waiting', ['city', 'why'], v.waiting.map(function (w) { return [w.city, w.reason]; })) :
      el('p', 'None.', 'empty')));
    if (v.failures.length) {
      out.appendChild(section('Failures', table('failures', ['city', 'job', 'status', 'reason'],
        v.failures.map(function (f) { return [f.city, f.job_name, f.status, f.reason]; }))));
    }
    if (v.resubmissions.length) {
      var rows = [];
      v.resubmissions.forEach(function (r) {
        r.attempts.forEach(function (a) { rows.push([r.city, a.attempt, a.job_name, a.status, a.reason]); });
      });
      out.appendChild(section('Re-submissions', table('resubmissions',
        ['city', 'attempt', 'job', 'status', 'reason'], rows)));
    }
    var names = v.metrics ? v.metrics.names : [];
    if (v.metrics) {
      var best = el('ul', null, 'note'); best.id = 'metric-summary';
      v.metrics.summary.forEach(function (m) {
        best.appendChild(el('li', m.metric + ' (' + m.better + ' is better, ' + m.cities + ' cities): best ' +
          m.best.city + ' ' + m.best.value + ', worst ' + m.worst.city + ' ' + m.worst.value));
      });
      out.appendChild(section('Final metrics', best));
    }
    if (v.models) {
      var k = v.models.counts;
      var counts = el('p', k.approved + ' approved, ' + k.pending + ' pending approval, ' + k.rejected +
        ' rejected, ' + k.no_metric + ' without the metric' + (k.not_trained ? ', ' + k.not_trained +
        ' not trained' : ''), 'note');
      counts.id = 'model-counts';
      var box = el('div'); box.appendChild(counts);
      box.appendChild(table('models', ['city', 'decision', 'metric', 'value', 'champion', 'package', 'why'],
        v.models.cities.map(function (d) {
          return [d.city, d.decision, d.metric || '', d.challenger === undefined ? '' : d.challenger,
            d.champion === undefined ? '' : d.champion, d.package_arn || 'not registered', d.reason];
        })));
      out.appendChild(section('Models (' + v.models.cities.length + ')', box));
    }
    var jobs = v.jobs.map(function (j) {
      var links = el('span');
      links.appendChild(link(j.console_url, 'console')); links.appendChild(link(j.logs_url, 'logs'));
      return [j.city, j.attempt, j.job_name, j.status + ' / ' + j.secondary_status, j.instance_type +
        (j.spot ? ' · spot' : ''), j.start, j.billable_seconds, usd(j.cost_usd + j.running_usd)].concat(
        names.map(function (n) { return n in j.metrics ? j.metrics[n] : ''; }), [j.failure_reason || '', links]);
    });
    out.appendChild(section('Jobs (' + v.jobs.length + ')', v.jobs.length ? table('jobs',
      ['city', 'attempt', 'job', 'status', 'instances', 'start', 'billable s', 'cost'].concat(names,
        ['failure reason', 'links']),
      jobs) : el('p', 'No training job yet.', 'empty')));
    var calls = el('p', (v.listing.final ? 'The run has ended and its jobs with it: this view is kept, read once by ' :
      'This refresh: ') + v.listing.list_calls + ' listing(s), ' + v.listing.describe_calls +
      ' describe(s) of jobs still changing, ' + v.listing.cached_describes + ' from cache, ' +
      v.listing.other_describe_calls + " describe(s) of other runs' jobs.", 'note');
    out.appendChild(calls);
    return out;
  }
  function refresh() {
    fetch(url, {credentials: 'same-origin', headers: {'Accept': 'application/json'}})
      .then(function (r) {
        return r.json().then(function (body) { return {ok: r.ok, status: r.status, body: body}; });
      })
      .then(function (answer) {
        var view = document.getElementById('view');
        if (!answer.ok && !answer.body.fleet_dag) {
          view.replaceChildren(el('p', answer.body.message || answer.body.detail || ('HTTP ' + answer.status),
            'banner bad'));
        } else {
          view.replaceChildren(render(answer.body));
        }
        document.documentElement.setAttribute('data-refreshes',
          String(1 + parseInt(document.documentElement.getAttribute('data-refreshes') || '0', 10)));
        var done = answer.body.state === 'success' || answer.body.state === 'failed' || !answer.body.fleet_dag;
        if (!done) { setTimeout(refresh, every); }
      })
      .catch(function (err) {
        document.getElementById('status').textContent = 'refresh failed: ' + err + ' (retrying)';
        setTimeout(refresh, every);
      });
  }
  refresh();
})();
"""

RUNS_SCRIPT = """
(function () {
  var root = document.getElementById('runs');
  var tab = root.getAttribute('data-tab') === '1';
  fetch(root.getAttribute('data-api'), {credentials: 'same-origin'}).then(function (r) { return r.json(); })
    .then(function (body) {
      if (!body.runs || !body.runs.length) {
        root.textContent = 'No run of a fleet DAG you may read.'; return;
      }
      var t = document.createElement('table'); t.id = 'fleet-runs';
      var head = t.createTHead().insertRow();
      ['DAG', 'run', 'state', 'run after', 'run key', tab ? 'Fleet tab' : 'Fleet view'].forEach(function (h) {
        var th = document.createElement('th'); th.textContent = h; head.appendChild(th);
      });
      var tbody = t.createTBody();
      body.runs.forEach(function (run) {
        var tr = tbody.insertRow();
        [run.dag_id, run.run_id, run.state, run.run_after || '', run.run_key].forEach(function (v) {
          tr.insertCell().textContent = v;
        });
        var a = document.createElement('a');
        a.textContent = 'Fleet';
        var ids = encodeURIComponent(run.dag_id) + '/runs/' + encodeURIComponent(run.run_id);
        a.href = tab ? '/dags/' + ids + '/plugin/sagemaker-fleet' :
          root.getAttribute('data-pages') + '/' + encodeURIComponent(run.dag_id) + '/' +
            encodeURIComponent(run.run_id);
        a.target = '_top';
        tr.insertCell().appendChild(a);
      });
      root.replaceChildren(t);
    });
})();
"""


def _document(title: str, body: str, script: str) -> str:
    return (
        f'<!doctype html><html lang="en"><head><meta charset="utf-8">'
        f'<meta http-equiv="Content-Security-Policy" content="{CSP}"><title>{esc(title)}</title>'
        f"<style>{STYLE}{EXTRA_STYLE}</style></head><body>{body}<script>{script}</script></body></html>"
    )


def fleet_page(
    prefix: str, dag_id: str, run_id: str, refresh_seconds: int, *, run_href: str | None = None
) -> str:
    """The Fleet tab of one run: a shell that draws the run's JSON and refreshes it until the run ends.
    ``run_href``: a link back to the run in Airflow's UI, for a page shown on its own (Airflow 3.0, no tab)."""
    from urllib.parse import quote

    key = legend().replace("<p ", '<p id="legend" ', 1)
    api = f"{prefix}/api/runs/{quote(dag_id, safe='')}/{quote(run_id, safe='')}"
    back = f'<p><a id="run-link" href="{esc(run_href)}">{esc(run_id)} in Airflow</a></p>' if run_href else ""
    body = (
        f'<main id="fleet" data-api="{esc(api)}" data-refresh="{int(refresh_seconds)}">'
        f'<h1>Fleet · {esc(dag_id)}</h1>{back}<p id="status" class="muted"></p>'
        f'<div id="view"><p class="muted">Loading…</p></div>'
        f"<div hidden>{key}</div>"
        "</main>"
    )
    return _document(f"Fleet · {dag_id} · {run_id}", body, TAB_SCRIPT)


def runs_page(prefix: str, *, tab: bool = True) -> str:
    """The nav entry's page: the newest runs of the fleet DAGs the user may read, each linked to its Fleet tab
    (``tab``: Airflow 3.1+) or to the plugin's own page of the run (Airflow 3.0)."""
    body = (
        f'<h1>SageMaker fleet runs</h1><div id="runs" data-api="{esc(prefix)}/api/runs" '
        f'data-pages="{esc(prefix)}/runs" data-tab="{1 if tab else 0}">'
        '<p class="muted">Loading…</p></div>'
    )
    return _document("SageMaker fleet runs", body, RUNS_SCRIPT)
