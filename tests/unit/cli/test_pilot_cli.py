"""``sagemaker-fleet pilot`` without an endpoint: its flags refused with the fix, its fleet (the spec's loader, the
planner, the dispatch book), the calls its dry run lists, the ceiling's arithmetic, its data, its policies and its
clean-up's steps against a scripted hook. The run itself is tested against the simulator
(tests/integration/cli/test_pilot_sim.py)."""

from __future__ import annotations

import hashlib
import json
import shlex
from decimal import Decimal
from pathlib import Path
from typing import Any

import pytest
from botocore.exceptions import ClientError

from sagemaker_fleet.cli.main import build_parser, main
from sagemaker_fleet.cli.pilot.calls import planned_calls, resource_of
from sagemaker_fleet.cli.pilot.ceiling import cost_ceiling
from sagemaker_fleet.cli.pilot.cleanup import settle_jobs
from sagemaker_fleet.cli.pilot.data import store_csv
from sagemaker_fleet.cli.pilot.fleet import pilot_fleet
from sagemaker_fleet.cli.pilot.policy import caller_policy, execution_role_policy
from sagemaker_fleet.cli.pilot.settings import PilotSettings, default_run_key, settings_of

ROLE = "arn:aws:iam::111122223333:role/SageMakerPilot"
BASE = [
    "pilot",
    "--region",
    "us-east-1",
    "--role-arn",
    ROLE,
    "--s3-prefix",
    "s3://acme-ml/pilot",
    "--run-key",
    "p1",
]


def settings(**overrides: Any) -> PilotSettings:
    values: dict[str, Any] = {
        "region": "us-east-1",
        "bucket": "acme-ml",
        "prefix": "pilot",
        "role_arn": ROLE,
        "run_key": "p1",
    }
    return PilotSettings(**{**values, **overrides})


@pytest.mark.parametrize(
    ("flag", "value", "said"),
    [
        ("--role-arn", "SageMakerPilot", "give the SageMaker execution role's ARN"),
        ("--s3-prefix", "acme-ml/pilot", "give an S3 URI such as s3://"),
        ("--run-key", "P-1", "use 1-16 lowercase letters or digits"),
        ("--max-runtime", "30", "give 60-"),
        ("--max-cost", "0", "above 0"),
        ("--price-per-hour", "cheap", "is not an amount in USD"),
        ("--poll-interval", "3600", "at most 600 seconds"),
    ],
)
def test_a_bad_flag_is_refused_with_the_fix(
    flag: str, value: str, said: str, capsys: pytest.CaptureFixture[str]
) -> None:
    argv = (
        [*BASE, flag, value]
        if flag not in BASE
        else [v if v != BASE[BASE.index(flag) + 1] else value for v in BASE]
    )
    assert main([*argv, "--dry-run"]) == 2
    err = capsys.readouterr().err
    assert f"argument {flag}" in err
    assert said in err


def test_a_region_without_the_builtin_image_and_an_unknown_type_are_refused(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert main([*BASE, "--dry-run", "--region", "xx-nowhere-1"]) == 2
    assert "--region xx-nowhere-1: SageMaker's built-in XGBoost has no image there" in capsys.readouterr().err
    assert main([*BASE, "--dry-run", "--instance-type", "ml.m5.larg"]) == 2
    assert "did you mean ml.m5.large?" in capsys.readouterr().err


def test_the_fleet_is_the_providers_spec_plan_and_book() -> None:
    fleet = pilot_fleet(settings())
    assert fleet.stores == ("store-1", "store-2", "store-3")
    assert [fleet.plan.job(store).start for store in fleet.stores] == ["cold", "warm", "warm"]
    assert fleet.plan.summary.lanes == 1
    assert fleet.job_names == ("pilot-store-1-p1", "pilot-store-2-p1", "pilot-store-3-p1")
    assert fleet.image_uri == "683313688378.dkr.ecr.us-east-1.amazonaws.com/sagemaker-xgboost:1.7-1"
    city = fleet.spec.city("store-2")
    assert city.train_s3_uri == "s3://acme-ml/pilot/p1/data/store-2/"
    assert fleet.spec.output_s3_uri == "s3://acme-ml/pilot/p1"
    assert fleet.spec.input_mode == "File"
    assert fleet.spec.warnings == ()
    assert "fleet: pilot" in fleet.spec_text


def test_planned_calls_follow_the_phases_and_name_every_resource() -> None:
    calls = planned_calls(pilot_fleet(settings()))
    phases = [call.phase for call in calls]
    assert phases == sorted(phases, key=["check", "data", "train", "clean-up"].index)
    creates = [call.resource for call in calls if call.operation == "CreateTrainingJob"]
    assert creates == ["pilot-store-1-p1", "pilot-store-2-p1", "pilot-store-3-p1"]
    assert {call.times for call in calls if call.operation == "StopTrainingJob"} == {"if"}
    puts = [call.resource for call in calls if call.operation == "PutObject"]
    assert puts == [f"s3://acme-ml/pilot/p1/data/store-{n}/train.csv" for n in (1, 2, 3)]
    assert not [call for call in calls if call.operation == "DeleteObjects"]
    with_delete = planned_calls(pilot_fleet(settings(delete_data=True)))
    assert with_delete[-1].operation == "DeleteObjects"


@pytest.mark.parametrize(
    ("service", "operation", "params", "resource"),
    [
        ("sagemaker", "CreateTrainingJob", {"TrainingJobName": "pilot-store-1-p1"}, "pilot-store-1-p1"),
        ("sagemaker", "ListTrainingJobs", {"NameContains": "-p1", "MaxResults": 100}, "NameContains=-p1"),
        ("s3", "PutObject", {"Bucket": "b", "Key": "k/x.csv"}, "s3://b/k/x.csv"),
        ("s3", "ListObjectsV2", {"Bucket": "b", "Prefix": "k/"}, "s3://b/k/"),
        ("s3", "DeleteObjects", {"Bucket": "b", "Delete": {"Objects": []}}, "s3://b"),
        ("service-quotas", "ListServiceQuotas", {"ServiceCode": "sagemaker"}, "ServiceCode=sagemaker"),
    ],
)
def test_a_calls_resource_is_named_as_the_dry_run_names_it(
    service: str, operation: str, params: dict[str, Any], resource: str
) -> None:
    assert resource_of(service, operation, params) == resource


def test_the_ceiling_is_exact_and_rounded_up() -> None:
    fleet = pilot_fleet(settings(max_runtime_seconds=601, price_per_hour=Decimal("0.1")))
    ceiling = cost_ceiling(fleet)
    keep = [fleet.book.turns[store].keep_alive_seconds for store in fleet.stores]
    assert ceiling.seconds == sum(601 + 120 + k for k in keep)
    exact = Decimal(ceiling.seconds) * Decimal("0.1") / 3600  # 2,523 s: 0.07008333… USD
    assert ceiling.usd == Decimal("0.070084") > exact
    assert ceiling.lines()[-1].startswith(f"  {ceiling.seconds:,} instance-seconds × $0.1 per hour")
    assert "--price-per-hour" in ceiling.lines()[-1]


def test_the_data_is_the_same_bytes_every_time() -> None:
    body = store_csv("store-1")
    assert body == store_csv("store-1") != store_csv("store-2")
    assert hashlib.sha256(body).hexdigest()[:16] == "3087250a354898cd"
    assert len(body.splitlines()) == 200


def test_the_policies_scope_to_the_pilots_jobs_prefix_and_role() -> None:
    policy = caller_policy(settings())
    statements = {s["Sid"]: s for s in policy["Statement"]}
    assert statements["ThePilotsTrainingJobs"]["Resource"] == (
        "arn:aws:sagemaker:us-east-1:111122223333:training-job/pilot-*"
    )
    assert statements["WriteTheData"]["Action"] == "s3:PutObject"
    assert statements["ListThePilotsPrefix"]["Condition"] == {"StringLike": {"s3:prefix": "pilot/*"}}
    deleting = caller_policy(settings(delete_data=True, prefix="", role_arn=ROLE.replace("aws", "aws-cn", 1)))
    statements = {s["Sid"]: s for s in deleting["Statement"]}
    assert statements["WriteTheDataAndDeleteWhatItWrote"]["Action"] == ["s3:PutObject", "s3:DeleteObject"]
    assert statements["WriteTheDataAndDeleteWhatItWrote"]["Resource"] == "arn:aws-cn:s3:::acme-ml/*"
    assert "Condition" not in statements["ListThePilotsPrefix"]
    role = execution_role_policy(settings())
    assert not [s for s in role["Statement"] if "ecr:" in json.dumps(s)]


def test_the_policy_flag_prints_json_and_calls_nothing(capsys: pytest.CaptureFixture[str]) -> None:
    assert main([*BASE, "--policy", "caller"]) == 0
    assert json.loads(capsys.readouterr().out) == caller_policy(settings())


def test_the_dry_runs_command_runs_exactly_what_it_listed(capsys: pytest.CaptureFixture[str]) -> None:
    argv = [*BASE, "--max-runtime", "900", "--poll-interval", "10", "--delete-data", "--max-cost", "2"]
    assert main([*argv, "--dry-run"]) == 0
    out = capsys.readouterr().out
    command = out.split("Run exactly this: ")[1].strip()
    repeated = shlex.split(command)[1:]  # without "sagemaker-fleet"
    parser = build_parser()
    assert settings_of(parser.parse_args(repeated)) == settings_of(parser.parse_args(argv))


def test_json_goes_with_the_dry_run(capsys: pytest.CaptureFixture[str]) -> None:
    assert main([*BASE, "--json"]) == 2
    assert "--json goes with --dry-run" in capsys.readouterr().err


def test_a_full_output_folder_is_refused(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "old.json").write_text("{}")
    assert main([*BASE, "--out", str(tmp_path)]) == 2
    assert "the folder is not empty" in capsys.readouterr().err


def test_the_default_run_key_is_new_every_minute() -> None:
    import datetime as dt

    assert default_run_key(dt.datetime(2026, 12, 6, 12, 30, tzinfo=dt.UTC)) == "p2612061230"


# ----------------------------------------------------------------------------------------------- the clean-up


class ScriptedHook:
    """The hook's describe / stop / update_keep_alive, answering from scripted job states."""

    def __init__(self, jobs: dict[str, list[tuple[str, str | None]]]) -> None:
        self.jobs = jobs  # name -> the (status, pool) each describe returns next (the last one repeats)
        self.calls: list[tuple[str, str]] = []

    def describe(self, name: str) -> dict[str, Any] | None:
        self.calls.append(("describe", name))
        if name not in self.jobs:
            return None
        states = self.jobs[name]
        status, pool = states.pop(0) if len(states) > 1 else states[0]
        return {"TrainingJobStatus": status, **({"WarmPoolStatus": {"Status": pool}} if pool else {})}

    def stop(self, name: str) -> None:
        self.calls.append(("stop", name))

    def update_keep_alive(self, name: str, seconds: int) -> None:
        self.calls.append((f"keep-alive {seconds}", name))
        if name == "gone":
            raise ClientError(
                {"Error": {"Code": "ValidationException", "Message": "no pool"}}, "UpdateTrainingJob"
            )


def test_the_clean_up_stops_what_runs_ends_idle_pools_and_waits_until_they_are_settled() -> None:
    hook = ScriptedHook(
        {
            "a": [("Completed", "Reused")],
            "b": [
                ("InProgress", "InUse"),
                ("Stopping", None),
                ("Stopped", "Available"),
                ("Stopped", "Terminated"),
            ],
            "c": [("Completed", "Available"), ("Completed", "Terminated")],
        }
    )
    said: list[str] = []
    settled = settle_jobs(
        hook,
        ["a", "b", "c", "never"],
        poll_seconds=0,
        deadline_seconds=60,
        stop_running=True,
        say=said.append,
    )
    assert settled.stopped == ("b",)
    assert settled.pools_ended == ("c", "b")
    assert settled.unsettled == ()
    assert settled.descriptions["never"] is None
    assert ("stop", "b") in hook.calls
    assert [call for call in hook.calls if call[0].startswith("keep-alive")] == [
        ("keep-alive 0", "c"),
        ("keep-alive 0", "b"),
    ]
    assert said == [
        "b: stopped (it was still running)",
        "c: its idle warm pool ended (keep-alive 0)",
        "b: its idle warm pool ended (keep-alive 0)",
    ]


def test_the_clean_up_gives_up_at_its_deadline_and_names_what_is_left() -> None:
    hook = ScriptedHook({"gone": [("Completed", "Available")], "slow": [("InProgress", "InUse")]})
    settled = settle_jobs(
        hook, ["gone", "slow"], poll_seconds=0, deadline_seconds=0, stop_running=False, say=print
    )
    assert settled.unsettled == ("gone", "slow")  # a refused pool end is waited for, like a running job
    assert ("stop", "slow") not in hook.calls


# ------------------------------------------------------------------------------------------------- stop signals

_STOPPED_BY_SIGNAL = """
import asyncio, os, signal, sys
from sagemaker_fleet.cli.pilot import real_run

cancelled = []

async def train():
    try:
        os.kill(os.getpid(), getattr(signal, sys.argv[1]))
        await asyncio.sleep(30)
    except asyncio.CancelledError:
        cancelled.append(True)
        raise

def run(fleet, ceiling, out):
    try:
        asyncio.run(train())
    except KeyboardInterrupt:
        print("cancelled" if cancelled else "not cancelled", real_run.stopped_by())
        return real_run._interrupted_exit()
    return 0

real_run._run = run
code = real_run.run_pilot(None, None, None)
print("after", signal.getsignal(signal.SIGINT) is signal.SIG_IGN, signal.getsignal(signal.SIGTERM) is signal.SIG_DFL)
sys.exit(code)
"""


@pytest.mark.parametrize(("signum", "code", "said"), [("SIGINT", 130, "Ctrl-C"), ("SIGTERM", 143, "SIGTERM")])
def test_ctrl_c_and_sigterm_cancel_the_stores_tasks_even_where_sigint_was_ignored(
    signum: str, code: int, said: str
) -> None:
    # A script's background job inherits SIGINT ignored; the pilot listens for both signals itself while it runs
    # (the stores' asyncio tasks are cancelled, as Ctrl-C cancels them) and gives the old handlers back after.
    import subprocess
    import sys

    done = subprocess.run(
        ["/bin/sh", "-c", 'trap "" INT; exec "$0" "$@"', sys.executable, "-c", _STOPPED_BY_SIGNAL, signum],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert done.returncode == code, done.stdout + done.stderr
    assert done.stdout.splitlines() == [f"cancelled {said}", "after True True"], done.stderr
