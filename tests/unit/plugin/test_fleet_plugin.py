"""The Fleet view plugin as Airflow sees it: registered through the entry point, a Fleet tab on the DAG-run page
templated with the run's ids, a nav entry, one FastAPI app — and nothing of it with ``fleet_view = False``. On
Airflow 3.0 (no plugin ``external_views``) no tab and no nav entry: the app alone, its pages linked from the plan
task's "Fleet view" extra link."""

from __future__ import annotations

import tomllib
from importlib.metadata import entry_points
from pathlib import Path

import pytest

from sagemaker_fleet import plugin as plugin_module
from sagemaker_fleet.compat import has_external_views
from sagemaker_fleet.links.fleet import FleetViewLink
from sagemaker_fleet.plugin import SageMakerFleetPlugin

PYPROJECT = Path(__file__).resolve().parents[3] / "pyproject.toml"


def test_the_package_registers_the_plugin_through_the_airflow_plugins_entry_point() -> None:
    points = tomllib.loads(PYPROJECT.read_text())["project"]["entry-points"]["airflow.plugins"]
    assert points == {"sagemaker_fleet": "sagemaker_fleet.plugin:SageMakerFleetPlugin"}
    installed = [p for p in entry_points(group="airflow.plugins") if p.value.startswith("sagemaker_fleet")]
    for (
        point
    ) in installed:  # metadata of an install of this tree (an editable install of another may lack it)
        assert point.load() is SageMakerFleetPlugin


@pytest.mark.skipif(
    not has_external_views(),
    reason="Airflow 3.0 has no plugin external_views (no Fleet tab, no nav entry): "
    "test_without_external_views_no_tab_and_the_plan_task_links_the_page covers what it does instead",
)
def test_a_fleet_tab_on_the_run_page_and_a_nav_entry() -> None:
    plugin = SageMakerFleetPlugin()
    tab, nav = plugin.external_views
    assert tab == {
        "name": "Fleet",
        "href": "/sagemaker-fleet/runs/{DAG_ID}/{RUN_ID}",
        "destination": "dag_run",
        "url_route": "sagemaker-fleet",
    }
    assert (nav["destination"], nav["href"], nav["url_route"]) == (
        "nav",
        "/sagemaker-fleet/runs",
        "sagemaker-fleet-runs",
    )


def test_one_app_serves_the_pages_and_the_json() -> None:
    (app,) = SageMakerFleetPlugin().fastapi_apps
    assert app["url_prefix"] == "/sagemaker-fleet"
    paths = {route.path for route in app["app"].routes}
    assert {
        "/runs",
        "/api/runs",
        "/runs/{dag_id}/{run_id}",
        "/api/runs/{dag_id}/{run_id}",
        "/runs/{dag_id}/{run_id}/{name}",
    } <= paths
    # no API docs nor schema: served to anyone past Airflow's checks, and Swagger's scripts come from a CDN
    assert not {"/docs", "/redoc", "/openapi.json", "/docs/oauth2-redirect"} & paths
    assert app["app"].openapi_url is None


def test_fleet_view_false_adds_no_route_and_no_tab(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("AIRFLOW__SAGEMAKER_FLEET__FLEET_VIEW", "False")
    plugin = SageMakerFleetPlugin()
    assert plugin.external_views == []
    assert plugin.fastapi_apps == []


def test_without_external_views_no_tab_and_the_plan_task_links_the_page(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """What Airflow 3.0 gets (and any version told it has no external views): no tab, no nav entry, the app still
    served, and the plan task's extra link pointing at the plugin's own page of the run."""
    from sagemaker_fleet import compat

    monkeypatch.setattr(plugin_module, "has_external_views", lambda: False)
    monkeypatch.setattr(compat, "has_external_views", lambda: False)
    plugin = SageMakerFleetPlugin()
    assert plugin.external_views == []
    (app,) = plugin.fastapi_apps
    assert app["url_prefix"] == "/sagemaker-fleet"
    key = type("Key", (), {"dag_id": "fleet_demo", "run_id": "manual__2026-12-01T00:00:00+00:00"})()
    assert FleetViewLink().get_link(None, ti_key=key) == (
        "/sagemaker-fleet/runs/fleet_demo/manual__2026-12-01T00%3A00%3A00%2B00%3A00"
    )
    monkeypatch.setenv("AIRFLOW__API__BASE_URL", "https://airflow.example.com/")
    assert (
        FleetViewLink()
        .get_link(None, ti_key=key)
        .startswith("https://airflow.example.com/sagemaker-fleet/runs/")
    )


def test_the_plan_tasks_link_opens_the_fleet_tab_where_there_is_one(monkeypatch: pytest.MonkeyPatch) -> None:
    from sagemaker_fleet import compat

    monkeypatch.setattr(compat, "has_external_views", lambda: True)
    key = type("Key", (), {"dag_id": "fleet_demo", "run_id": "scheduled__1"})()
    assert (
        FleetViewLink().get_link(None, ti_key=key)
        == "/dags/fleet_demo/runs/scheduled__1/plugin/sagemaker-fleet"
    )
    monkeypatch.setenv("AIRFLOW__SAGEMAKER_FLEET__FLEET_VIEW", "False")
    assert FleetViewLink().get_link(None, ti_key=key) == ""
