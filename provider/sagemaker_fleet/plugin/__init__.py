"""The Fleet view in Airflow's UI: a **Fleet** tab on every DAG run's page and a nav entry listing fleet runs.

Airflow 3.0 has no plugin ``external_views``: there the view is the plugin's own page,
``/sagemaker-fleet/runs/<dag_id>/<run_id>``, linked from the plan task's "Fleet view" extra link and a manual run's
note (:func:`sagemaker_fleet.compat.features`).

Registered through the ``airflow.plugins`` entry point. Turn it off with ``[sagemaker_fleet] fleet_view = False``
(``AIRFLOW__SAGEMAKER_FLEET__FLEET_VIEW=False``): the plugin then adds no route and no tab. The FastAPI app is
built only when the api-server asks for it, so schedulers and workers that load plugins import none of it.

- ``__init__.py``: the plugin itself (the tab, the nav entry, the app on demand);
- ``app.py``: the view's FastAPI app, mounted under :data:`~sagemaker_fleet.contract.FLEET_VIEW_URL_PREFIX`;
- ``runs.py``: what the api-server knows of a fleet run, from Airflow's metadata DB, and which fleets a user may
  read;
- ``views.py``: a run's view, read once for every viewer and drawn for each (what they may see of other fleets);
- ``settings.py``: whether the view is on;
- ``token.py``: Airflow 3.0 only, the view's pages in a plain browser tab behind Airflow's own auth.
"""

from __future__ import annotations

from functools import cached_property
from typing import Any

from airflow.plugins_manager import AirflowPlugin

from sagemaker_fleet.compat import has_external_views
from sagemaker_fleet.contract import FLEET_VIEW_URL_PREFIX, FLEET_VIEW_URL_ROUTE
from sagemaker_fleet.plugin.settings import fleet_view_enabled


class SageMakerFleetPlugin(AirflowPlugin):
    """The Fleet tab (``destination: dag_run``) and the fleet runs list (``nav``), served by one FastAPI app."""

    name = "sagemaker_fleet"

    @cached_property
    def fastapi_apps(self) -> list[dict[str, Any]]:  # type: ignore[override]
        if not fleet_view_enabled():
            return []
        from sagemaker_fleet.plugin.app import create_app

        return [{"app": create_app(), "url_prefix": FLEET_VIEW_URL_PREFIX, "name": "SageMaker Fleet view"}]

    @property
    def external_views(self) -> list[dict[str, Any]]:  # type: ignore[override]
        if not fleet_view_enabled() or not has_external_views():
            return []
        return [
            {
                "name": "Fleet",
                "href": f"{FLEET_VIEW_URL_PREFIX}/runs/{{DAG_ID}}/{{RUN_ID}}",
                "destination": "dag_run",
                "url_route": FLEET_VIEW_URL_ROUTE,
            },
            {
                "name": "SageMaker fleets",
                "href": f"{FLEET_VIEW_URL_PREFIX}/runs",
                "destination": "nav",
                "category": "browse",
                "url_route": f"{FLEET_VIEW_URL_ROUTE}-runs",
            },
        ]
