"""The Fleet tab's page draws the account's capacity beside the run's and the pools taken across runs, in a real
browser (Playwright driving Debian's Chromium): the page as the plugin serves it and the view JSON as
:func:`build_fleet_view` makes it, from a loopback HTTP server (no Airflow: the full stack is the e2e suite's) —
for a reader who may read the giver's fleet (its job named) and for one who may not (a sentence in its place)."""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import pytest

from sagemaker_fleet.cost.disclosure import Disclosure
from sagemaker_fleet.fleetspec.price_table import load_price_table
from sagemaker_fleet.fleetview.account import AccountSnapshot
from sagemaker_fleet.fleetview.model import RunContext, ViewInputs, build_fleet_view
from sagemaker_fleet.fleetview.page import fleet_page
from sagemaker_fleet.jobs.prices import PriceBook
from sagemaker_fleet.plan import plan_fleet
from unit.cost.cost_describes import RUN_KEY, T0, demo_spec, describe_job

pytestmark = [pytest.mark.integration, pytest.mark.chromium]
CHROMIUM = "/usr/bin/chromium"
TAKER = "demo-tokyo-20261129"
GIVER = "other-oslo-20261129"


def view_json(disclosure: Disclosure) -> dict[str, Any]:
    spec = demo_spec()
    seoul = describe_job(
        "demo-seoul-20261129",
        status="InProgress",
        secondary="Training",
        training=0,
        phases=[("Starting", 200.0), ("Training", 9.0)],
    )
    tokyo = describe_job(TAKER, created=900, startup=200)
    account = AccountSnapshot(
        listed_since=T0,
        other_running={"ml.m5.xlarge": 2},
        other_pools={"ml.m5.xlarge": 1},
        other_unknown=1,
        other_denied=1,
        givers={TAKER: GIVER},
    )
    book = PriceBook(spec.region, load_price_table())
    plan = plan_fleet(spec, RUN_KEY, None).to_json()
    view = build_fleet_view(
        RunContext("fleet_demo", "manual__1", RUN_KEY, "running"),
        ViewInputs(spec, plan, [seoul, tokyo], book, T0, account=account),
        disclosure,
    )
    view.update({"fleet_dag": True, "refresh_seconds": 60})
    return view


@pytest.fixture(params=[True, False], ids=["reads-the-givers-fleet", "reads-its-own-fleet-only"])
def served(request: pytest.FixtureRequest) -> Iterator[tuple[str, bool]]:
    page = fleet_page("", "fleet_demo", "manual__1", 60).encode()
    disclosure = Disclosure.of_fleet("demo", "other") if request.param else Disclosure.of_fleet("demo")
    body = json.dumps(view_json(disclosure)).encode()

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
    yield f"http://127.0.0.1:{server.server_address[1]}/runs/fleet_demo/manual__1", request.param
    server.shutdown()
    server.server_close()


def test_the_page_draws_the_accounts_capacity_and_the_pools_taken_across_runs(
    served: tuple[str, bool],
) -> None:
    from playwright.sync_api import sync_playwright

    url, named = served
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox"])
        try:
            tab = browser.new_page()
            errors: list[str] = []
            tab.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
            tab.on("pageerror", lambda e: errors.append(str(e)))
            tab.goto(url)
            tab.locator("#account-capacity").wait_for(timeout=30_000)
            rows = {
                cells[0]: cells[1:]
                for row in tab.locator("#account-capacity tbody tr").all()
                if (cells := [c.inner_text() for c in row.locator("td").all()])
            }
            quota = demo_spec().quotas.get("ml.m5.xlarge")
            # quota, this run running / idle pools, other runs running / idle pools, free
            expected_free = "—" if quota is None else str(max(0, quota.instances - 4))
            expected_quota = "—" if quota is None else str(quota.instances)
            assert rows["ml.m5.xlarge"] == [expected_quota, "1", "0", "2", "1", expected_free]
            assert "ml.g5.xlarge" in rows  # every type the run uses, other runs holding none of it
            crossed = tab.locator("#pools-across-runs").inner_text()
            assert TAKER in crossed
            assert (GIVER in crossed) is named
            assert ("a job of a fleet whose DAGs you may not read" in crossed) is not named
            assert (GIVER in tab.content()) is named
            assert "may not be described" in tab.locator("#account-unknown").inner_text()
            assert errors == []
        finally:
            browser.close()
