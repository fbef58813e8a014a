"""The Fleet view's FastAPI app over HTTP, with Airflow's simple auth manager (users, not all-admins; one user
confined to one DAG: tests/team_auth.py), a real metadata DB (the fleet DAGs serialized, runs and the plan XCom as
the tasks leave them) and the simulator behind the provider's hook (boto3 over HTTP)."""

from __future__ import annotations

import json
import logging
from pathlib import Path
from typing import Any

import pytest

from airflow_db import latest_dag, sync_dag_folder
from sagemaker_fleet.compat import has_external_views
from sagemaker_fleet.fleetspec import load_fleet_spec
from sagemaker_fleet.fleetspec.names import job_name, run_key_for
from sagemaker_fleet.jobs.prices import PriceBook
from sagemaker_fleet.jobs.request import Submission, compile_training_request
from sagemaker_fleet.plan import plan_fleet

pytestmark = pytest.mark.integration

DAGS = Path(__file__).resolve().parent / "dags"
QUICK = Path(__file__).resolve().parent / "fleets" / "quick.yaml"
FLEET_DAG = "fleetview_quick"
RUN_ID = "manual__fleetview-1"
OTHER_RUN = "manual__not-a-fleet"
PREFIX = "/sagemaker-fleet"


@pytest.fixture(scope="module")
def db_state(airflow_db: Path) -> dict[str, Any]:
    """The DAG folder synced to the DB, a fleet run with its plan XCom and a run of a non-fleet DAG."""
    from airflow.models.dagrun import DagRun
    from airflow.models.xcom import XComModel
    from airflow.utils.session import create_session
    from airflow.utils.state import DagRunState
    from airflow.utils.types import DagRunType

    bag = sync_dag_folder(DAGS)
    assert not bag.import_errors, bag.import_errors
    spec = load_fleet_spec(QUICK)
    run_key = run_key_for(None, RUN_ID, "manual", dag_id=FLEET_DAG)
    plan = plan_fleet(spec, run_key, None).to_json()
    import datetime as dt

    from airflow.utils.types import DagRunTriggeredByType

    with create_session() as session:
        for dag_id, run_id in ((FLEET_DAG, RUN_ID), ("op_train", OTHER_RUN)):
            session.query(DagRun).filter(DagRun.dag_id == dag_id, DagRun.run_id == run_id).delete()
            session.commit()
            dag = latest_dag(dag_id, session)
            dag.create_dagrun(
                run_id=run_id,
                run_after=dt.datetime.now(dt.UTC),
                conf={},
                run_type=DagRunType.MANUAL,
                triggered_by=DagRunTriggeredByType.TEST,
                state=DagRunState.RUNNING,
                session=session,
            )
        session.commit()
    XComModel.set(key="plan", value=plan, dag_id=FLEET_DAG, task_id="plan", run_id=RUN_ID)
    return {"spec": spec, "run_key": run_key, "plan": plan}


@pytest.fixture
def client(db_state: dict[str, Any], aws_sim: Any, monkeypatch: pytest.MonkeyPatch) -> Any:
    return _client(monkeypatch)


@pytest.fixture
def client_30(db_state: dict[str, Any], aws_sim: Any, monkeypatch: pytest.MonkeyPatch) -> Any:
    """The app as Airflow 3.0 gets it (its UI keeps the token in localStorage), built so on any version."""
    from sagemaker_fleet.plugin import app as plugin_app

    monkeypatch.setattr(plugin_app, "UI_TOKEN_IN_LOCAL_STORAGE", True)
    return _client(monkeypatch)


def _client(monkeypatch: pytest.MonkeyPatch) -> Any:
    from airflow.api_fastapi.app import init_auth_manager, purge_cached_app
    from fastapi import FastAPI
    from fastapi.testclient import TestClient

    from sagemaker_fleet.fleetview.source import ViewCache
    from sagemaker_fleet.plugin import app as plugin_app
    from sagemaker_fleet.plugin.app import create_app

    monkeypatch.setenv("AIRFLOW__CORE__SIMPLE_AUTH_MANAGER_ALL_ADMINS", "False")
    monkeypatch.setenv("AIRFLOW__CORE__SIMPLE_AUTH_MANAGER_USERS", "viewer:viewer,nobody:,quick-team:viewer")
    monkeypatch.setenv("AIRFLOW__CORE__AUTH_MANAGER", "team_auth.TeamAuthManager")
    monkeypatch.setenv("AIRFLOW__API_AUTH__JWT_SECRET", "fleet-view-tests-" + "x" * 64)
    monkeypatch.setattr(plugin_app, "CACHE", ViewCache(ttl=60.0))
    purge_cached_app()
    parent = FastAPI()
    init_auth_manager(parent)
    parent.mount(PREFIX, create_app())
    return TestClient(parent)


def token(role: str | None, name: str) -> dict[str, str]:
    from airflow.api_fastapi.app import get_auth_manager
    from airflow.api_fastapi.auth.managers.simple.user import SimpleAuthManagerUser

    jwt = get_auth_manager().generate_jwt(SimpleAuthManagerUser(username=name, role=role))
    return {"Authorization": f"Bearer {jwt}"}


def routes(run_id: str = RUN_ID, dag_id: str = FLEET_DAG) -> list[str]:
    return [
        f"{PREFIX}/runs",
        f"{PREFIX}/api/runs",
        f"{PREFIX}/runs/{dag_id}/{run_id}",
        f"{PREFIX}/api/runs/{dag_id}/{run_id}",
        f"{PREFIX}/runs/{dag_id}/{run_id}/report.html",
    ]


def test_anonymous_requests_are_refused_on_every_route(client: Any) -> None:
    for route in routes():
        assert client.get(route).status_code == 401, route
    assert client.get(routes()[3], headers={"Authorization": "Bearer not-a-jwt"}).status_code == 403


def jwt_of(role: str | None, name: str) -> str:
    return token(role, name)["Authorization"].removeprefix("Bearer ")


def test_a_browser_that_carries_the_login_cookie_gets_the_pages_and_the_json(client: Any) -> None:
    """A plain browser request, the JWT in the ``_token`` cookie: Airflow 3.1+ reads it, and on 3.0 the view hands
    its own cookie to Airflow's checks as the Authorization header (:mod:`sagemaker_fleet.plugin.token`)."""
    client.cookies.set("_token", jwt_of("viewer", "viewer"))
    for route in (routes()[0], routes()[1], routes()[2]):
        assert client.get(route).status_code == 200, route
    # the runs list links each run to its Fleet tab (3.1+) or to the view's own page of the run (3.0)
    assert f'data-tab="{1 if has_external_views() else 0}"' in client.get(routes()[0]).text
    client.cookies.set("_token", jwt_of(None, "nobody"))
    assert client.get(routes()[2]).status_code == 403


def test_on_airflow_3_0_a_refused_page_copies_the_uis_token_and_the_json_stays_json(client_30: Any) -> None:
    """Airflow 3.0's UI keeps the login's token in localStorage: a page opened without credentials answers with a
    page whose script copies it into the view's cookie and loads the page again; the JSON routes answer as
    Airflow does. Once the cookie is there, Airflow's own checks decide: a reader gets the page, another user
    not."""
    page = client_30.get(routes()[2])
    assert page.status_code == 401
    assert page.headers["content-type"].startswith("text/html")
    assert 'data-key="token"' in page.text
    assert 'data-cookie="_token"' in page.text
    assert 'data-prefix="/sagemaker-fleet"' in page.text
    assert "localStorage" in page.text
    assert "Not authenticated" in page.text
    api = client_30.get(routes()[3])
    assert (api.status_code, api.json()) == (401, {"detail": "Not authenticated"})
    client_30.cookies.set("_token", jwt_of("viewer", "viewer"))
    shown = client_30.get(routes()[2])
    assert shown.status_code == 200
    # shown on its own where there is no Fleet tab (3.0): with a link back to the run in Airflow's UI
    assert ('id="run-link" href="/dags/fleetview_quick/runs/manual__fleetview-1"' in shown.text) is (
        not has_external_views()
    )
    assert client_30.get(routes()[3]).status_code == 200
    client_30.cookies.set("_token", jwt_of(None, "nobody"))
    refused = client_30.get(routes()[2])
    assert refused.status_code == 403
    assert "Airflow refused this page (403" in refused.text


def test_a_user_who_may_not_read_the_dag_is_refused(client: Any) -> None:
    nobody = token(None, "nobody")  # authenticated, but no role: may read no DAG
    for route in routes()[2:]:
        assert client.get(route, headers=nobody).status_code == 403, route
    assert client.get(f"{PREFIX}/api/runs", headers=nobody).json() == {"runs": []}


def test_the_view_of_a_running_fleet_from_one_listing_through_the_hook(
    client: Any, db_state: dict[str, Any], aws_sim: Any
) -> None:
    spec, run_key = db_state["spec"], db_state["run_key"]
    sagemaker = aws_sim.boto3_client("sagemaker")
    aws_sim.set_work(60, city="seoul", fleet="quick")
    aws_sim.set_work(500, city="tokyo", fleet="quick")
    for city in ("seoul", "tokyo"):
        sagemaker.create_training_job(
            **compile_training_request(spec, spec.city(city), Submission(city, run_key))
        )
    seoul = job_name("quick", "seoul", run_key)
    aws_sim.advance(400)  # seoul starts up, trains its 60 s and ends; tokyo is still training
    described = sagemaker.describe_training_job(TrainingJobName=seoul)
    before = aws_sim.calls()["calls"]
    viewer = token("viewer", "viewer")
    answer = client.get(f"{PREFIX}/api/runs/{FLEET_DAG}/{RUN_ID}", headers=viewer)
    assert answer.status_code == 200, answer.text
    view = answer.json()
    after = aws_sim.calls()["calls"]
    delta = {
        op: after.get(op, 0) - before.get(op, 0) for op in after if after.get(op, 0) != before.get(op, 0)
    }
    # the run's listing and the account's (issue #28), one describe per job of the run, none of other runs' (none)
    assert delta == {"ListTrainingJobs": 2, "DescribeTrainingJob": 2}
    assert view["fleet_dag"] is True
    assert view["run_key"] == run_key
    assert {j["city"]: j["status"] for j in view["jobs"]}["seoul"] == "Completed"
    waiting = sorted(w["city"] for w in view["waiting"])
    assert waiting == sorted({c.name for c in spec.cities} - {"seoul", "tokyo"})
    price = PriceBook.for_spec(spec).price("ml.m5.xlarge").usd_per_hour
    retained = (described.get("WarmPoolStatus") or {}).get("ResourceRetainedBillableTimeInSeconds", 0)
    assert {j["city"]: j["status"] for j in view["jobs"]}["tokyo"] == "InProgress"
    assert view["cost"]["billed_usd"] == round(
        (described["BillableTimeInSeconds"] + retained) * price / 3600, 2
    )
    assert view["cost"]["expected_usd"] is not None
    assert 'class="job planned"' in view["gantt"]["plan_svg"]
    assert view["gantt"]["actual_svg"].count('class="job"') == 2
    # one name per group: the jobs and the plan against actual carry the plan's group ids (the XCom's)
    plan = db_state["plan"]
    planned_group = {job["city"]: job["group"] for job in plan["jobs"]}
    assert {j["city"]: j["group"] for j in view["jobs"]} == {c: planned_group[c] for c in ("seoul", "tokyo")}
    against = view["plan_against_actual"]
    assert [g["group"] for g in against["groups"]] == [g["group"] for g in plan["groups"]]
    assert against["planned_warm_starts"] == plan["summary"]["warm_starts"]
    # a second viewer within the cache's lifetime costs SageMaker nothing
    again = client.get(f"{PREFIX}/api/runs/{FLEET_DAG}/{RUN_ID}", headers=viewer).json()
    assert again["generated_at"] == view["generated_at"]
    assert aws_sim.calls()["calls"] == after
    page = client.get(f"{PREFIX}/runs/{FLEET_DAG}/{RUN_ID}", headers=viewer)
    assert page.status_code == 200
    assert f'data-api="{PREFIX}/api/runs/{FLEET_DAG}/manual__fleetview-1"' in page.text
    runs = client.get(f"{PREFIX}/api/runs", headers=viewer).json()["runs"]
    assert [(r["dag_id"], r["run_id"]) for r in runs] == [(FLEET_DAG, RUN_ID)]  # not op_train's run


def test_the_view_shows_what_other_runs_hold_of_the_accounts_capacity_and_describes_them_once(
    client: Any, db_state: dict[str, Any], aws_sim: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    from sagemaker_fleet.plugin import app as plugin_app
    from sim_fixtures import make_request

    spec, run_key = db_state["spec"], db_state["run_key"]
    sagemaker = aws_sim.boto3_client("sagemaker")
    other_role = "arn:aws:iam::111122223333:role/OtherTeam"
    for name in ("other-lisbon", "other-lima"):
        aws_sim.set_work(30, job=name)
    # two Available pools: one of another key, one of the run's key, which tokyo starts on
    sagemaker.create_training_job(**make_request("other-lisbon", keep_alive=1800, RoleArn=other_role))
    sagemaker.create_training_job(**make_request("other-lima", keep_alive=1800))
    aws_sim.advance(400)
    aws_sim.set_work(5000, job="team-forecast")
    aws_sim.set_work(5000, city="tokyo", fleet="quick")
    sagemaker.create_training_job(**make_request("team-forecast", ResourceConfig={"InstanceCount": 3}))
    sagemaker.create_training_job(
        **compile_training_request(spec, spec.city("tokyo"), Submission("tokyo", run_key))
    )
    aws_sim.advance(60)
    viewer = token("viewer", "viewer")
    url = f"{PREFIX}/api/runs/{FLEET_DAG}/{RUN_ID}"
    before = aws_sim.calls()["calls"]
    view = client.get(url, headers=viewer).json()
    after = aws_sim.calls()["calls"]
    delta = {op: after[op] - before.get(op, 0) for op in after if after[op] != before.get(op, 0)}
    # two listings; tokyo, then each other job that holds capacity once, for its instance type and count
    assert delta == {"ListTrainingJobs": 2, "DescribeTrainingJob": 3}
    capacity = {row["instance_type"]: row for row in view["account"]["capacity"]}
    assert capacity["ml.m5.xlarge"] == {
        "instance_type": "ml.m5.xlarge",
        "quota_instances": 10,
        "run_running": 1,
        "run_pools": 0,
        "other_running": 3,
        "other_pools": 1,
        "free": 5,
    }
    assert view["account"]["other_jobs_unknown"] == 0
    tokyo = job_name("quick", "tokyo", run_key)
    # the viewer may read fleet other's DAG (fleetview_other): its job is named
    assert view["account"]["pools_taken_from_other_runs"] == [
        {"city": "tokyo", "job_name": tokyo, "from_job": "other-lima"}
    ]
    # a reader of fleetview_quick alone gets the same read (no SageMaker call) drawn for them: counts, no names
    before_team = aws_sim.calls()["calls"]
    team = client.get(url, headers=token("viewer", "quick-team"))
    assert team.status_code == 200
    assert aws_sim.calls()["calls"] == before_team
    assert team.json()["account"]["pools_taken_from_other_runs"] == [
        {"city": "tokyo", "job_name": tokyo, "from_job": None}
    ]
    assert team.json()["account"]["capacity"] == view["account"]["capacity"]
    assert "other-lima" not in team.text
    assert "team-forecast" not in team.text
    assert "team-forecast" not in json.dumps(view)
    assert client.get(url, headers=viewer).json()["account"]["pools_taken_from_other_runs"][0][
        "from_job"
    ] == ("other-lima")
    assert (
        client.get(f"{PREFIX}/api/runs/fleetview_other/x", headers=token("viewer", "quick-team")).status_code
        == 403
    )
    assert {j["city"]: j["start"] for j in view["jobs"]}["tokyo"] == "warm"
    assert view["listing"]["other_describe_calls"] == 2
    # the next refresh (the shared answer expired) describes tokyo again, the other runs' jobs not
    monkeypatch.setattr(plugin_app.CACHE, "ttl", 0.0)  # same entry, same reader state
    before = aws_sim.calls()["calls"]
    again = client.get(url, headers=viewer).json()
    after = aws_sim.calls()["calls"]
    assert after["DescribeTrainingJob"] - before["DescribeTrainingJob"] <= 1
    assert again["account"]["capacity"] == view["account"]["capacity"]


def test_a_run_of_another_dag_says_it_is_not_a_fleet(client: Any) -> None:
    view = client.get(f"{PREFIX}/api/runs/op_train/{OTHER_RUN}", headers=token("viewer", "viewer")).json()
    assert view["fleet_dag"] is False
    assert "is not a SageMaker fleet DAG" in view["message"]
    missing = client.get(f"{PREFIX}/api/runs/op_train/nope", headers=token("viewer", "viewer"))
    assert missing.status_code == 404


def test_the_report_is_served_from_the_local_folder_or_else_from_s3(
    client: Any, db_state: dict[str, Any], aws_sim: Any, tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    from airflow.models.xcom import XComModel

    viewer = token("viewer", "viewer")
    url = f"{PREFIX}/runs/{FLEET_DAG}/{RUN_ID}/report.html"
    XComModel.clear(dag_id=FLEET_DAG, task_id="cost_report", run_id=RUN_ID)
    assert client.get(url, headers=viewer).status_code == 404  # no report yet
    (tmp_path / "report.html").write_text("<html>local report</html>")
    (tmp_path / "report.json").write_text(json.dumps({"run_key": db_state["run_key"]}))
    XComModel.set(
        key="return_value",
        value={"local_html": str(tmp_path / "report.html")},
        dag_id=FLEET_DAG,
        task_id="cost_report",
        run_id=RUN_ID,
    )
    local = client.get(url, headers=viewer)
    assert (local.status_code, local.text) == (200, "<html>local report</html>")
    assert local.headers["content-type"].startswith("text/html")
    assert client.get(url.replace(".html", ".json"), headers=viewer).json() == {
        "run_key": db_state["run_key"]
    }
    assert client.get(url.replace("report.html", "secrets.txt"), headers=viewer).status_code == 404
    # the worker's folder is not on this machine: the copy the report task uploaded
    s3 = aws_sim.boto3_client("s3")
    s3.create_bucket(Bucket="acme-ml")
    key = f"fleets/quick/reports/{db_state['run_key']}/report.html"
    s3.put_object(Bucket="acme-ml", Key=key, Body=b"<html>from s3</html>", ContentType="text/html")
    XComModel.clear(dag_id=FLEET_DAG, task_id="cost_report", run_id=RUN_ID)
    XComModel.set(
        key="return_value",
        value={"local_html": "/nowhere/report.html"},
        dag_id=FLEET_DAG,
        task_id="cost_report",
        run_id=RUN_ID,
    )
    assert client.get(url, headers=viewer).text == "<html>from s3</html>"
    # an S3 error is logged for the operator; the reader gets a short answer without bucket, key or principal
    s3.delete_object(Bucket="acme-ml", Key=key)
    with caplog.at_level(logging.WARNING, logger="sagemaker_fleet.plugin.app"):
        gone = client.get(url, headers=viewer)
    assert gone.status_code == 404
    assert gone.json() == {
        "detail": "no report.html for this run: it could not be read (see the api-server's log)"
    }
    assert "acme-ml" not in gone.text
    assert "NoSuchKey" not in gone.text
    assert any(
        f"s3://acme-ml/{key}" in r.getMessage() and "NoSuchKey" in r.getMessage() for r in caplog.records
    )


def test_the_app_serves_no_api_docs_nor_schema(client: Any) -> None:
    """FastAPI's /docs, /redoc and /openapi.json would be served to anyone, past Airflow's checks, and load Swagger
    from a CDN: the app has none of them, for anonymous callers and readers alike."""
    for path in ("/docs", "/redoc", "/openapi.json", "/docs/oauth2-redirect"):
        assert client.get(f"{PREFIX}{path}").status_code in (401, 404), path
        answer = client.get(f"{PREFIX}{path}", headers=token("viewer", "viewer"))
        assert answer.status_code == 404, path
        assert "swagger" not in answer.text.lower()
        assert "openapi" not in answer.text.lower()


def test_an_ended_runs_view_is_kept_and_served_without_calling_sagemaker_until_the_run_changes(
    client: Any, db_state: dict[str, Any], aws_sim: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A run that ended with every job final (terminal, no pool) is read once; later refreshes, of any reader,
    call SageMaker no more, past the cache's seconds; a cleared run is read again."""
    import datetime as dt

    from airflow.models.dagrun import DagRun
    from airflow.models.xcom import XComModel
    from airflow.utils.session import create_session
    from airflow.utils.state import DagRunState
    from airflow.utils.types import DagRunTriggeredByType, DagRunType

    from sagemaker_fleet.plugin import app as plugin_app
    from sim_fixtures import make_request

    run_id = "manual__fleetview-ended"
    spec = db_state["spec"]
    run_key = run_key_for(None, run_id, "manual", dag_id=FLEET_DAG)
    with create_session() as session:
        session.query(DagRun).filter(DagRun.dag_id == FLEET_DAG, DagRun.run_id == run_id).delete()
        latest_dag(FLEET_DAG, session).create_dagrun(
            run_id=run_id,
            run_after=dt.datetime.now(dt.UTC),
            conf={},
            run_type=DagRunType.MANUAL,
            triggered_by=DagRunTriggeredByType.TEST,
            state=DagRunState.RUNNING,
            session=session,
        )
    XComModel.set(
        key="plan",
        value=plan_fleet(spec, run_key, None).to_json(),
        dag_id=FLEET_DAG,
        task_id="plan",
        run_id=run_id,
    )

    def set_state(state: DagRunState) -> None:
        with create_session() as session:
            run = session.query(DagRun).filter(DagRun.dag_id == FLEET_DAG, DagRun.run_id == run_id).one()
            run.state = state
            run.end_date = dt.datetime.now(dt.UTC) if state != DagRunState.RUNNING else None

    try:
        sagemaker = aws_sim.boto3_client("sagemaker")
        for city in ("seoul", "tokyo"):
            aws_sim.set_work(30, job=job_name("quick", city, run_key))
            sagemaker.create_training_job(**make_request(job_name("quick", city, run_key), keep_alive=0))
        aws_sim.advance(600)
        set_state(DagRunState.SUCCESS)
        monkeypatch.setattr(plugin_app.CACHE, "ttl", 0.0)  # every refresh would read again but for the keep
        url = f"{PREFIX}/api/runs/{FLEET_DAG}/{run_id}"
        viewer, team = token("viewer", "viewer"), token("viewer", "quick-team")
        before = aws_sim.calls()["calls"]
        first = client.get(url, headers=viewer).json()
        read = aws_sim.calls()["calls"]
        assert read["ListTrainingJobs"] - before.get("ListTrainingJobs", 0) == 2
        assert sorted(j["status"] for j in first["jobs"]) == ["Completed", "Completed"]
        assert first["listing"]["final"] is True
        for headers in (viewer, team, viewer):
            again = client.get(url, headers=headers)
            assert (again.status_code, again.json()["generated_at"]) == (200, first["generated_at"])
        assert aws_sim.calls()["calls"] == read  # no call at all
        assert client.get(url, headers=token(None, "nobody")).status_code == 403  # kept, and still guarded
        set_state(DagRunState.RUNNING)  # cleared: it may change again
        cleared = client.get(url, headers=viewer).json()
        assert aws_sim.calls()["calls"]["ListTrainingJobs"] == read["ListTrainingJobs"] + 2
        assert (cleared["state"], cleared["listing"]["final"]) == ("running", False)
    finally:
        with create_session() as session:
            session.query(DagRun).filter(DagRun.dag_id == FLEET_DAG, DagRun.run_id == run_id).delete()
