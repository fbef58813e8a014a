"""The report of a simulated run equals the simulator's own billing state to the cent (issue 7).

A small run goes through the simulated endpoint with the fleet's real requests (``compile_training_request``): a
warm-pool chain of three cities (the last stopped by a user mid-training, its pool kept), a failure, a spot job and
its on-demand re-submission, and a 4-instance GPU job.
Pools are left to expire so retained time is final. Then ``sagemaker-fleet report --endpoint-url <simulator>`` runs
and every line and total is checked against ``/_sim/state``: billed, training and retained seconds priced with the
same table, warm and cold starts as the simulator decided them, and the upload into the simulator's S3.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

from sagemaker_fleet.cli.main import main
from sagemaker_fleet.fleetspec.price_table import load_price_table
from sagemaker_fleet.jobs.request import Submission, compile_training_request
from sim_fixtures import advance_until
from unit.cost.cost_describes import RUN_KEY, SPEC_YAML, demo_spec

if TYPE_CHECKING:
    from sagemaker_fleet.sim.client import SimClient

pytestmark = pytest.mark.integration
ENDED = {"Completed", "Failed", "Stopped"}
BUCKET = "acme-reports"


def submit(sm: Any, city: str, *, attempt: int = 1, keep_alive: int = 0, spot: bool | None = None) -> str:
    spec = demo_spec()
    request = compile_training_request(
        spec, spec.city(city), Submission(city, RUN_KEY, attempt, spot=spot, keep_alive_seconds=keep_alive)
    )
    sm.create_training_job(**request)
    return str(request["TrainingJobName"])


def simulated_run(sim: SimClient) -> None:
    sm = sim.boto3_client("sagemaker", region_name="us-east-1")
    for city in ("seoul", "tokyo", "lagos", "lima", "perth", "vision"):
        sim.set_work(600, city=city, fleet="demo")
    lima = submit(sm, "lima")
    vision = submit(sm, "vision")
    perth = submit(sm, "perth")  # spot, as the spec says
    seoul = submit(sm, "seoul", keep_alive=600)  # seoul and tokyo: the fleet's image; lagos: its own
    sim.advance(200)
    sim.fail(lima, "AlgorithmError: the simulator failed it on purpose")
    advance_until(sim, sm, seoul, ENDED)
    tokyo = submit(sm, "tokyo", keep_alive=600)  # reuses seoul's pool
    advance_until(sim, sm, tokyo, ENDED)
    # reuses tokyo's pool, and a user stops it mid-training: the pool (launched) is kept for its keep-alive
    lagos = submit(sm, "lagos", keep_alive=300)
    advance_until(sim, sm, lagos, {"Training"})
    sm.stop_training_job(TrainingJobName=lagos)
    advance_until(sim, sm, perth, ENDED)
    perth_r2 = submit(sm, "perth", attempt=2, spot=False)  # on-demand re-submission
    for name in (lagos, vision, perth_r2):
        advance_until(sim, sm, name, ENDED)
    sim.advance(700)  # every keep-alive has run out: retained time is final


def sim_cost(job: Mapping[str, Any], prices: Mapping[str, float]) -> float:
    seconds = (job["billable_seconds"] or 0) + round(job["retained_seconds"])
    return seconds * job["instance_count"] * prices[job["instance_type"]] / 3600


def test_report_equals_simulator_billing_to_the_cent(
    sim: SimClient, aws_env: None, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    simulated_run(sim)
    sim.boto3_client("s3", region_name="us-east-1").create_bucket(Bucket=BUCKET)
    spec_file = tmp_path / "demo.yaml"
    spec_file.write_text(SPEC_YAML)
    out = tmp_path / "out"

    code = main(
        ["report", str(spec_file), "--run-key", RUN_KEY, "--out", str(out), "--endpoint-url", sim.url]
    )
    printed = capsys.readouterr()
    assert code == 0, printed.err

    report = json.loads((out / "report.json").read_text())
    state = {job["name"]: job for job in sim.state()["jobs"]}
    table = load_price_table()
    prices = {itype: entry.usd_per_hour for itype, entry in table.regions["us-east-1"].items()}

    assert sorted(j["job_name"] for j in report["jobs"]) == sorted(state)
    for line in report["jobs"]:
        truth = state[line["job_name"]]
        assert line["status"] == truth["status"]
        assert line["billable_seconds"] == (truth["billable_seconds"] or 0)
        assert line["training_seconds"] == (truth["training_seconds"] or 0)
        assert line["retained_billable_seconds"] == round(truth["retained_seconds"])
        assert round(line["cost_usd"], 2) == round(sim_cost(truth, prices), 2), line["job_name"]
        if truth["start"] is not None:
            assert line["start"] == truth["start"], line["job_name"]
        assert line["image_pulled"] == truth["image_pulled"], line["job_name"]

    totals = report["totals"]
    assert round(totals["cost_usd"], 2) == round(sum(sim_cost(j, prices) for j in state.values()), 2)
    assert totals["jobs"] == len(state) == 7
    assert (totals["completed"], totals["failed"], totals["stopped"], totals["resubmitted"]) == (5, 1, 1, 1)
    # the job a user stopped while on a warm pool: its billed time up to the stop, and its kept pool's idle time
    lagos = next(line for line in report["jobs"] if line["city"] == "lagos")
    assert (lagos["status"], lagos["start"]) == ("Stopped", "warm")
    assert lagos["billable_seconds"] > 0
    assert lagos["retained_billable_seconds"] == round(state[lagos["job_name"]]["retained_seconds"]) > 0
    assert totals["warm_starts"] == sum(1 for j in state.values() if j["start"] == "warm") == 2
    # lagos runs another image than tokyo, whose pool it took: warm, but the image was pulled again
    assert lagos["image_pulled"] is True
    assert totals["warm_image_pulls"] == 1
    assert totals["retained_cost_usd"] > 0
    spot = next(j for j in report["jobs"] if j["spot"])
    assert spot["spot_savings_pct"] > 0

    s3 = sim.boto3_client("s3", region_name="us-east-1")
    listed = s3.list_objects_v2(Bucket=BUCKET, Prefix=f"fleets/demo/reports/{RUN_KEY}/")
    assert {o["Key"].rsplit("/", 1)[-1] for o in listed["Contents"]} == {
        "report.json",
        "report.csv",
        "report.html",
    }
