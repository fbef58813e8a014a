"""The first run in one's own Airflow, as docs/installation.md tells it: the page's first-run block, run word for word.

The commands are read out of the page (between its ``first-run`` markers) and run by bash as written, in a folder
that holds the page's DAG file (its ``first-run-dag`` block) and a ten-store fleet spec at the path the page names
(tests/e2e/first_run/bakery.yaml: a job: template as a team writes one, a spot store, eu-west-3). What is substituted
is only what the page leaves to the reader: the Airflow that runs it (``SAGEMAKER_FLEET_DAGS_TEST_AIRFLOW``, first
on ``PATH``: CI runs this module once for each of Airflow 3.0.6, 3.2.1 and 3.3, each installed from the wheel) and
the folder. The page's simulator listens on its port 4566: CI runs each Airflow's module in a network namespace of its
own (``unshare --net``), so three can run at once; on a laptop the port must be free.

While the block runs, the test fails the first store's first job (the simulator's fault, as SageMaker can): Airflow
retries the task and its second job trains. After it, with the page's simulator still up: every store trained once,
at least half the on-demand stores started warm, the report was written, every line of the job: template reached
SageMaker, the run's Fleet view opens in Chromium from the plan task's link; and SIGTERM in the middle of a second
DAG's run, then the same DAG and date again, attaches to the job the first left instead of launching another.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import shlex
import signal
import socket
import subprocess
import threading
import time
import urllib.request
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from e2e.airflow_cli import airflow_executable, airflow_version
from sagemaker_fleet.fleetspec import FleetSpec, load_fleet_spec
from sagemaker_fleet.sim.client import SimClient

#: The first run is the module fixture's, timed into its first test: a hang guard, not a measure (the run takes 5-10
#: minutes on 2 busy cores).
pytestmark = [pytest.mark.e2e, pytest.mark.xdist_group("first-run"), pytest.mark.timeout(1800)]

REPO = Path(__file__).resolve().parents[2]
PAGE = REPO / "docs" / "installation.md"
FLEET = Path(__file__).resolve().parent / "first_run" / "bakery.yaml"
#: A hang guard, not a measure (docs/performance.md has the measured times).
RUN_TIMEOUT = 1200.0
#: The small DAG of the SIGTERM-then-again scenario: three of the bakery's stores (the test's own file, not the page's).
THREE = ("caen", "lyon", "lille")
THREE_DAG = """\
\"\"\"Airflow DAG: three of the bakery's stores, for tests/e2e/test_first_run.py.\"\"\"

import datetime as dt
from pathlib import Path

from sagemaker_fleet.dags import build_fleet_dag

dag = build_fleet_dag(
    Path(__file__).parent / "fleets" / "bakery_three.yaml",
    dag_id="bakery_three",
    schedule=None,
    default_args={"retry_delay": dt.timedelta(seconds=10)},
)
"""


def page_block(name: str) -> str:
    """The code block between ``<!-- name -->`` and ``<!-- /name -->`` in docs/installation.md."""
    found = re.search(rf"<!-- {name} -->\n```\w*\n(.*?)```\n<!-- /{name} -->", PAGE.read_text(), re.S)
    assert found, f"docs/installation.md has no {name} block"
    return found.group(1)


FIRST_RUN = page_block("first-run")
#: What the block's last command runs: ``airflow dags test <dag> <date>``.
DAG_ID, LOGICAL_DATE = FIRST_RUN.strip().splitlines()[-1].split()[-2:]
#: The simulator's address the block gives ``sim serve --port``.
_PORT = re.search(r"sim serve --port (\d+)", FIRST_RUN)
assert _PORT, "the first-run block starts no simulator"
SIM_URL = f"http://127.0.0.1:{_PORT.group(1)}"


@dataclass(frozen=True)
class FirstRun:
    """The block's exit code and output, its wall time, the simulator's jobs, and where things are."""

    returncode: int
    output: str
    seconds: float
    jobs: list[dict[str, Any]]
    folder: Path
    failed_first: str

    @property
    def home(self) -> Path:
        return self.folder / "airflow-home"

    def report(self) -> dict[str, Any]:
        (path,) = self.folder.glob("reports/*/report.json")
        return json.loads(path.read_text())


@pytest.fixture(scope="module")
def spec() -> FleetSpec:
    return load_fleet_spec(FLEET)


def port_taken(url: str) -> bool:
    host, port = url.removeprefix("http://").split(":")
    with socket.socket() as probe:
        return probe.connect_ex((host, int(port))) == 0


def block_env(folder: Path) -> dict[str, str]:
    """The environment a user's shell gives the block: theirs, with the Airflow under test first on PATH, and none of
    the variables the block sets itself or this test process was given (Airflow's, AWS's, the provider's)."""
    env = {
        key: value
        for key, value in os.environ.items()
        if not key.startswith(("AIRFLOW", "AWS_", "SAGEMAKER_FLEET_", "PYTHON", "VIRTUAL_ENV"))
    }
    env["PATH"] = f"{Path(airflow_executable()).parent}{os.pathsep}{env.get('PATH', '')}"
    env["XDG_DATA_HOME"] = str(folder / "xdg")  # no price table refreshed on this machine
    env["PYTHONUNBUFFERED"] = "1"
    return env


def sim_env(folder: Path) -> dict[str, str]:
    """The block's environment once it has run: the page's exports and ``sim env``'s."""
    env = block_env(folder)
    env.update(
        {
            "AIRFLOW_HOME": str(folder / "airflow-home"),
            "AIRFLOW__CORE__DAGS_FOLDER": str(folder / "dags"),
            "AIRFLOW__CORE__LOAD_EXAMPLES": "False",
            "AIRFLOW__SAGEMAKER_FLEET__REPORT_DIR": str(folder / "reports"),
        }
    )
    port = SIM_URL.rsplit(":", 1)[1]
    printed = subprocess.run(
        ["sagemaker-fleet", "sim", "env", "--port", port, "--fleet", str(FLEET)],
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
        check=True,
    ).stdout
    for line in printed.splitlines():
        name, _, value = line.removeprefix("export ").partition("=")
        env[name] = shlex.split(value)[0]
    return env


def fail_first_job_of(city: str, stop: threading.Event) -> None:
    """As soon as the page's simulator answers, make ``city``'s first job fail (an AlgorithmError early in
    training); its task fails, Airflow retries it, and the retry's job trains."""
    deadline = time.monotonic() + 300
    while not stop.is_set() and time.monotonic() < deadline:
        try:
            with urllib.request.urlopen(f"{SIM_URL}/_sim/calls", timeout=2):
                pass
        except OSError:
            time.sleep(0.1)
            continue
        SimClient(SIM_URL).failures(first_cities=[f"bakery/{city}"])
        return


def first_store(spec: FleetSpec) -> str:
    """The store ``airflow dags test`` runs first: the plan's first in start order (the mapped task's index 0)."""
    import datetime as dt

    from sagemaker_fleet.fleetspec.names import run_key_for
    from sagemaker_fleet.operators.plan import start_order
    from sagemaker_fleet.plan import plan_fleet

    date = dt.datetime.fromisoformat(LOGICAL_DATE).replace(tzinfo=dt.UTC)
    run_key = run_key_for(date, "first-run", "manual", dag_id=DAG_ID, test=True)
    return start_order(plan_fleet(spec, run_key))[0]


@pytest.fixture(scope="module")
def first_run(spec: FleetSpec, tmp_path_factory: pytest.TempPathFactory) -> Iterator[FirstRun]:
    if port_taken(SIM_URL):
        message = (
            f"the page's simulator port ({SIM_URL}) is in use: run this module in a network namespace of its own "
            "(make e2e: unshare --net) or free the port"
        )
        if os.environ.get("SAGEMAKER_FLEET_REQUIRE_SERVICES") == "1":
            pytest.fail(message)
        pytest.skip(message)
    folder = tmp_path_factory.mktemp("first-run")
    (folder / "dags" / "fleets").mkdir(parents=True)
    (folder / "dags" / "bakery.py").write_text(page_block("first-run-dag"))
    (folder / "dags" / "fleets" / "bakery.yaml").write_text(FLEET.read_text())
    script = folder / "first-run.sh"
    script.write_text(FIRST_RUN)
    failing = first_store(spec)
    stop = threading.Event()
    fault = threading.Thread(target=fail_first_job_of, args=(failing, stop), daemon=True)
    fault.start()
    started = time.monotonic()
    # its own session: the simulator the block leaves in the background is ended with it, whatever happens
    process = subprocess.Popen(
        ["bash", "-e", str(script)],
        cwd=folder,
        env=block_env(folder),
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        start_new_session=True,
    )
    try:
        output, _ = process.communicate(timeout=RUN_TIMEOUT)
        seconds = time.monotonic() - started
        (folder / "first-run.log").write_text(output)  # the whole output, to read after a failure
        if process.returncode != 0 and not port_taken(SIM_URL):
            pytest.fail(f"the first-run block failed before its simulator served:\n{output[-5000:]}")
        jobs = [j for j in SimClient(SIM_URL).state()["jobs"] if j["name"].startswith("bakery-")]
        SimClient(SIM_URL).failures(first_cities=[])  # the later scenarios' stores train at once
        yield FirstRun(process.returncode, output, seconds, jobs, folder, failing)
    finally:
        stop.set()
        with contextlib.suppress(ProcessLookupError):  # the block's session, the simulator in it
            os.killpg(process.pid, signal.SIGTERM)
        keep_logs(folder)


def keep_logs(folder: Path) -> None:
    """The run's logs beside the checkout (build/first-run-<Airflow>/): pytest keeps only its last few temporary
    folders, and CI prints nothing of a passing run."""
    version = ".".join(map(str, airflow_version(block_env(folder))))
    kept = REPO / "build" / f"first-run-{version}"
    kept.mkdir(parents=True, exist_ok=True)
    for name in ("first-run.log", "sim.log", "again.log", "conf-2026-12-06.log", "conf-2026-12-07.log"):
        if (folder / name).exists():
            (kept / name).write_text((folder / name).read_text())


def completed(run: FirstRun) -> list[dict[str, Any]]:
    return [job for job in run.jobs if job["status"] == "Completed"]


def store_of(job: dict[str, Any]) -> str:
    return str(job["name"]).split("-")[1]


def test_the_first_run_succeeds_and_every_store_trains_once(first_run: FirstRun, spec: FleetSpec) -> None:
    assert first_run.returncode == 0, first_run.output[-6000:]
    stores = sorted(city.name for city in spec.cities)
    assert sorted(store_of(job) for job in completed(first_run)) == stores, [
        (job["name"], job["status"]) for job in first_run.jobs
    ]
    # the store whose first job failed: its task was retried, the retry's job (-r2) trained; no other store has two
    failed = [(job["name"], job["status"]) for job in first_run.jobs if job["status"] != "Completed"]
    assert len(failed) == 1, failed
    assert store_of({"name": failed[0][0]}) == first_run.failed_first
    assert failed[0][1] == "Failed"
    assert len(first_run.jobs) == len(stores) + 1
    warm = sum(1 for job in first_run.jobs if job["start"] == "warm")
    print(
        f"first run on Airflow {'.'.join(map(str, airflow_version(block_env(first_run.folder))))}: "
        f"{first_run.seconds:.0f} s, {len(first_run.jobs)} jobs, {warm} warm"
    )


def test_at_least_half_the_on_demand_stores_start_warm(first_run: FirstRun) -> None:
    """One store at a time on one matching key: every on-demand store but the first could take the pool the store
    before it left — if its job kept the pool through Airflow's own gap between the two tasks."""
    on_demand = [job for job in completed(first_run) if not job["spot"]]
    warm = [job for job in on_demand if job["start"] == "warm"]
    assert len(warm) >= len(on_demand) / 2, [(job["name"], job["start"]) for job in first_run.jobs]


def test_the_cost_report_is_written(first_run: FirstRun, spec: FleetSpec) -> None:
    report = first_run.report()
    assert report["totals"]["jobs"] == len(spec.cities) + 1
    assert report["totals"]["completed"] == len(spec.cities)
    assert report["totals"]["failed"] == 1
    folder = next(first_run.folder.glob("reports/*/"))
    assert {path.name for path in folder.iterdir()} >= {"report.json", "report.csv", "report.html"}
    assert "NoSuchBucket" not in first_run.output  # sim serve --fleet made the fleet's bucket


def test_no_error_line_but_the_failed_try(first_run: FirstRun) -> None:
    """The one error line is the failure of the store whose first job failed: no ``XCom not found`` of a link, no
    board or upload error."""
    errors = [
        line
        for line in first_run.output.splitlines()
        if "[error" in line or " ERROR - " in line or "XCom not found" in line
    ]
    failed = [line for line in errors if "Task failed with exception" in line]
    assert len(failed) == 1, "\n".join(errors[:10])
    assert [line for line in errors if line not in failed] == [], "\n".join(errors[:10])


def test_no_warning_comes_from_our_code(first_run: FirstRun) -> None:
    """No deprecated Airflow API called by the provider, no asset event for an asset no DAG declares (the log of a
    first run repeated such warnings); Airflow's and the Amazon provider's own warnings are theirs."""
    from dags_test_output import warnings_from_our_code

    assert warnings_from_our_code(first_run.output) == []


def test_the_shorthands_and_the_templates_placeholders_reach_sagemaker(first_run: FirstRun) -> None:
    """Every field of the job: template, and the shorthand's ``demand-{city}``, as SageMaker got them."""
    client = SimClient(SIM_URL).boto3_client("sagemaker", region_name="eu-west-3")
    for job in completed(first_run):
        described = client.describe_training_job(TrainingJobName=job["name"])
        store = store_of(job)
        run_key = str(job["name"]).split("-")[2]
        assert described["HyperParameters"]["model_name"] == f"demand-{store}"
        assert described["Environment"] == {"STAGE": "pilot", "STORE": store}
        assert described["AlgorithmSpecification"]["ContainerArguments"] == [
            "--store",
            store,
            "--run",
            run_key,
        ]
        assert described["VpcConfig"] == {"Subnets": ["subnet-0a1b2c3d"], "SecurityGroupIds": ["sg-0a1b2c3d"]}
        assert described["RetryStrategy"] == {"MaximumRetryAttempts": 2}
        channels = {
            c["ChannelName"]: c["DataSource"]["S3DataSource"]["S3Uri"] for c in described["InputDataConfig"]
        }
        assert channels == {
            "train": f"s3://bakery-ml/data/{store}/",
            "validation": f"s3://bakery-ml/data/{store}/validation/",
            "calendar": "s3://bakery-ml/calendar/",
        }
        assert [m["MetricName"] for m in described["FinalMetricDataList"]] == [
            "validation:rmse",
            "validation:mape",
        ]
        assert run_key.startswith("t")  # an airflow dags test run: keyed by its DAG and logical date


@pytest.mark.chromium
def test_the_runs_fleet_view_opens_from_the_plan_tasks_link(first_run: FirstRun, spec: FleetSpec) -> None:
    """The run in the Fleet view a person reaches from the plan task's **Fleet view** extra link, in Chromium,
    signed in: on Airflow 3.0 (no plugin tabs) the view's own page, which takes the sign-in from the UI's local
    storage; from 3.1 the run's Fleet tab. Its figures are the run's: every job, every store trained."""
    import urllib.parse

    from playwright.sync_api import sync_playwright

    from sagemaker_fleet.testing.stack import LocalAirflowStack, StackSettings

    env = sim_env(first_run.folder)
    users = {"admin": ("admin", "admin-pw")}
    stack = LocalAirflowStack(
        StackSettings(
            home=first_run.home,
            dags_folder=first_run.folder / "dags",
            endpoint_url=SIM_URL,
            users=users,
            airflow_bin=airflow_executable(),
            extra_env={k: env[k] for k in ("AIRFLOW_CONN_AWS_DEFAULT", "AWS_DEFAULT_REGION")},
        )
    )
    try:
        stack.start(components=("api-server",))
        (run,) = [r for r in stack.runs(DAG_ID) if str(r["logical_date"]).startswith(LOGICAL_DATE)]
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
            assert view.locator("#actual-gantt .job").count() == len(first_run.jobs)
            assert view.locator("#count-trained").inner_text() == f"{len(spec.cities)} / {len(spec.cities)}"
            header = view.locator("#jobs thead").inner_text()
            assert "validation:rmse" in header
            assert errors == []
            browser.close()
    finally:
        stack.stop()


def test_sigterm_then_the_same_date_again_attaches_to_the_job_left_training(first_run: FirstRun) -> None:
    """SIGTERM ends ``airflow dags test`` while a store's job trains (exit 143), and the log says the job keeps
    training; the same DAG and logical date again is the same run (its key is the DAG's and the date's, though
    Airflow gives the test a new run id): it attaches to that job by its name instead of creating a second one,
    every store trains once, and no warm pool of the run is left idling at its end."""
    folder = first_run.folder
    text = FLEET.read_text()
    head, _, cities = text.partition("cities:\n")
    kept = [line for line in cities.splitlines(keepends=True) if any(f"name: {s}," in line for s in THREE)]
    (folder / "dags" / "fleets" / "bakery_three.yaml").write_text(head + "cities:\n" + "".join(kept))
    (folder / "dags" / "bakery_three.py").write_text(THREE_DAG)
    env = sim_env(folder)
    subprocess.run(["airflow", "dags", "reserialize"], env=env, cwd=folder, check=True, capture_output=True)
    command = ["airflow", "dags", "test", "bakery_three", "2026-12-05"]
    process = subprocess.Popen(
        command, env=env, cwd=folder, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True
    )
    assert process.stdout is not None
    lines: list[str] = []
    try:
        deadline = time.monotonic() + 300
        while time.monotonic() < deadline:
            line = process.stdout.readline()
            if not line:
                break
            lines.append(line)
            if ": created bakery-" in line:
                break
        created = [line for line in lines if ": created bakery-" in line]
        assert created, "".join(lines[-40:])
        job = created[0].split(": created ")[1].split()[0]
        process.send_signal(signal.SIGTERM)
        rest, _ = process.communicate(timeout=120)
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()
    stopped = "".join(lines) + rest
    assert process.returncode == 128 + signal.SIGTERM, stopped[-3000:]
    assert f"SIGTERM: airflow dags test stops here. {job} keeps training in SageMaker" in stopped
    again = subprocess.run(command, env=env, cwd=folder, capture_output=True, text=True, timeout=RUN_TIMEOUT)
    (folder / "again.log").write_text(again.stdout + again.stderr)
    assert again.returncode == 0, (again.stdout + again.stderr)[-5000:]
    run_key = job.split("-")[2]
    jobs = [j for j in SimClient(SIM_URL).state()["jobs"] if j["name"].endswith(f"-{run_key}")]
    # one job each: the store left training got no second one (the test attached to it by its name, or found it
    # completed in this run, whichever it was when the test came again)
    assert sorted(store_of(j) for j in jobs) == sorted(THREE), [j["name"] for j in jobs]
    assert job in {j["name"] for j in jobs}
    assert all(j["status"] == "Completed" for j in jobs), [(j["name"], j["status"]) for j in jobs]
    idle = [j["name"] for j in jobs if j["warm_pool_status"] == "Available"]
    assert idle == [], f"pools left idling after the run: {idle}"


def dags_test_with_conf(folder: Path, date: str, conf: dict[str, Any]) -> subprocess.CompletedProcess[str]:
    """``airflow dags test`` of the page's (scheduled) DAG for ``date`` with ``-c CONF``: a manual run of it."""
    done = subprocess.run(
        ["airflow", "dags", "test", DAG_ID, date, "-c", json.dumps(conf)],
        env=sim_env(folder),
        cwd=folder,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        timeout=RUN_TIMEOUT,
    )
    (folder / f"conf-{date}.log").write_text(done.stdout)
    return done


def jobs_of_date(date: str) -> list[str]:
    import datetime as dt

    from sagemaker_fleet.fleetspec.names import run_key_for

    key = run_key_for(
        dt.datetime.fromisoformat(date).replace(tzinfo=dt.UTC), "x", "manual", dag_id=DAG_ID, test=True
    )
    return [job["name"] for job in SimClient(SIM_URL).state()["jobs"] if job["name"].endswith(f"-{key}")]


def run_state(output: str, date: str) -> str:
    """How Airflow marked the run of ``date`` (its ``Marking run <DagRun …> successful`` line), or its line."""
    marked = f"Marking run <DagRun {DAG_ID} @ {date}"
    assert marked in output, output[-3000:]
    line = output.split(marked, 1)[1].split("\n", 1)[0]
    return next((state for state in ("successful", "failed") if f"> {state}" in line), line)


def test_a_dry_run_conf_on_the_scheduled_dag_launches_nothing(first_run: FirstRun) -> None:
    """The page's `-c '{"dry_run": true}'`, with one store, on its daily DAG (built without the trigger form): the
    plan of that store and its expected cost in the log, every training task skipped, no job — the scheduled DAG
    ignored its conf before and trained the whole fleet."""
    done = dags_test_with_conf(first_run.folder, "2026-12-06", {"dry_run": True, "cities": ["lyon"]})
    assert done.returncode == 0, done.stdout[-5000:]
    assert jobs_of_date("2026-12-06") == []
    assert run_state(done.stdout, "2026-12-06") == "successful"
    assert "run note: - Dry run, nothing launched: expected cost" in done.stdout
    assert "dry run: nothing launched" in done.stdout


def test_an_unknown_conf_key_fails_the_run_naming_it_before_any_job(first_run: FirstRun) -> None:
    done = dags_test_with_conf(first_run.folder, "2026-12-07", {"citys": ["lyon"], "dry_run": False})
    assert jobs_of_date("2026-12-07") == []
    assert "params.citys: unknown key; did you mean `cities`?" in done.stdout, done.stdout[-5000:]
    assert "RefusedParamsError: refused: params.citys" in done.stdout  # the plan task, without retries
    assert run_state(done.stdout, "2026-12-07") == "failed"


def test_the_page_names_the_commands_this_module_runs() -> None:
    """The block is what a user copies: every line a command of the user's shell, the simulator on the page's port,
    the DAG the DAG block builds."""
    assert "sagemaker-fleet sim serve --port" in FIRST_RUN
    assert 'eval "$(sagemaker-fleet sim env' in FIRST_RUN
    assert f'dag_id="{DAG_ID}"' in page_block("first-run-dag")
    assert FIRST_RUN.count("airflow dags test") == 1
    assert not [line for line in FIRST_RUN.splitlines() if line.startswith(("PYTHONPATH", "cd /"))]
