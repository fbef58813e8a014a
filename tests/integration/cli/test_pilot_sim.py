"""``sagemaker-fleet pilot`` end to end against the simulated endpoint over HTTP (a :class:`SimulatorServer` in this
process; the Ctrl-C run is a subprocess sent SIGINT).

One real run of three stores is checked by the first test: its dry run (text and JSON) beside the calls the run
recorded and the calls the simulator counted; the jobs in warm-pool order (the first cold, the next two on the
pool the one before left); every pool ended; the comparison written; the ceiling equal to the documented formula;
and the least IAM policy the pilot prints, evaluated against every request the run made.
"""

from __future__ import annotations

import contextlib
import io
import json
import os
import signal
import subprocess
import sys
import time
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass
from decimal import ROUND_CEILING, Decimal
from pathlib import Path
from typing import Any

import pytest

from iam_policy import Request, allowing, allows
from sagemaker_fleet.cli.main import main
from sagemaker_fleet.fleetspec.builtin_images import builtin_xgboost
from sagemaker_fleet.fleetspec.price_table import load_price_table
from sagemaker_fleet.sim import SimConfig
from sagemaker_fleet.sim.client import SimClient
from sagemaker_fleet.sim.server import ServerSettings, SimulatorServer
from sim_fixtures import QUIET_SPOT

pytestmark = pytest.mark.integration

REGION = "us-east-1"
ACCOUNT = "111122223333"
ROLE = f"arn:aws:iam::{ACCOUNT}:role/SageMakerPilot"
BUCKET = "pilot-bucket"
PREFIX = f"s3://{BUCKET}/sagemaker-pilot"
STORES = ("store-1", "store-2", "store-3")
#: Fast enough for a short test, slow enough that a 120 s keep-alive lasts 4 s of wall time on a busy machine.
SPEED = 30.0
WORK_SECONDS = 60


@pytest.fixture(scope="module")
def pilot_sim() -> Iterator[SimClient]:
    with SimulatorServer(ServerSettings(speed=SPEED, config=SimConfig(seed=7, spot=QUIET_SPOT))) as server:
        yield SimClient(server.url)


@contextlib.contextmanager
def account(sim: SimClient, work: float = WORK_SECONDS) -> Iterator[SimClient]:
    """The simulator, reset, with the user's bucket, the stores' work, and this process pointed at it."""
    sim.reset()
    for store in STORES:
        sim.set_work(work, city=store)
    sim.boto3_client("s3").create_bucket(Bucket=BUCKET)
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("AWS_ENDPOINT_URL", sim.url)
        patch.setenv("AWS_ACCESS_KEY_ID", "testing")
        patch.setenv("AWS_SECRET_ACCESS_KEY", "testing")
        patch.delenv("AWS_PROFILE", raising=False)
        patch.delenv("AIRFLOW__LOGGING__LOGGING_LEVEL", raising=False)  # the pilot sets it for its process
        yield sim


def pilot_args(run_key: str, *extra: str) -> list[str]:
    return [
        "pilot",
        "--region",
        REGION,
        "--role-arn",
        ROLE,
        "--s3-prefix",
        PREFIX,
        "--run-key",
        run_key,
        *extra,
    ]


def cli(argv: list[str]) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = main(argv)
    return code, out.getvalue(), err.getvalue()


def keys_in_bucket(sim: SimClient) -> list[str]:
    listed = sim.boto3_client("s3").list_objects_v2(Bucket=BUCKET)
    return sorted(item["Key"] for item in listed.get("Contents") or ())


def key(call: dict[str, Any]) -> tuple[str, str, str]:
    return (call["service"], call["operation"], call["resource"])


@dataclass
class PilotRun:
    code: int
    out: Path
    stdout: str
    dry: dict[str, Any]
    dry_text: str
    policy: dict[str, Any]
    execution_policy: dict[str, Any]
    record: dict[str, Any]
    calls: list[dict[str, Any]]
    sim_calls: dict[str, int]
    state: dict[str, Any]
    descriptions: dict[str, dict[str, Any]]
    objects: list[str]
    data: dict[str, bytes]


def run_three_stores(pilot_sim: SimClient, out: Path) -> PilotRun:
    """The dry run (JSON and text), the two policies, then the run itself, and what the simulator saw of it."""
    argv = pilot_args("p1", "--poll-interval", "0.2", "--out", str(out))
    with account(pilot_sim) as sim:
        _, dry_json, _ = cli([*argv, "--dry-run", "--json"])
        _, dry_text, _ = cli([*argv, "--dry-run"])
        _, policy, _ = cli([*argv, "--policy", "caller"])
        _, execution, _ = cli([*argv, "--policy", "execution-role"])
        code, stdout, stderr = cli(argv)
        assert code == 0, stdout + stderr
        sim_calls = sim.calls()["calls"]
        sm = sim.boto3_client("sagemaker")
        descriptions = {
            f"pilot-{store}-p1": sm.describe_training_job(TrainingJobName=f"pilot-{store}-p1")
            for store in STORES
        }
        return PilotRun(
            code=code,
            out=out,
            stdout=stdout,
            dry=json.loads(dry_json),
            dry_text=dry_text,
            policy=json.loads(policy),
            execution_policy=json.loads(execution),
            record=json.loads((out / "pilot.json").read_text()),
            calls=json.loads((out / "calls.json").read_text()),
            sim_calls=sim_calls,
            state=sim.state(),
            descriptions=descriptions,
            objects=keys_in_bucket(sim),
            data={
                store: sim.boto3_client("s3")
                .get_object(Bucket=BUCKET, Key=f"sagemaker-pilot/p1/data/{store}/train.csv")["Body"]
                .read()
                for store in STORES
            },
        )


# ----------------------------------------------------------------------------------------- the dry run and the calls


def check_the_dry_run_prints_every_call_of_its_json_in_order(run: PilotRun) -> None:
    numbered = [line.split() for line in run.dry_text.splitlines() if line[:6].strip().isdigit()]
    printed = [(words[1], words[2], words[3], words[4]) for words in numbered]
    assert printed == [(c["service"], c["operation"], c["resource"], c["times"]) for c in run.dry["calls"]]
    assert [int(words[0]) for words in numbered] == list(range(1, len(printed) + 1))
    assert "nothing is called and nothing is written" in run.dry_text


def check_the_run_made_exactly_the_calls_the_dry_run_listed(run: PilotRun) -> None:
    planned, made = run.dry["calls"], run.calls
    listed = {key(call) for call in planned}
    unlisted = [key(call) for call in made if key(call) not in listed]
    assert unlisted == [], "calls the dry run did not list"
    required = {key(call) for call in planned if call["times"] != "if"}
    assert required - {key(call) for call in made} == set(), (
        "calls the dry run promised and the run did not make"
    )
    counts = Counter(key(call) for call in made)
    for call in planned:
        same = [other for other in planned if key(other) == key(call)]
        if all(other["times"] == "once" for other in same):
            assert counts[key(call)] == len(same), call
    # the once-calls in the dry run's order: the prefix check, the data, the creates in the plan's order
    firsts = list(dict.fromkeys(key(call) for call in made))
    once = [key(call) for call in planned if call["times"] == "once"]
    assert sorted(once, key=firsts.index) == once
    assert key(made[0]) == ("service-quotas", "ListServiceQuotas", "ServiceCode=sagemaker")
    assert key(made[-1]) == ("s3", "ListObjectsV2", f"{PREFIX}/p1/")


def check_the_simulator_counted_the_sagemaker_calls_the_pilot_recorded(run: PilotRun) -> None:
    recorded = Counter(call["operation"] for call in run.calls if call["service"] == "sagemaker")
    assert dict(recorded) == run.sim_calls
    assert recorded["CreateTrainingJob"] == 3
    assert run.record["calls"]["made"] == len(run.calls)


# ------------------------------------------------------------------------------------------- what the run did


def check_three_stores_ran_in_warm_pool_order_on_the_builtin_image(run: PilotRun) -> None:
    stores = {store["store"]: store for store in run.record["stores"]}
    assert [stores[s]["aws"]["status"] for s in STORES] == ["Completed"] * 3
    assert [(stores[s]["aws"]["start"], stores[s]["aws"]["start_evidence"]) for s in STORES] == [
        ("cold", "timing"),
        ("warm", "reused-pool"),
        ("warm", "reused-pool"),
    ]
    assert [stores[s]["planned_start"] for s in STORES] == ["cold", "warm", "warm"]
    assert stores["store-1"]["aws"]["reused_by_job"] == "pilot-store-2-p1"
    assert stores["store-2"]["aws"]["reused_by_job"] == "pilot-store-3-p1"
    for name, described in run.descriptions.items():
        assert described["AlgorithmSpecification"]["TrainingImage"] == builtin_xgboost().image_uri(REGION)
        assert described["ResourceConfig"]["InstanceType"] == "ml.m5.large"
        assert described["InputDataConfig"][0]["ContentType"] == "text/csv"
        assert described["HyperParameters"]["num_round"] == "20", name
    by_name = {job["name"]: job for job in run.state["jobs"]}
    assert [by_name[f"pilot-{s}-p1"]["start"] for s in STORES] == ["cold", "warm", "warm"]


def check_every_pool_the_pilot_made_is_ended(run: PilotRun) -> None:
    pools = run.state["pools"]
    assert pools
    assert {pool["status"] for pool in pools} <= {"Reused", "Terminated"}
    assert run.record["clean_up"]["pools"] == {
        "pilot-store-1-p1": "Reused",
        "pilot-store-2-p1": "Reused",
        "pilot-store-3-p1": "Terminated",
    }
    assert run.record["clean_up"]["unsettled"] == []
    assert "every pool ended" in (run.out / "pilot.txt").read_text()


def check_the_comparison_sets_aws_beside_the_simulators_prediction(run: PilotRun) -> None:
    files = {path.name for path in run.out.iterdir()} | {
        f"report/{p.name}" for p in (run.out / "report").iterdir()
    }
    assert {"pilot.json", "pilot.txt", "calls.json", "pilot.yaml", "plan.json", "report/report.html"} <= files
    record = run.record
    assert record["pilot"]["aws"] is False
    assert record["pilot"]["endpoint_url"].startswith("http://127.0.0.1")
    for store in record["stores"]:
        for side in ("aws", "simulator"):
            values = store[side]
            assert values["startup_seconds"] > 0, (store["store"], side)
            assert values["billable_seconds"] > 0, (store["store"], side)
            assert {"Starting", "Downloading", "Training", "Uploading"} <= set(values["phases"]), values[
                "phases"
            ]
        measured = run.descriptions[store["job_name"]]
        assert store["aws"]["billable_seconds"] == measured["BillableTimeInSeconds"]
        retained = (measured.get("WarmPoolStatus") or {}).get("ResourceRetainedBillableTimeInSeconds", 0)
        assert store["aws"]["retained_billable_seconds"] == retained
    assert record["stores"][0]["simulator"]["start"] == "cold"
    assert [s["simulator"]["start"] for s in record["stores"][1:]] == ["warm", "warm"]
    startup = record["startup_seconds"]["aws"]
    assert startup["warm"] < startup["cold"]
    table = (run.out / "pilot.txt").read_text()
    for store in record["stores"]:
        assert f"{store['store']}  {store['job_name']}" in table
    assert table in run.stdout
    assert record["objects"]
    assert all(obj["key"].startswith("sagemaker-pilot/p1/") for obj in record["objects"])
    assert [o["key"] for o in record["objects"]] == run.objects  # listed, and kept without --delete-data


def check_the_data_is_a_few_kilobytes_of_csv_per_store(run: PilotRun) -> None:
    for body in run.data.values():
        assert 1_000 < len(body) < 10_000
        rows = body.decode().splitlines()
        assert all(len(row.split(",")) == 4 for row in rows)
        float(rows[0].split(",")[0])  # no header: the label first
    assert len(set(run.data.values())) == len(STORES)


# ------------------------------------------------------------------------------------------------- money


def check_the_ceiling_is_the_documented_formula_and_bounds_what_was_billed(run: PilotRun) -> None:
    """(MaxRuntimeInSeconds + 120 s after a stop + keep-alive) per job, times the shipped price, over 3,600,
    rounded up to the micro-dollar (docs/guides/pilot.md)."""
    price = Decimal(str(load_price_table().entry(REGION, "ml.m5.large").usd_per_hour))
    seconds = sum(600 + 120 + job["keep_alive_seconds"] for job in run.dry["jobs"])
    expected = (Decimal(seconds) * price / 3600).quantize(Decimal("0.000001"), rounding=ROUND_CEILING)
    assert Decimal(run.dry["ceiling"]["usd"]) == expected == Decimal(run.record["ceiling"]["usd"])
    assert f"ceiling ${expected} against --max-cost $1.00" in run.dry_text
    for job in run.dry["jobs"]:
        created = run.descriptions[job["job_name"]]["ResourceConfig"].get("KeepAlivePeriodInSeconds", 0)
        assert created <= job["keep_alive_seconds"]
    assert Decimal(str(run.record["totals"]["aws"]["cost_usd"])) <= expected


# ------------------------------------------------------------------------------------------------- permissions


def iam_requests(call: dict[str, Any], deleted: list[str]) -> list[Request]:
    """The authorization requests one recorded call makes of the caller's identity (the SageMaker and S3 service
    authorization references: CreateTrainingJob with tags needs AddTags, and PassRole of the job's role)."""
    service, operation, resource = key(call)
    job_arn = f"arn:aws:sagemaker:{REGION}:{ACCOUNT}:training-job/{resource}"
    if service == "sagemaker" and operation == "ListTrainingJobs":
        return [Request("sagemaker:ListTrainingJobs", "*")]
    if service == "sagemaker":
        requests = [Request(f"sagemaker:{operation}", job_arn)]
        if operation == "CreateTrainingJob":
            requests += [
                Request("sagemaker:AddTags", job_arn),
                Request("iam:PassRole", ROLE, {"iam:PassedToService": "sagemaker.amazonaws.com"}),
            ]
        return requests
    if service == "service-quotas":
        return [Request(f"servicequotas:{operation}", "*")]
    bucket, _, path = resource.removeprefix("s3://").partition("/")
    if operation == "ListObjectsV2":
        return [Request("s3:ListBucket", f"arn:aws:s3:::{bucket}", {"s3:prefix": path})]
    if operation == "DeleteObjects":
        return [Request("s3:DeleteObject", f"arn:aws:s3:::{bucket}/{k}") for k in deleted]
    return [Request(f"s3:{operation}", f"arn:aws:s3:::{bucket}/{path}")]


def exercised(policy: dict[str, Any], calls: list[dict[str, Any]], deleted: list[str] = ()) -> set[str]:
    """Every action the calls needed, each checked allowed by ``policy``."""
    actions = set()
    for call in calls:
        for request in iam_requests(call, list(deleted)):
            assert allows(policy, request), f"{request} ({key(call)}) is denied by the pilot's policy"
            actions.add(request.action)
    return actions


def policy_actions(policy: dict[str, Any]) -> set[str]:
    found: set[str] = set()
    for statement in policy["Statement"]:
        action = statement["Action"]
        found.update([action] if isinstance(action, str) else action)
    return found


def check_the_callers_least_policy_allows_every_call_and_grants_nothing_unused(run: PilotRun) -> None:
    used = exercised(run.policy, run.calls)
    # StopTrainingJob and UpdateTrainingJob end what a Ctrl-C leaves (the test below): a run whose last job is created
    # with keep-alive 0 leaves no pool to end; the rest is what a run uses
    assert policy_actions(run.policy) - used == {"sagemaker:StopTrainingJob", "sagemaker:UpdateTrainingJob"}
    assert not allows(
        run.policy,
        Request("sagemaker:CreateTrainingJob", f"arn:aws:sagemaker:{REGION}:{ACCOUNT}:training-job/demand-x"),
    )
    assert not allows(run.policy, Request("s3:PutObject", f"arn:aws:s3:::{BUCKET}/elsewhere/train.csv"))
    assert not allows(run.policy, Request("s3:DeleteObject", f"arn:aws:s3:::{BUCKET}/sagemaker-pilot/p1/x"))
    assert not allows(run.policy, Request("iam:PassRole", ROLE, {"iam:PassedToService": "ec2.amazonaws.com"}))
    assert not allows(run.policy, Request("s3:ListBucket", f"arn:aws:s3:::{BUCKET}", {"s3:prefix": "other/"}))


def check_the_execution_roles_policy_covers_what_the_jobs_read_and_write(run: PilotRun) -> None:
    policy = run.execution_policy
    for name, described in run.descriptions.items():
        data = described["InputDataConfig"][0]["DataSource"]["S3DataSource"]["S3Uri"].removeprefix(
            f"s3://{BUCKET}/"
        )
        output = described["OutputDataConfig"]["S3OutputPath"].removeprefix(f"s3://{BUCKET}/")
        checkpoints = described["CheckpointConfig"]["S3Uri"].removeprefix(f"s3://{BUCKET}/")
        bucket = f"arn:aws:s3:::{BUCKET}"
        for request in (
            Request("s3:ListBucket", bucket, {"s3:prefix": data}),
            Request("s3:GetObject", f"{bucket}/{data}train.csv"),
            Request("s3:PutObject", f"{bucket}/{output}{name}/output/model.tar.gz"),
            Request("s3:ListBucket", bucket, {"s3:prefix": checkpoints}),
            Request("s3:GetObject", f"{bucket}/{checkpoints}model.ckpt"),
            Request("s3:PutObject", f"{bucket}/{checkpoints}model.ckpt"),
            Request(
                "logs:CreateLogStream",
                f"arn:aws:logs:{REGION}:{ACCOUNT}:log-group:/aws/sagemaker/TrainingJobs:log-stream:{name}/algo-1",
            ),
            Request("cloudwatch:PutMetricData", "*", {"cloudwatch:namespace": "/aws/sagemaker/TrainingJobs"}),
        ):
            assert allows(policy, request), request
        assert not allows(
            policy, Request("s3:PutObject", f"{bucket}/{data}train.csv")
        )  # the data is read only
    assert not [a for a in policy_actions(policy) if a.startswith("ecr:")]  # SageMaker pulls its own images
    assert allowing(
        policy, Request("s3:GetObject", f"arn:aws:s3:::{BUCKET}/sagemaker-pilot/p1/data/store-1/x")
    ) == ["ReadTheTrainingData"]


def test_a_pilot_of_three_stores_against_the_simulated_endpoint(pilot_sim: SimClient, tmp_path: Path) -> None:
    """One run, every check of it (one test: a run takes half a minute, and xdist would make it once per worker)."""
    run = run_three_stores(pilot_sim, tmp_path / "out")
    check_the_dry_run_prints_every_call_of_its_json_in_order(run)
    check_the_run_made_exactly_the_calls_the_dry_run_listed(run)
    check_the_simulator_counted_the_sagemaker_calls_the_pilot_recorded(run)
    check_three_stores_ran_in_warm_pool_order_on_the_builtin_image(run)
    check_every_pool_the_pilot_made_is_ended(run)
    check_the_comparison_sets_aws_beside_the_simulators_prediction(run)
    check_the_data_is_a_few_kilobytes_of_csv_per_store(run)
    check_the_ceiling_is_the_documented_formula_and_bounds_what_was_billed(run)
    check_the_callers_least_policy_allows_every_call_and_grants_nothing_unused(run)
    check_the_execution_roles_policy_covers_what_the_jobs_read_and_write(run)


# ------------------------------------------------------------------------------------------------- Ctrl-C


def test_ctrl_c_while_a_job_trains_stops_it_ends_its_pool_and_deletes_the_data(
    pilot_sim: SimClient, tmp_path: Path
) -> None:
    out = tmp_path / "out"
    argv = pilot_args("p2", "--poll-interval", "0.2", "--out", str(out), "--delete-data")
    with account(pilot_sim, work=1200) as sim:  # 40 s of training at the test's speed: time to press Ctrl-C
        # Started with SIGINT ignored, as a script's background job (and `make test`'s suites) start it: the pilot
        # installs its own handler, or Ctrl-C would train on and leave the jobs and pools to bill.
        ignoring_sigint = ["/bin/sh", "-c", 'trap "" INT; exec "$0" "$@"']  # SIG_IGN survives the exec
        process = subprocess.Popen(
            [*ignoring_sigint, sys.executable, "-m", "sagemaker_fleet.cli.main", *argv],
            env=dict(os.environ),
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        try:
            deadline = time.monotonic() + 120
            while not [j for j in sim.state()["jobs"] if j["secondary_status"] == "Training"]:
                assert process.poll() is None, process.communicate()
                assert time.monotonic() < deadline, "store-1 never started training"
                time.sleep(0.2)
            process.send_signal(signal.SIGINT)
            stdout, stderr = process.communicate(timeout=180)
        finally:
            if process.poll() is None:
                process.kill()
        assert process.returncode == 130, stdout + stderr
        state = sim.state()
        (job,) = state["jobs"]  # the other stores never started
        assert (job["name"], job["status"]) == ("pilot-store-1-p2", "Stopped")
        assert [pool["status"] for pool in state["pools"]] == ["Terminated"]  # the stop left a pool: ended
        calls = sim.calls()["calls"]
        assert calls["StopTrainingJob"] == 1
        assert calls["UpdateTrainingJob"] == 1
        assert keys_in_bucket(sim) == []  # --delete-data: the data and what the stopped job wrote
        _, dry, _ = cli([*argv, "--dry-run", "--json"])
        _, policy, _ = cli([*argv, "--policy", "caller"])
    record = json.loads((out / "pilot.json").read_text())
    assert record["pilot"]["interrupted"] is True
    assert record["clean_up"]["stopped"] == ["pilot-store-1-p2"]
    assert record["clean_up"]["pools_ended"] == ["pilot-store-1-p2"]
    assert record["deleted"] is True
    assert len(record["objects"]) >= 3
    assert "Ctrl-C" in stdout
    recorded = json.loads((out / "calls.json").read_text())
    assert ("s3", "DeleteObjects", f"s3://{BUCKET}") in {key(c) for c in recorded}
    assert {key(c) for c in recorded} <= {key(c) for c in json.loads(dry)["calls"]}
    deleted = [obj["key"] for obj in record["objects"]]
    assert {"sagemaker:StopTrainingJob", "s3:DeleteObject"} <= exercised(
        json.loads(policy), recorded, deleted
    )


# ------------------------------------------------------------------------------------------------- refusals


def test_a_ceiling_above_max_cost_refuses_to_start_naming_the_figure(
    pilot_sim: SimClient, tmp_path: Path
) -> None:
    with account(pilot_sim) as sim:
        code, stdout, stderr = cli([*pilot_args("p3", "--out", str(tmp_path / "o")), "--max-cost", "0.05"])
        assert code == 2
        assert "the cost ceiling is $0.080500, above --max-cost $0.05" in stderr
        code, stdout, stderr = cli([*pilot_args("p3"), "--max-cost", "0.05", "--dry-run"])
        assert code == 2
        assert "ceiling $0.080500 against --max-cost $0.05" in stdout
        assert sim.calls()["calls"] == {}
        assert keys_in_bucket(sim) == []
        assert not (tmp_path / "o").exists()


def test_no_warm_pool_quota_refuses_before_anything_is_written(pilot_sim: SimClient, tmp_path: Path) -> None:
    with account(pilot_sim) as sim:
        sim.set_quota("ml.m5.large", instances=2, warm_pools=0)
        code, _, stderr = cli(pilot_args("p4", "--out", str(tmp_path / "o")))
        assert code == 2
        assert "'ml.m5.large for training warm pool usage' is 0" in stderr
        assert keys_in_bucket(sim) == []
        assert "CreateTrainingJob" not in sim.calls()["calls"]


def test_a_used_run_key_is_refused(pilot_sim: SimClient, tmp_path: Path) -> None:
    with account(pilot_sim) as sim:
        sim.boto3_client("s3").put_object(
            Bucket=BUCKET, Key="sagemaker-pilot/p5/data/store-1/train.csv", Body=b"x"
        )
        code, _, stderr = cli(pilot_args("p5", "--out", str(tmp_path / "o")))
        assert code == 2
        assert "--run-key p5" in stderr
        assert "already holds objects" in stderr
        assert "CreateTrainingJob" not in sim.calls()["calls"]


def test_a_region_the_price_table_does_not_price_needs_a_price(pilot_sim: SimClient) -> None:
    with account(pilot_sim):
        argv = [
            "pilot",
            "--region",
            "eu-west-3",
            "--role-arn",
            ROLE,
            "--s3-prefix",
            PREFIX,
            "--run-key",
            "p6",
        ]
        code, _, stderr = cli([*argv, "--dry-run"])
        if code == 0:  # a table that prices the region
            pytest.skip("the shipped table prices ml.m5.large in eu-west-3")
        assert code == 2
        assert "--price-per-hour" in stderr
        code, stdout, _ = cli([*argv, "--dry-run", "--json", "--price-per-hour", "0.134"])
        dry = json.loads(stdout)
        assert code == 0
        assert dry["ceiling"]["usd_per_hour"] == "0.134"
        assert dry["image_uri"] == builtin_xgboost().image_uri("eu-west-3")
        assert Decimal(dry["ceiling"]["usd"]) == (Decimal(2520) * Decimal("0.134") / 3600).quantize(
            Decimal("0.000001"), rounding=ROUND_CEILING
        )
