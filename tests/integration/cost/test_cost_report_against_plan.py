"""``sagemaker-fleet report --plan`` against the simulator over HTTP: the report names groups as the plan does (a
fleet whose first city runs ml.m5.xlarge and a later one ml.c5.xlarge: ``g0`` is ml.m5.xlarge in both, where the
report once numbered by instance type), and sets the run against the plan per group — a pool that expired before its
successor was created is a missed warm start with its gap and keep-alive, and an idle pool nobody took."""

from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

from sagemaker_fleet.cli.main import main
from sagemaker_fleet.cost.against_plan import NO_PLAN
from sagemaker_fleet.fleetspec import parse_fleet_spec
from sagemaker_fleet.jobs.request import Submission, compile_training_request
from sagemaker_fleet.plan import plan_fleet
from sim_fixtures import advance_until

if TYPE_CHECKING:
    from sagemaker_fleet.fleetspec.model import FleetSpec
    from sagemaker_fleet.plan import FleetPlan
    from sagemaker_fleet.sim.client import SimClient

pytestmark = pytest.mark.integration
RUN_KEY = "20261129"
ENDED = {"Completed", "Failed", "Stopped"}
SPEC = """
fleet: bakery
region: us-east-1
role_arn: arn:aws:iam::111122223333:role/FleetTraining
image_uri: 111122223333.dkr.ecr.us-east-1.amazonaws.com/demand:1.4
output_s3_uri: s3://acme-reports/fleets/bakery
orchestration_latency_seconds: 60
quotas:
  ml.m5.xlarge: {instances: 1, warm_pools: 1}
  ml.c5.xlarge: {instances: 1, warm_pools: 1}
defaults:
  instance_type: ml.m5.xlarge
  expected_seconds: 600
cities:
  - {name: caen, train_s3_uri: "s3://acme-ml/data/caen/"}
  - {name: lyon, train_s3_uri: "s3://acme-ml/data/lyon/", instance_type: ml.c5.xlarge}
  - {name: nice, train_s3_uri: "s3://acme-ml/data/nice/"}
  - {name: metz, train_s3_uri: "s3://acme-ml/data/metz/", instance_type: ml.c5.xlarge}
"""


def run_the_plan(sim: SimClient, spec: FleetSpec, plan: FleetPlan) -> dict[str, Any]:
    """Each lane in order with the plan's keep-alives; ml.m5.xlarge's second city is created only after its
    predecessor's pool expired (a slow scheduler), ml.c5.xlarge's takes its predecessor's pool."""
    sm = sim.boto3_client("sagemaker", region_name="us-east-1")
    sim.set_quota("ml.m5.xlarge", 1, warm_pools=1)
    sim.set_quota("ml.c5.xlarge", 1, warm_pools=1)
    names = {}
    for city in spec.cities:
        sim.set_work(600, city=city.name, fleet=spec.fleet)
    for lane in plan.lanes:
        for job in lane.jobs:
            request = compile_training_request(
                spec,
                spec.city(job.city),
                Submission(job.city, RUN_KEY, keep_alive_seconds=job.keep_alive_seconds),
            )
            sm.create_training_job(**request)
            names[job.city] = request["TrainingJobName"]
            advance_until(sim, sm, names[job.city], ENDED)
            if job.keep_alive_seconds and lane.group == plan.job("caen").group:
                sim.advance(job.keep_alive_seconds + 300)  # the pool expires before the next is created
    sim.advance(600)  # every pool has ended: retained time is final
    return names


def test_the_report_names_groups_as_the_plan_and_sets_the_run_against_it(
    sim: SimClient, aws_env: None, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    spec = parse_fleet_spec(SPEC)
    plan = plan_fleet(spec, RUN_KEY)
    assert {job.city: (job.group, job.start) for job in plan.jobs} == {
        "caen": ("g0", "cold"),
        "nice": ("g0", "warm"),
        "lyon": ("g1", "cold"),
        "metz": ("g1", "warm"),
    }
    names = run_the_plan(sim, spec, plan)
    (tmp_path / "bakery.yaml").write_text(SPEC)
    (tmp_path / "plan.json").write_text(plan.dumps())
    base = [
        "report",
        str(tmp_path / "bakery.yaml"),
        "--run-key",
        RUN_KEY,
        "--endpoint-url",
        sim.url,
        "--no-upload",
    ]

    code = main([*base, "--out", str(tmp_path / "with"), "--plan", str(tmp_path / "plan.json")])
    printed = capsys.readouterr()
    assert code == 0, printed.err
    doc = json.loads((tmp_path / "with" / "report.json").read_text())
    assert {job["city"]: job["group"] for job in doc["jobs"]} == {job.city: job.group for job in plan.jobs}
    assert [(g["group"], g["instance_type"]) for g in doc["by_group"]] == [
        ("g0", "ml.m5.xlarge"),
        ("g1", "ml.c5.xlarge"),
    ]
    against = doc["plan_against_actual"]
    assert (against["planned_warm_starts"], against["warm_starts"], against["short"]) == (2, 1, False)
    g0, g1 = against["groups"]
    assert (g0["planned_warm_starts"], g0["warm_starts"], g1["planned_warm_starts"], g1["warm_starts"]) == (
        1,
        0,
        1,
        1,
    )
    (missed,) = g0["missed_warm_starts"]
    state = {job["name"]: job for job in sim.state()["jobs"]}
    caen = state[names["caen"]]
    assert (missed["city"], missed["reason"], missed["predecessor"]) == ("nice", "expiry", "caen")
    keep_alive = plan.job("caen").keep_alive_seconds
    assert (keep_alive > 0, plan.job("nice").keep_alive_seconds) == (True, 0)  # the last of a lane keeps none
    assert missed["keep_alive_seconds"] == keep_alive
    assert missed["gap_seconds"] > keep_alive  # created after the pool had expired
    assert g0["untaken_pools"] == 1
    assert g0["untaken_retained_billable_seconds"] == round(caen["retained_seconds"]) > 0
    assert (g1["missed_warm_starts"], g1["untaken_pools"]) == ([], 0)
    csv_rows = (tmp_path / "with" / "report.csv").read_text().splitlines()
    assert "missed_warm_start" in csv_rows[0]
    assert any(row.startswith("nice,") and ",warm,expiry" in row for row in csv_rows[1:])
    assert "planned 2 warm, got 1: 1 missed (expiry 1)" in printed.out
    assert "  nice (g0): expiry — caen's pool expired: nice was created " in printed.out
    assert 'id="plan-groups"' in (tmp_path / "with" / "report.html").read_text()

    # without --plan: the same group names (the spec's, numbered as the planner does), and one line saying how
    code = main([*base, "--out", str(tmp_path / "without")])
    printed = capsys.readouterr()
    assert code == 0, printed.err
    bare = json.loads((tmp_path / "without" / "report.json").read_text())
    assert {job["city"]: job["group"] for job in bare["jobs"]} == {job.city: job.group for job in plan.jobs}
    assert bare["plan_against_actual"] is None
    assert NO_PLAN in printed.out
    assert bare["totals"]["untaken_pools"] == 1


def test_a_plan_of_another_run_or_not_a_plan_exits_2_naming_the_flag(
    tmp_path: Path, aws_env: None, capsys: pytest.CaptureFixture[str]
) -> None:
    spec = parse_fleet_spec(SPEC)
    (tmp_path / "bakery.yaml").write_text(SPEC)
    (tmp_path / "other.json").write_text(plan_fleet(spec, "20261130").dumps())
    (tmp_path / "junk.json").write_text('{"fleet": "bakery"}')
    base = ["report", str(tmp_path / "bakery.yaml"), "--run-key", RUN_KEY, "--out", str(tmp_path / "o")]
    # nothing reaches an endpoint: the flags are checked first (no endpoint is set up at all)
    assert main([*base, "--plan", str(tmp_path / "other.json")]) == 2
    err = capsys.readouterr().err
    assert (
        f"--plan {tmp_path / 'other.json'}: the plan of fleet bakery run 20261130, not of bakery run {RUN_KEY}"
        in err
    )
    assert main([*base, "--plan", str(tmp_path / "junk.json")]) == 2
    assert "not a plan JSON (run_key: required field is missing)" in capsys.readouterr().err
    assert main([*base, "--plan", str(tmp_path / "missing.json")]) == 2
    assert "cannot read the file" in capsys.readouterr().err
