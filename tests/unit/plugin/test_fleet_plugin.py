"""The Fleet view plugin as Airflow sees it: registered through the entry point, a Fleet tab on the DAG-run page
templated with the run's ids, a nav entry, one FastAPI app — and nothing of it with ``fleet_view = False``."""

from __future__ import annotations

import tomllib
from importlib.metadata import entry_points
from pathlib import Path
from typing import TYPE_CHECKING

from sagemaker_fleet.plugin import SageMakerFleetPlugin

if TYPE_CHECKING:
    import pytest

PYPROJECT = Path(__file__).resolve().parents[3] / "pyproject.toml"


def test_the_package_registers_the_plugin_through_the_airflow_plugins_entry_point() -> None:
    points = tomllib.loads(PYPROJECT.read_text())["project"]["entry-points"]["airflow.plugins"]
    assert points == {"sagemaker_fleet": "sagemaker_fleet.plugin:SageMakerFleetPlugin"}
    installed = [p for p in entry_points(group="airflow.plugins") if p.value.startswith("sagemaker_fleet")]
    for (
        point
    ) in installed:  # metadata of an install of this tree (an editable install of another may lack it)
        assert point.load() is SageMakerFleetPlugin


def test_a_fleet_tab_on_the_run_page_a_nav_entry_and_one_app() -> None:
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
    (app,) = plugin.fastapi_apps
    assert app["url_prefix"] == "/sagemaker-fleet"
    paths = {route.path for route in app["app"].routes}
    assert {
        "/runs",
        "/api/runs",
        "/runs/{dag_id}/{run_id}",
        "/api/runs/{dag_id}/{run_id}",
        "/runs/{dag_id}/{run_id}/{name}",
    } <= paths


def test_fleet_view_false_adds_no_route_and_no_tab(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("AIRFLOW__SAGEMAKER_FLEET__FLEET_VIEW", "False")
    plugin = SageMakerFleetPlugin()
    assert plugin.external_views == []
    assert plugin.fastapi_apps == []
