"""The plan task of the manual DAG writes the run's note through the api-server (a stand-in here): what was asked,
the plan's starts and makespan, the expected cost; an unknown city is refused in one short line, in the note and
the failure, without retries; an api-server that cannot be reached costs the note, not the run."""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest

from sagemaker_fleet.compat import AirflowFailException, has_external_views
from sagemaker_fleet.cost.estimate import estimate_plan_cost
from sagemaker_fleet.fleetspec import load_fleet_spec
from sagemaker_fleet.fleetspec.overrides import FleetOverrides, apply_overrides
from sagemaker_fleet.fleetspec.price_table import load_price_table
from sagemaker_fleet.jobs.prices import PriceBook
from sagemaker_fleet.operators.plan import PlanFleetOperator
from sagemaker_fleet.plan.jsonread import JsonObject
from sagemaker_fleet.plan.model import PlanSummary
from sagemaker_fleet.runnote import cost_line, dry_run_line, fleet_view_line

SMALL = Path(__file__).resolve().parents[3] / "dags" / "fleets" / "small.yaml"
RUN_ID = "manual__2026-12-01T10:00:00+00:00"
#: Where the UI has no Fleet tab (Airflow 3.0) the note's last line links the run's Fleet view page.
FLEET_VIEW = (
    []
    if has_external_views()
    else [
        fleet_view_line(
            f"/sagemaker-fleet/runs/city_training_manual/{RUN_ID.replace(':', '%3A').replace('+', '%2B')}"
        )
    ]
)


class FakeApi(ThreadingHTTPServer):
    """The two calls of Airflow's public API the note needs, and the token endpoint."""

    def __init__(self) -> None:
        super().__init__(("127.0.0.1", 0), _Handler)
        self.note: str | None = "typed by hand"
        self.calls: list[tuple[str, str, str | None]] = []  # method, path, Authorization
        self.token: str | None = None  # when set, the run calls need it

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.server_address[1]}"


class _Handler(BaseHTTPRequestHandler):
    server: FakeApi

    def _answer(self, code: int, body: Any) -> None:
        data = json.dumps(body).encode()
        self.send_response(code)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def _body(self) -> dict[str, Any]:
        return json.loads(self.rfile.read(int(self.headers["Content-Length"])))

    def _allowed(self) -> bool:
        self.server.calls.append((self.command, self.path, self.headers.get("Authorization")))
        if self.server.token and self.headers.get("Authorization") != f"Bearer {self.server.token}":
            self._answer(401, {"detail": "Not authenticated"})
            return False
        return True

    def do_GET(self) -> None:
        if self._allowed():
            self._answer(200, {"dag_run_id": RUN_ID, "note": self.server.note})

    def do_PATCH(self) -> None:
        if self._allowed():
            self.server.note = self._body()["note"]
            self._answer(200, {"dag_run_id": RUN_ID, "note": self.server.note})

    def do_POST(self) -> None:
        body = self._body()
        ok = self.path == "/auth/token" and body == {"username": "fleet-bot", "password": "s3cret"}
        self._answer(201, {"access_token": "tok-1"}) if ok else self._answer(401, {"detail": "bad login"})

    def log_message(self, *args: Any) -> None:
        pass


@pytest.fixture
def api(monkeypatch: pytest.MonkeyPatch) -> Iterator[FakeApi]:
    server = FakeApi()
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    monkeypatch.setenv("AIRFLOW_CONN_AIRFLOW_API", json.dumps({"conn_type": "http", "host": server.url}))
    yield server
    server.shutdown()
    server.server_close()


class _TaskInstance:
    dag_id = "city_training_manual"
    run_id = RUN_ID

    def __init__(self) -> None:
        self.xcoms: dict[str, Any] = {}

    def xcom_push(self, key: str, value: Any) -> None:
        self.xcoms[key] = value


def _plan(params: dict[str, Any]) -> tuple[Any, _TaskInstance]:
    ti = _TaskInstance()
    operator = PlanFleetOperator(task_id="plan", spec_path=str(SMALL), use_params=True, use_history=False)
    context = {"ti": ti, "params": params, "run_id": RUN_ID, "logical_date": None}
    return operator.execute(context), ti  # type: ignore[arg-type]


def test_a_dry_run_of_three_cities_says_what_was_asked_planned_and_what_it_would_cost(api: FakeApi) -> None:
    picked = ["lima", "oslo", "seoul"]
    cities, ti = _plan({"cities": picked, "spot": True, "instance_type": None, "dry_run": True})
    assert sorted(cities) == picked  # returned in start order: the mapped training task expands over them
    summary = ti.xcoms["summary"]
    assert summary["jobs"] == 3
    spec = apply_overrides(load_fleet_spec(SMALL), FleetOverrides(cities=tuple(picked)))
    estimate = estimate_plan_cost(
        ti.xcoms["plan"], spec, PriceBook(spec.region, load_price_table(), spec.prices)
    )
    assert estimate["expected_usd"] > 0
    assert api.note == "\n".join(
        [
            "typed by hand",
            "",
            dry_run_line(PlanSummary.from_json(JsonObject(summary, "summary")), estimate),
            "- Asked: 3 of 12 cities (lima, oslo, seoul) · spot on · instance type: fleet default · dry run",
            cost_line(estimate),
            *FLEET_VIEW,
        ]
    )
    assert [(m, p.split("?")[0]) for m, p, _ in api.calls] == [
        (
            "GET",
            f"/api/v2/dags/city_training_manual/dagRuns/{RUN_ID.replace(':', '%3A').replace('+', '%2B')}",
        ),
        (
            "PATCH",
            f"/api/v2/dags/city_training_manual/dagRuns/{RUN_ID.replace(':', '%3A').replace('+', '%2B')}",
        ),
    ]
    assert api.calls[1][1].endswith("?update_mask=note")


def test_an_unknown_city_is_refused_in_one_short_line_without_retries(api: FakeApi) -> None:
    with pytest.raises(AirflowFailException) as refused:
        _plan({"cities": ["lima", "atlantis"], "spot": True, "instance_type": None, "dry_run": False})
    message = str(refused.value)
    assert "unknown city 'atlantis'" in message
    assert "oslo" not in message
    assert len(message) < 200
    assert api.note is not None
    assert api.note.startswith("typed by hand\n\n- Refused: params.cities: unknown city 'atlantis'")
    assert "nothing was launched" in api.note
    assert "- Asked: 2 of 12 cities (lima, atlantis)" in api.note


def test_the_note_uses_a_token_from_the_connections_login(
    api: FakeApi, monkeypatch: pytest.MonkeyPatch
) -> None:
    api.token = "tok-1"
    monkeypatch.setenv(
        "AIRFLOW_CONN_AIRFLOW_API",
        json.dumps({"conn_type": "http", "host": api.url, "login": "fleet-bot", "password": "s3cret"}),
    )
    _plan({"cities": [], "spot": False, "instance_type": "ml.m5.xlarge", "dry_run": False})
    assert api.note is not None
    asked, planned, cost, *view = api.note.split("\n\n")[1].split("\n")
    assert view == FLEET_VIEW
    assert asked == "- Asked: all 12 cities · spot off · instance type: ml.m5.xlarge · train"
    assert planned.startswith("- Planned: 12 jobs · ")
    assert cost.startswith("- Expected cost: $")
    assert {auth for method, _, auth in api.calls if method != "POST"} == {"Bearer tok-1"}


def test_an_api_server_that_refuses_costs_the_note_not_the_plan(api: FakeApi, capsys) -> None:
    api.token = "needed-but-not-given"
    cities, ti = _plan({"cities": ["lima"], "dry_run": False})
    assert cities == ["lima"]
    assert ti.xcoms["summary"]["jobs"] == 1
    assert "plan" in ti.xcoms
    assert api.note == "typed by hand"
    log = capsys.readouterr().out  # the task log
    assert "could not write the run's note" in log
    assert "HTTP 401" in log


def test_without_a_fleet_tab_the_note_links_the_runs_fleet_view_page(
    api: FakeApi, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Airflow 3.0 (no plugin tabs, here on any version): the note's last line is the run's Fleet view page."""
    from sagemaker_fleet.operators import plan as plan_module

    monkeypatch.setattr(plan_module, "has_external_views", lambda: False)
    monkeypatch.setattr("sagemaker_fleet.compat.has_external_views", lambda: False)
    _plan({"cities": ["lima"], "spot": False, "instance_type": None, "dry_run": True})
    assert api.note is not None
    last = api.note.splitlines()[-1]
    assert last == fleet_view_line(
        "/sagemaker-fleet/runs/city_training_manual/manual__2026-12-01T10%3A00%3A00%2B00%3A00"
    )
    assert last.startswith("- [Fleet view](/sagemaker-fleet/runs/")
