"""The Fleet tab's page sets the run against its plan, in a real browser (Playwright driving Debian's Chromium): a
row per group named as the plan names it, each planned warm start that started cold with why, and a flag when the
run got far fewer warm starts than planned — the page as the plugin serves it, the view JSON as
:func:`build_fleet_view` makes it, from a loopback HTTP server."""

from __future__ import annotations

import dataclasses
import json
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import pytest

from sagemaker_fleet.fleetspec.model import InstanceQuota
from sagemaker_fleet.fleetspec.price_table import load_price_table
from sagemaker_fleet.fleetview.model import RunContext, ViewInputs, build_fleet_view
from sagemaker_fleet.fleetview.page import fleet_page
from sagemaker_fleet.jobs.prices import PriceBook
from sagemaker_fleet.plan import plan_fleet
from unit.cost.cost_describes import RUN_KEY, T0, demo_spec, describe_job, end_of

pytestmark = [pytest.mark.integration, pytest.mark.chromium]
CHROMIUM = "/usr/bin/chromium"


def view_json() -> tuple[dict[str, Any], str]:
    """Two cities on one warm lane; the first's pool expired before the second was created (a miss: expiry)."""
    spec = demo_spec()
    spec = dataclasses.replace(
        spec,
        cities=tuple(c for c in spec.cities if c.name in ("seoul", "tokyo")),
        quotas={"ml.m5.xlarge": InstanceQuota(instances=1, warm_pools=1)},
    )
    plan = plan_fleet(spec, RUN_KEY)
    first, second = sorted(plan.jobs, key=lambda job: job.position)
    a = describe_job(first.job_name, keep_alive=240, retained=240, pool_status="Terminated")
    b = describe_job(second.job_name, created=end_of(a) + 640)
    view = build_fleet_view(
        RunContext("fleet_demo", "manual__1", RUN_KEY, "success"),
        ViewInputs(spec, plan.to_json(), [a, b], PriceBook(spec.region, load_price_table()), T0),
    )
    view.update({"fleet_dag": True, "refresh_seconds": 60})
    return view, second.city


@pytest.fixture
def served() -> Iterator[tuple[str, dict[str, Any], str]]:
    view, missed_city = view_json()
    page = fleet_page("", "fleet_demo", "manual__1", 60).encode()
    body = json.dumps(view).encode()

    class Handler(BaseHTTPRequestHandler):
        def do_GET(self) -> None:  # noqa: N802 - http.server's name
            data, kind = (body, "application/json") if self.path.startswith("/api/") else (page, "text/html")
            self.send_response(200)
            self.send_header("Content-Type", kind)
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def log_message(self, *args: Any) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_address[1]}/runs/fleet_demo/manual__1", view, missed_city
    server.shutdown()
    server.server_close()


def test_the_page_sets_the_run_against_its_plan_group_by_group(
    served: tuple[str, dict[str, Any], str],
) -> None:
    from playwright.sync_api import sync_playwright

    url, view, missed_city = served
    against = view["plan_against_actual"]
    assert (against["planned_warm_starts"], against["warm_starts"], against["short"]) == (1, 0, True)
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox"])
        try:
            tab = browser.new_page()
            errors: list[str] = []
            tab.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
            tab.on("pageerror", lambda e: errors.append(str(e)))
            tab.goto(url)
            tab.locator("#plan-groups").wait_for(timeout=30_000)
            assert tab.locator("#plan-short").inner_text() == (
                f"Far fewer warm starts than planned: {against['headline']}."
            )
            (row,) = tab.locator("#plan-groups tbody tr").all()
            cells = [cell.inner_text() for cell in row.locator("td").all()]
            # group, pool key, planned jobs, planned warm, warm got, missed, why, pools nobody took, idle cost
            assert [cells[0], *cells[2:8]] == ["g0", "2", "1", "0", "1", "expiry 1", "1"]
            (missed,) = tab.locator("#missed-warm tbody tr").all()
            text = missed.inner_text()
            assert missed_city in text
            assert "expiry" in text
            assert "past its keep-alive of 240 s" in text
            # the planned and the actual lanes carry the plan's group name too
            assert "g0 · lane 1" in tab.locator("#plan-gantt").inner_html()
            assert "g0 · lane 1" in tab.locator("#actual-gantt").inner_html()
            assert errors == []
        finally:
            browser.close()
