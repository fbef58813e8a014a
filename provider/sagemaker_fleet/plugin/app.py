"""The Fleet view's FastAPI app, mounted by Airflow's api-server under :data:`URL_PREFIX`.

Every route asks Airflow who the caller is and whether they may read the DAG, with the core API's own
dependencies (``requires_access_dag`` for a run's routes, ``get_user`` plus the auth manager's readable DAG ids for
the list): a JWT in the ``Authorization`` header or the UI's ``_token`` cookie, checked by whichever auth manager
Airflow is configured with (Airflow 3.0 reads the header only; :mod:`sagemaker_fleet.plugin.token` fills it in). The SageMaker side goes through :class:`SageMakerFleetHook` on the fleet's own
connection, so the view works against the simulator and AWS alike.
"""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path
from typing import TYPE_CHECKING, Any, cast
from urllib.parse import quote

from airflow.api_fastapi.auth.managers.models.resource_details import DagAccessEntity
from airflow.api_fastapi.common.db.common import SessionDep  # noqa: TC002 - FastAPI reads it at run time
from airflow.api_fastapi.core_api.security import GetUserDep, requires_access_dag
from fastapi import Depends, FastAPI, HTTPException, status
from fastapi.responses import HTMLResponse, JSONResponse, RedirectResponse, Response

from sagemaker_fleet.compat import UI_TOKEN_IN_LOCAL_STORAGE, has_external_views
from sagemaker_fleet.contract import fleet_view_path
from sagemaker_fleet.cost.publish import CONTENT_TYPES
from sagemaker_fleet.cost.report import RunJobIndex
from sagemaker_fleet.fleetspec.errors import FleetSpecError
from sagemaker_fleet.fleetspec.names import report_s3_uri, split_s3_uri
from sagemaker_fleet.fleetspec.runspec import load_run_spec
from sagemaker_fleet.fleetview.model import RunContext, ViewInputs, build_fleet_view, utc_now
from sagemaker_fleet.fleetview.page import fleet_page, runs_page
from sagemaker_fleet.fleetview.source import RunJobsReader, ViewCache
from sagemaker_fleet.jobs.prices import PriceBook
from sagemaker_fleet.plugin.runs import FleetRunRecord, NotAFleetRunError, fleet_runs, load_fleet_run
from sagemaker_fleet.registry.decision import decisions_from_json

if TYPE_CHECKING:
    from sagemaker_fleet.fleetspec.model import FleetSpec

from sagemaker_fleet.plugin.settings import URL_PREFIX

REFRESH_SECONDS = 5
REPORT_FILES = ("report.html", "report.json")

ReadRun = Depends(requires_access_dag(method="GET", access_entity=DagAccessEntity.RUN))
CACHE = ViewCache()


def _spec_of(record: FleetRunRecord) -> FleetSpec:
    return load_run_spec(record.spec_path, record.params, use_params=record.use_params).spec


def _report_url(record: FleetRunRecord) -> str | None:
    if record.report is None or record.report.get("dry_run"):
        return None
    return f"{URL_PREFIX}/runs/{quote(record.dag_id, safe='')}/{quote(record.run_id, safe='')}/report.html"


def _hook(record: FleetRunRecord, spec: FleetSpec) -> Any:
    from sagemaker_fleet.hooks.fleet import SageMakerFleetHook

    return SageMakerFleetHook(aws_conn_id=record.aws_conn_id, region_name=spec.region)


def _compute(session: Any, dag_id: str, run_id: str, reader: RunJobsReader | None) -> tuple[Any, Any]:
    """The view's JSON and the jobs reader to keep for the next refresh (its cached describes)."""
    try:
        record = load_fleet_run(session, dag_id, run_id)
    except NotAFleetRunError as exc:
        return {"fleet_dag": False, "missing": exc.missing, "message": str(exc)}, None
    try:
        spec = _spec_of(record)
    except FleetSpecError as exc:
        return {
            "fleet_dag": True,
            "refused": True,
            "state": record.state,
            "message": f"the plan task refused this run's params: {exc}",
        }, None
    dry_run = bool(record.params.get("dry_run"))
    context = RunContext(
        dag_id, run_id, record.run_key, record.state, _report_url(record), dry_run, record.plan_task_state
    )
    if reader is None or reader.run_key != record.run_key:
        reader = RunJobsReader(record.run_key, RunJobIndex.for_run(spec, record.run_key).names)
    describes, stats = reader.read(_hook(record, spec)) if not dry_run else ([], None)
    inputs = ViewInputs(
        spec,
        record.plan,
        describes,
        PriceBook.for_spec(spec),
        utc_now(),
        models=decisions_from_json(record.models),
    )
    if stats is not None:  # the run's jobs and the account's, as this refresh read them
        inputs = dataclasses.replace(inputs, stats=stats, account=reader.account)
    view = build_fleet_view(context, inputs)
    view.update({"fleet_dag": True, "refresh_seconds": REFRESH_SECONDS})
    return view, reader


def _report_bytes(record: FleetRunRecord, name: str) -> bytes:
    """The report file the report task wrote: its local folder when this machine can see it, else S3."""
    local = (record.report or {}).get("local_html")
    if local:
        path = Path(str(local)).with_name(name)
        if path.is_file():
            return path.read_bytes()
    spec = _spec_of(record)
    bucket, key = split_s3_uri(report_s3_uri(spec.output_s3_uri, record.run_key) + name)
    from airflow.providers.amazon.aws.hooks.s3 import S3Hook  # boto3's transfer stack: only when used

    s3 = S3Hook(aws_conn_id=record.aws_conn_id, region_name=spec.region)
    try:
        body: bytes = cast("Any", s3.get_conn()).get_object(Bucket=bucket, Key=key)["Body"].read()
    except Exception as exc:  # noqa: BLE001 - any S3 failure means: no report to show
        raise HTTPException(
            status.HTTP_404_NOT_FOUND, f"no {name} for this run at s3://{bucket}/{key}: {exc}"
        ) from exc
    return body


def root(user: GetUserDep) -> RedirectResponse:
    return RedirectResponse(f"{URL_PREFIX}/runs")


def list_runs(user: GetUserDep, session: SessionDep) -> JSONResponse:
    """The newest runs of the fleet DAGs this user may read."""
    from airflow.api_fastapi.app import get_auth_manager

    readable = get_auth_manager().get_authorized_dag_ids(user=user, method="GET")
    return JSONResponse({"runs": fleet_runs(session, set(readable))})


def runs(user: GetUserDep) -> HTMLResponse:
    return HTMLResponse(runs_page(URL_PREFIX, tab=has_external_views()))


def run_view(dag_id: str, run_id: str, session: SessionDep) -> JSONResponse:
    """The run's view JSON, shared by every viewer for a few seconds (:data:`CACHE`)."""
    view = CACHE.get((dag_id, run_id), lambda reader: _compute(session, dag_id, run_id, reader))
    code = status.HTTP_404_NOT_FOUND if view.get("missing") else status.HTTP_200_OK
    return JSONResponse(view, status_code=code)


def run_page(dag_id: str, run_id: str) -> HTMLResponse:
    # without a Fleet tab (Airflow 3.0) the page is shown on its own: a link back to the run in the UI
    back = (
        None if has_external_views() else fleet_view_path(dag_id, run_id, tab=True).rsplit("/plugin/", 1)[0]
    )
    return HTMLResponse(fleet_page(URL_PREFIX, dag_id, run_id, REFRESH_SECONDS, run_href=back))


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
    app = FastAPI(title="SageMaker Fleet view", description="The Fleet tab of fleet DAG runs.")
    app.get("/", include_in_schema=False)(root)
    app.get("/api/runs")(list_runs)
    app.get("/runs", response_class=HTMLResponse)(runs)
    app.get("/api/runs/{dag_id}/{run_id}", dependencies=[ReadRun])(run_view)
    app.get("/runs/{dag_id}/{run_id}", response_class=HTMLResponse, dependencies=[ReadRun])(run_page)
    app.get("/runs/{dag_id}/{run_id}/{name}", dependencies=[ReadRun])(report_file)
    if UI_TOKEN_IN_LOCAL_STORAGE:
        from sagemaker_fleet.plugin.token import install

        install(app, URL_PREFIX)
    return app
