"""The Fleet view's FastAPI app, mounted by Airflow's api-server under :data:`FLEET_VIEW_URL_PREFIX`.

Every route asks Airflow who the caller is and whether they may read the DAG, with the core API's own
dependencies (``requires_access_dag`` for a run's routes, ``get_user`` plus the auth manager's readable DAG ids for
the list): a JWT in the ``Authorization`` header or the UI's ``_token`` cookie, checked by whichever auth manager
Airflow is configured with (Airflow 3.0 reads the header only; :mod:`sagemaker_fleet.plugin.token` fills it in). The SageMaker side goes through :class:`SageMakerFleetHook` on the fleet's own
connection, so the view works against the simulator and AWS alike.
"""

from __future__ import annotations

import json
import logging
from pathlib import Path
from typing import Any, cast

from airflow.api_fastapi.auth.managers.models.resource_details import DagAccessEntity
from airflow.api_fastapi.common.db.common import SessionDep  # noqa: TC002 - FastAPI reads it at run time
from airflow.api_fastapi.core_api.security import GetUserDep, requires_access_dag
from fastapi import Depends, FastAPI, HTTPException, status
from fastapi.responses import HTMLResponse, JSONResponse, RedirectResponse, Response

from sagemaker_fleet.compat import UI_TOKEN_IN_LOCAL_STORAGE, has_external_views
from sagemaker_fleet.contract import FLEET_VIEW_URL_PREFIX, fleet_view_path
from sagemaker_fleet.cost.publish import CONTENT_TYPES
from sagemaker_fleet.fleetspec.names import report_s3_uri, split_s3_uri
from sagemaker_fleet.fleetview.page import fleet_page, runs_page
from sagemaker_fleet.fleetview.source import ViewCache
from sagemaker_fleet.plugin.runs import FleetRunRecord, NotAFleetRunError, fleet_runs, load_fleet_run
from sagemaker_fleet.plugin.views import REFRESH_SECONDS, disclosure_for, draw, read_run, spec_of, still_good

log = logging.getLogger(__name__)

REPORT_FILES = ("report.html", "report.json")

ReadRun = Depends(requires_access_dag(method="GET", access_entity=DagAccessEntity.RUN))
#: Each run's read (:class:`~sagemaker_fleet.plugin.views.RunRead`), shared by every viewer of the run.
CACHE = ViewCache()


def _readable_dag_ids(user: Any) -> set[str]:
    """The DAGs the auth manager lets ``user`` read."""
    from airflow.api_fastapi.app import get_auth_manager

    return set(get_auth_manager().get_authorized_dag_ids(user=user, method="GET"))


def _report_bytes(record: FleetRunRecord, name: str) -> bytes:
    """The report file the report task wrote: its local folder when this machine can see it, else S3."""
    local = (record.report or {}).get("local_html")
    if local:
        path = Path(str(local)).with_name(name)
        if path.is_file():
            return path.read_bytes()
    spec = spec_of(record)
    bucket, key = split_s3_uri(report_s3_uri(spec.output_s3_uri, record.run_key) + name)
    from airflow.providers.amazon.aws.hooks.s3 import S3Hook  # boto3's transfer stack: only when used

    s3 = S3Hook(aws_conn_id=record.aws_conn_id, region_name=spec.region)
    try:
        body: bytes = cast("Any", s3.get_conn()).get_object(Bucket=bucket, Key=key)["Body"].read()
    except Exception as exc:  # noqa: BLE001 - any S3 failure means: no report to show
        # the detail (bucket, key, the principal AWS names in an AccessDenied) is for the operator's log only
        log.warning(
            "no %s for run %s of %s at s3://%s/%s: %s", name, record.run_id, record.dag_id, bucket, key, exc
        )
        raise HTTPException(
            status.HTTP_404_NOT_FOUND,
            f"no {name} for this run: it could not be read (see the api-server's log)",
        ) from exc
    return body


def root(user: GetUserDep) -> RedirectResponse:
    return RedirectResponse(f"{FLEET_VIEW_URL_PREFIX}/runs")


def list_runs(user: GetUserDep, session: SessionDep) -> JSONResponse:
    """The newest runs of the fleet DAGs this user may read."""
    return JSONResponse({"runs": fleet_runs(session, _readable_dag_ids(user))})


def runs(user: GetUserDep) -> HTMLResponse:
    return HTMLResponse(runs_page(FLEET_VIEW_URL_PREFIX, tab=has_external_views()))


def run_view(dag_id: str, run_id: str, user: GetUserDep, session: SessionDep) -> JSONResponse:
    """The run's view JSON: its read shared by every viewer (:data:`CACHE`), drawn for this user (other fleets'
    jobs named only if the user may read one of their DAGs: :mod:`sagemaker_fleet.plugin.views`)."""
    read = CACHE.get(
        (dag_id, run_id),
        lambda reader: read_run(session, dag_id, run_id, reader),
        keep=still_good(session, dag_id, run_id),
    )
    if read.answer is not None:  # nothing of SageMaker to draw: the same for every reader
        view = read.answer
    else:
        view = draw(read, disclosure_for(read, lambda: _readable_dag_ids(user), session))
    code = status.HTTP_404_NOT_FOUND if view.get("missing") else status.HTTP_200_OK
    return JSONResponse(view, status_code=code)


def run_page(dag_id: str, run_id: str) -> HTMLResponse:
    # without a Fleet tab (Airflow 3.0) the page is shown on its own: a link back to the run in the UI
    back = (
        None if has_external_views() else fleet_view_path(dag_id, run_id, tab=True).rsplit("/plugin/", 1)[0]
    )
    return HTMLResponse(fleet_page(FLEET_VIEW_URL_PREFIX, dag_id, run_id, REFRESH_SECONDS, run_href=back))


def report_file(dag_id: str, run_id: str, name: str, session: SessionDep) -> Response:
    """report.html or report.json of a finished run, from where its report task wrote them."""
    if name not in REPORT_FILES:
        raise HTTPException(
            status.HTTP_404_NOT_FOUND, f"no such file: {name}; use one of {list(REPORT_FILES)}"
        )
    try:
        record = load_fleet_run(session, dag_id, run_id)
    except NotAFleetRunError as exc:
        raise HTTPException(status.HTTP_404_NOT_FOUND, str(exc)) from exc
    if record.report is None or record.report.get("dry_run"):
        raise HTTPException(
            status.HTTP_404_NOT_FOUND, "this run has no cost report (yet, or it was a dry run)"
        )
    body = _report_bytes(record, name)
    if name == "report.json":
        json.loads(body)  # only ever serve what the report task wrote: JSON
    return Response(body, media_type=CONTENT_TYPES[name])


def create_app() -> FastAPI:
    """The app the plugin hands the api-server; every route checks the caller (see the module docstring)."""
    # no /docs, /redoc nor /openapi.json: they would be served to anyone, without Airflow's checks, and load
    # Swagger's scripts from a CDN; the routes are documented in docs/guides/fleet-view.md
    app = FastAPI(
        title="SageMaker Fleet view",
        description="The Fleet tab of fleet DAG runs.",
        docs_url=None,
        redoc_url=None,
        openapi_url=None,
    )
    app.get("/", include_in_schema=False)(root)
    app.get("/api/runs")(list_runs)
    app.get("/runs", response_class=HTMLResponse)(runs)
    app.get("/api/runs/{dag_id}/{run_id}", dependencies=[ReadRun])(run_view)
    app.get("/runs/{dag_id}/{run_id}", response_class=HTMLResponse, dependencies=[ReadRun])(run_page)
    app.get("/runs/{dag_id}/{run_id}/{name}", dependencies=[ReadRun])(report_file)
    if UI_TOKEN_IN_LOCAL_STORAGE:
        from sagemaker_fleet.plugin.token import install

        install(app, FLEET_VIEW_URL_PREFIX)
    return app
