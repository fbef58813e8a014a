"""`airflow dags test` of a fleet DAG against the simulator: the way to try a fleet in one's own Airflow.

``dag.test()`` runs a run's task instances one after the other, in an order of its own, and each deferred city's
trigger in line until it fires. A city must therefore never wait for a city that has not started (it waited out a
600 s stall per city before), its job must take the pool the city before it left, a city whose job fails once is
retried by Airflow (a new try, a new job) and trains, and SIGTERM must end the command.

The Airflow that runs the DAG is this virtualenv's, or the one ``SAGEMAKER_FLEET_DAGS_TEST_AIRFLOW`` names (an
``airflow`` executable): CI points it at a clean virtualenv with the provider installed from its wheel under Amazon
MWAA's constraints for Airflow 3.0.6, the oldest Airflow supported (scripts/package_check.sh). The simulator runs
here, in this process, at speed 40.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from types import MappingProxyType
from typing import Any

import pytest

from sagemaker_fleet.fleetspec import FleetSpec, load_fleet_spec
from sagemaker_fleet.sim import SimConfig, SpotMarketConfig
from sagemaker_fleet.sim.client import SimClient
from sagemaker_fleet.sim.server import ServerSettings, SimulatorServer
from sagemaker_fleet.sim.workload import WorkModel
from sagemaker_fleet.testing.component_env import aws_connection_json
from sagemaker_fleet.testing.stack import LocalAirflowStack, StackSettings

pytestmark = [pytest.mark.e2e, pytest.mark.xdist_group("dags-test")]

DAGS = Path(__file__).resolve().parent / "dags_test"
DAG_ID = "dagtest_fleet"
SPEED = 40.0
#: Its first job fails (an AlgorithmError early in training); Airflow retries the task and its second job trains.
FAILS_ONCE = "lima"
#: A hang guard, not a measure: the run takes about three minutes on a loaded 2-core machine.
RUN_TIMEOUT = 540.0


def airflow_executable() -> str:
    named = os.environ.get("SAGEMAKER_FLEET_DAGS_TEST_AIRFLOW")
    return named or str(Path(sys.executable).parent / "airflow")


@dataclass(frozen=True)
class DagsTest:
    """One finished ``airflow dags test`` of the fleet: its exit code, output, wall time and the simulator's jobs."""

    returncode: int
    output: str
    seconds: float
    jobs: list[dict[str, Any]]
    report_dir: Path


@pytest.fixture(scope="module")
def spec() -> FleetSpec:
    return load_fleet_spec(DAGS / "fleets" / "dagtest.yaml")


@pytest.fixture(scope="module")
def sim_url(spec: FleetSpec) -> Iterator[str]:
    config = SimConfig(
        seed=5,
        work=WorkModel.from_fleets([spec]),
        quotas=MappingProxyType(dict(spec.quotas)),
        spot=SpotMarketConfig(interruptions_per_hour=0.0, capacity_wait_mean_seconds=0.0),
        failing_first_cities=frozenset({f"{spec.fleet}/{FAILS_ONCE}"}),
    )
    with SimulatorServer(ServerSettings(speed=SPEED, config=config)) as server:
        s3 = SimClient(server.url).boto3_client("s3")
        s3.create_bucket(Bucket="sagemaker-fleet-dagtest")
        for city in spec.cities:
            s3.put_object(Bucket="sagemaker-fleet-dagtest", Key=f"data/{city.name}/part-0.csv", Body=b"1\n")
        yield server.url


@pytest.fixture(scope="module")
def airflow_env(sim_url: str, tmp_path_factory: pytest.TempPathFactory) -> Mapping[str, str]:
    """A throw-away Airflow home on SQLite with the DAG folder and ``aws_default`` pointed at the simulator."""
    home = tmp_path_factory.mktemp("dags-test-home")
    env = {
        **{k: v for k, v in os.environ.items() if not k.startswith("AIRFLOW")},
        "AIRFLOW_HOME": str(home),
        "AIRFLOW__CORE__DAGS_FOLDER": str(DAGS),
        "AIRFLOW__CORE__LOAD_EXAMPLES": "False",
        "AIRFLOW__SAGEMAKER_FLEET__REPORT_DIR": str(home / "reports"),
        "AIRFLOW_CONN_AWS_DEFAULT": aws_connection_json(sim_url),
        "PYTHONUNBUFFERED": "1",
    }
    migrate = subprocess.run(
        [airflow_executable(), "db", "migrate"], env=env, capture_output=True, text=True, timeout=300
    )
    assert migrate.returncode == 0, migrate.stdout[-3000:] + migrate.stderr[-3000:]
    if airflow_version(env) < (3, 1):
        # Airflow 3.0's dags test does not register the DAG's assets, and a task with an asset outlet fails
        # (apache/airflow#51644; 3.1 syncs the DAG first): docs/installation.md says to reserialize first on 3.0
        reserialize = subprocess.run(
            [airflow_executable(), "dags", "reserialize"],
            env=env,
            capture_output=True,
            text=True,
            timeout=300,
        )
        assert reserialize.returncode == 0, reserialize.stdout[-3000:] + reserialize.stderr[-3000:]
    return MappingProxyType(env)


def airflow_version(env: Mapping[str, str]) -> tuple[int, ...]:
    answer = subprocess.run(
        [airflow_executable(), "version"], env=dict(env), capture_output=True, text=True, timeout=120
    )
    version = answer.stdout.strip().splitlines()[-1]
    return tuple(int(part) for part in version.split(".")[:2])


@pytest.fixture(scope="module")
def dags_test(airflow_env: Mapping[str, str], sim_url: str) -> DagsTest:
    started = time.monotonic()
    run = subprocess.run(
        [airflow_executable(), "dags", "test", DAG_ID, "2026-12-04"],
        env=dict(airflow_env),
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        timeout=RUN_TIMEOUT,
    )
    seconds = time.monotonic() - started
    # the whole output, to read after a failure (the assertions show its end)
    (Path(airflow_env["AIRFLOW_HOME"]) / "dags-test.log").write_text(run.stdout)
    jobs = [job for job in SimClient(sim_url).state()["jobs"] if job["name"].startswith("dagtest-")]
    return DagsTest(run.returncode, run.stdout, seconds, jobs, Path(airflow_env["AIRFLOW_HOME"]) / "reports")


def completed(dags_test: DagsTest) -> list[dict[str, Any]]:
    return [job for job in dags_test.jobs if job["status"] == "Completed"]


def test_every_city_trains_once_and_the_command_succeeds(dags_test: DagsTest, spec: FleetSpec) -> None:
    assert dags_test.returncode == 0, dags_test.output[-5000:]
    cities = sorted(city.name for city in spec.cities)
    trained = sorted(job["name"].split("-")[1] for job in completed(dags_test))
    assert trained == cities, f"jobs: {[(job['name'], job['status']) for job in dags_test.jobs]}"
    warm = sum(1 for job in dags_test.jobs if job["start"] == "warm")
    print(
        f"airflow dags test of {len(cities)} cities: {dags_test.seconds:.0f} s, {len(dags_test.jobs)} jobs, "
        f"{warm} warm"
    )


def test_a_city_that_fails_once_is_retried_and_trains(dags_test: DagsTest, spec: FleetSpec) -> None:
    """Its first job fails; the task fails with the reason, Airflow retries it, and the new try submits the city's
    second job (``-r2``), which trains. No other city has more than one job."""
    jobs = sorted(
        (job for job in dags_test.jobs if job["name"].split("-")[1] == FAILS_ONCE),
        key=lambda job: job["name"],
    )
    assert [
        (job["name"].removeprefix(f"{spec.fleet}-{FAILS_ONCE}-").split("-")[1:], job["status"])
        for job in jobs
    ] == [
        ([], "Failed"),
        (["r2"], "Completed"),
    ], jobs
    others = [job for job in dags_test.jobs if job["name"].split("-")[1] != FAILS_ONCE]
    assert len(others) == len(spec.cities) - 1, [job["name"] for job in others]
    assert f"{jobs[0]['name']}" in dags_test.output
    assert "AlgorithmError" in dags_test.output


def test_no_city_waits_for_a_city_that_has_not_started(dags_test: DagsTest, spec: FleetSpec) -> None:
    waits = [line for line in dags_test.output.splitlines() if "more job(s) of group" in line]
    assert not waits, waits[:3]
    for city in spec.cities:
        assert f"{city.name}: the run's cities start one at a time" in dags_test.output


def test_most_on_demand_cities_start_warm(dags_test: DagsTest, spec: FleetSpec) -> None:
    on_demand = [job for job in completed(dags_test) if not job["spot"]]
    warm = [job for job in on_demand if job["start"] == "warm"]
    # one job at a time on one warm-pool key: every on-demand city but the first can take its predecessor's pool
    assert len(warm) >= len(on_demand) / 2, [(job["name"], job["start"]) for job in dags_test.jobs]


def test_the_cost_report_is_written(dags_test: DagsTest, spec: FleetSpec) -> None:
    reports = list(dags_test.report_dir.glob("*/report.json"))
    assert len(reports) == 1, list(dags_test.report_dir.rglob("*"))
    report = json.loads(reports[0].read_text())
    assert report["totals"]["jobs"] == len(spec.cities) + 1  # the city that failed once has two
    assert report["totals"]["completed"] == len(spec.cities)
    assert report["totals"]["failed"] == 1
    assert {path.name for path in reports[0].parent.iterdir()} >= {"report.json", "report.csv", "report.html"}


def test_a_deferring_city_logs_no_error(dags_test: DagsTest) -> None:
    """The task runner asks each extra link for its URL as a city task defers and as it ends; a job's links not
    written yet (a deferring task) or never (a failed task) logged two ``[error] XCom not found`` lines each time.
    The one error line left is the failure of the city that fails once."""
    errors = [
        line
        for line in dags_test.output.splitlines()
        if "[error" in line or " ERROR - " in line or "XCom not found" in line
    ]
    failed = [line for line in errors if "Task failed with exception" in line]
    assert len(failed) == 1, "\n".join(errors[:10])
    assert [line for line in errors if line not in failed] == [], "\n".join(errors[:10])


@pytest.mark.chromium
def test_the_runs_fleet_view_opens_from_the_plan_tasks_link(
    dags_test: DagsTest, airflow_env: Mapping[str, str], sim_url: str, spec: FleetSpec
) -> None:
    """The run the test made, in the Fleet view a person reaches from the plan task's **Fleet view** extra link, in
    Chromium, signed in as Airflow's users are: on Airflow 3.0 (no plugin tabs) the view's own page, which must take
    the sign-in from the UI's local storage; from 3.1 the run's Fleet tab."""
    import re
    import urllib.parse

    from playwright.sync_api import sync_playwright

    users = {"admin": ("admin", "admin-pw")}
    stack = LocalAirflowStack(
        StackSettings(
            home=Path(airflow_env["AIRFLOW_HOME"]),
            dags_folder=DAGS,
            endpoint_url=sim_url,
            users=users,
            airflow_bin=airflow_executable(),
        )
    )
    try:
        stack.start(components=("api-server",))
        (run,) = [r for r in stack.runs(DAG_ID) if str(r["logical_date"]).startswith("2026-12-04")]
        run_id = urllib.parse.quote(run["dag_run_id"], safe="")
        links = stack.api("GET", f"/api/v2/dags/{DAG_ID}/dagRuns/{run_id}/taskInstances/plan/links")
        link = links.get("extra_links", links)["Fleet view"]
        with sync_playwright() as playwright:
            browser = playwright.chromium.launch(executable_path="/usr/bin/chromium", args=["--no-sandbox"])
            page = browser.new_page(viewport={"width": 1280, "height": 900})
            errors: list[str] = []
            page.on("pageerror", lambda error: errors.append(str(error)))
            page.goto(f"{stack.url}/")
            page.locator('input[name="username"]').fill("admin")
            page.locator('input[name="password"]').fill(users["admin"][1])
            page.get_by_role("button", name="Sign in").click()
            page.wait_for_url(re.compile(r"^(?!.*/auth/).*$"))
            page.goto(stack.url + link if link.startswith("/") else link)
            view = page if "/plugin/" not in link else page.frame_locator("iframe").first
            view.locator("#run-meta").wait_for(timeout=60_000)
            assert view.locator("#actual-gantt .job").count() == len(dags_test.jobs)
            assert view.locator("#count-trained").inner_text() == f"{len(spec.cities)} / {len(spec.cities)}"
            # each city's final metrics (the fleet's job: defines two): a summary line each, a column each
            assert view.locator("#metric-summary li").count() == 2
            header = view.locator("#jobs thead").inner_text()
            assert "validation:rmse" in header
            assert "validation:mape" in header
            assert errors == []
            browser.close()
    finally:
        stack.stop()


def test_sigterm_stops_the_test_and_says_what_keeps_running(
    airflow_env: Mapping[str, str], dags_test: DagsTest
) -> None:
    """SIGTERM ends ``airflow dags test`` while a city's job trains (the task runner's own handler only called
    ``on_kill`` and went on waiting: only SIGINT stopped it)."""
    process = subprocess.Popen(
        [airflow_executable(), "dags", "test", DAG_ID, "2026-12-05"],
        env=dict(airflow_env),
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
    assert process.stdout is not None
    lines: list[str] = []
    try:
        deadline = time.monotonic() + 240
        while time.monotonic() < deadline:
            line = process.stdout.readline()
            if not line:
                break
            lines.append(line)
            if ": created dagtest-" in line:
                break
        created = [line for line in lines if ": created dagtest-" in line]
        assert created, "".join(lines[-40:])
        job = created[0].split(": created ")[1].split()[0]
        process.send_signal(signal.SIGTERM)
        rest, _ = process.communicate(timeout=60)
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()
    output = "".join(lines) + rest
    assert process.returncode == 128 + signal.SIGTERM, output[-3000:]
    assert f"SIGTERM: airflow dags test stops here. {job} keeps training in SageMaker" in output


# ----------------------------------------------------------------- the fleet's job: template (docs/guides/job-template.md)

#: What the fleet's ``job:`` puts in every request, besides what the provider builds (tests/e2e/dags_test/fleets).
TEMPLATE_MEMBERS = ("VpcConfig", "RetryStrategy", "Environment", "InputDataConfig", "AlgorithmSpecification")


def test_every_template_field_is_in_each_job_s_description(
    dags_test: DagsTest, spec: FleetSpec, sim_url: str
) -> None:
    from sagemaker_fleet.jobs.request import Submission, compile_training_request

    client = SimClient(sim_url).boto3_client("sagemaker")
    for job in completed(dags_test):
        described = client.describe_training_job(TrainingJobName=job["name"])
        city = spec.city(job["name"].split("-")[1])
        run_key = job["name"].split("-")[2]
        sent = compile_training_request(spec, city, Submission(city.name, run_key, spot=job["spot"]))
        for member in TEMPLATE_MEMBERS:
            assert described[member] == sent[member], (job["name"], member)
        # the template's literal values, as the fleet file writes them (tests/e2e/dags_test/fleets/dagtest.yaml)
        assert described["OutputDataConfig"]["KmsKeyId"] == "alias/sagemaker-fleet-dagtest"
        assert described["RetryStrategy"] == {"MaximumRetryAttempts": 2}
        assert described["VpcConfig"] == {"Subnets": ["subnet-0a1b2c3d"], "SecurityGroupIds": ["sg-0a1b2c3d"]}
        assert described["Environment"] == {"STAGE": "dagtest", "CITY": city.name}
        assert described["AlgorithmSpecification"]["ContainerEntrypoint"] == ["python", "-m", "demand.train"]
        assert described["AlgorithmSpecification"]["MetricDefinitions"] == [
            {"Name": "validation:rmse", "Regex": "val_rmse=([0-9.]+)"},
            {"Name": "validation:mape", "Regex": "val_mape=([0-9]{1,3}[.][0-9]+)"},
        ]
        channels = {
            c["ChannelName"]: c["DataSource"]["S3DataSource"]["S3Uri"] for c in described["InputDataConfig"]
        }
        assert channels["validation"] == f"s3://sagemaker-fleet-dagtest/data/{city.name}/validation/"
        assert channels["features"] == "s3://sagemaker-fleet-dagtest/features/"
        assert described["AlgorithmSpecification"]["ContainerArguments"] == [
            "--city",
            city.name,
            "--run",
            run_key,
        ]
        assert [c["ChannelName"] for c in described["InputDataConfig"]] == ["train", "validation", "features"]
        tags = {
            t["Key"]: t["Value"] for t in client.list_tags(ResourceArn=described["TrainingJobArn"])["Tags"]
        }
        assert (tags["cost-center"], tags["city"], tags["sagemaker-fleet:city"]) == (
            "forecasting",
            city.name,
            city.name,
        )
        metrics = [m["MetricName"] for m in described["FinalMetricDataList"]]
        assert metrics == ["validation:rmse", "validation:mape"]


def test_the_report_and_the_fleet_view_show_each_city_s_final_metrics(
    dags_test: DagsTest, spec: FleetSpec, sim_url: str
) -> None:
    from datetime import UTC, datetime

    from sagemaker_fleet.cost import PriceBook, load_price_table
    from sagemaker_fleet.fleetview.model import RunContext, ViewInputs, build_fleet_view

    report_file = next(dags_test.report_dir.glob("*/report.json"))
    report = json.loads(report_file.read_text())
    cities = sorted(city.name for city in spec.cities)
    assert sorted(report["metrics"]["by_city"]) == cities
    summary = {entry["metric"]: entry for entry in report["metrics"]["summary"]}
    assert summary["validation:rmse"]["better"] == "lower"
    assert summary["validation:rmse"]["cities"] == len(cities)
    assert "metric:validation:mape" in (report_file.parent / "report.csv").read_text().splitlines()[0]
    assert "<h2>Final metrics</h2>" in (report_file.parent / "report.html").read_text()
    client = SimClient(sim_url).boto3_client("sagemaker")
    describes = [client.describe_training_job(TrainingJobName=job["name"]) for job in completed(dags_test)]
    run = RunContext(DAG_ID, "manual__2026-12-04", report["run_key"], "success")
    view = build_fleet_view(
        run, ViewInputs(spec, None, describes, PriceBook(spec.region, load_price_table()), datetime.now(UTC))
    )
    assert sorted(view["metrics"]["by_city"]) == cities
    assert all(set(row["metrics"]) == {"validation:rmse", "validation:mape"} for row in view["jobs"])
