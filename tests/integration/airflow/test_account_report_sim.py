"""The cost report of a run whose warm pools went to and came from another fleet's run of the
same account, read from the simulator over HTTP with boto3 — which job took whose pool, each counted once, with a
bounded look at the account (the other fleet's jobs counted, not named: whoever reads disp's report may not read
other's runs); and with credentials that may not describe the other fleet's jobs."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import yaml
from botocore.exceptions import ClientError

from sagemaker_fleet.cost import RunJobIndex, build_cost_report, report_json
from sagemaker_fleet.cost.collect import describe_run_jobs, find_other_runs_givers
from sagemaker_fleet.fleetspec import load_fleet_spec
from sagemaker_fleet.fleetspec.names import job_name, run_key_for
from sagemaker_fleet.jobs.prices import PriceBook
from sagemaker_fleet.jobs.reader import ClientJobReader
from sagemaker_fleet.jobs.request import Submission, compile_training_request

pytestmark = pytest.mark.integration
DISPATCH = Path(__file__).parent / "fleets" / "dispatch.yaml"  # fleet disp: one warm-pool key
RUN_KEY = run_key_for(None, "manual__show-it", "manual", dag_id="disp_manual")


@pytest.fixture
def two_fleets(aws_sim: Any, tmp_path: Path) -> dict[str, Any]:
    """Fleet ``other`` (disp's twin) and ``disp`` on one account: disp's a1 starts on other's a1 pool, and other's
    a2 on disp's a2 pool."""
    data = yaml.safe_load(DISPATCH.read_text())
    data["fleet"] = "other"
    other_path = tmp_path / "other.yaml"
    other_path.write_text(yaml.safe_dump(data))
    specs = {"disp": load_fleet_spec(DISPATCH), "other": load_fleet_spec(other_path)}
    sagemaker = aws_sim.boto3_client("sagemaker")
    aws_sim.set_quota("ml.m5.xlarge", instances=4, warm_pools=4)

    def create(fleet: str, city: str) -> str:
        spec = specs[fleet]
        aws_sim.set_work(60, city=city, fleet=fleet)
        submission = Submission(city, RUN_KEY, keep_alive_seconds=900)
        sagemaker.create_training_job(**compile_training_request(spec, spec.city(city), submission))
        return job_name(fleet, city, RUN_KEY)

    create("other", "a1")
    aws_sim.advance(
        120
    )  # other's a1 ends first (start-up times vary): its pool expires first, is handed out first
    create("disp", "a2")
    aws_sim.advance(600)  # both end and keep their pools
    create("disp", "a1")  # on other's a1 pool (or disp's a2: the simulator hands out the older pool first)
    create("other", "a2")  # on the one left
    aws_sim.advance(600)
    pools = {
        name: (sagemaker.describe_training_job(TrainingJobName=name).get("WarmPoolStatus") or {}).get(
            "ReusedByJob"
        )
        for name in (job_name("other", "a1", RUN_KEY), job_name("disp", "a2", RUN_KEY))
    }
    crossed = {
        job_name("other", "a1", RUN_KEY): job_name("disp", "a1", RUN_KEY),
        job_name("disp", "a2", RUN_KEY): job_name("other", "a2", RUN_KEY),
    }
    if pools != crossed:  # the simulator paired them the other way round: each fleet kept its own
        pytest.fail(f"the pools did not cross fleets: {pools}")
    return {"spec": specs["disp"], "sagemaker": sagemaker}


def disp_report(spec: Any, client: Any) -> Any:
    index = RunJobIndex.for_run(spec, RUN_KEY)
    reader = ClientJobReader(client)
    describes = describe_run_jobs(reader, index)
    other_runs = find_other_runs_givers(reader, index, describes)
    return build_cost_report(spec, RUN_KEY, describes, PriceBook.for_spec(spec), other_runs=other_runs)


def test_the_report_counts_pools_taken_from_and_given_to_another_fleets_run(
    aws_sim: Any, two_fleets: dict[str, Any]
) -> None:
    spec, client = two_fleets["spec"], two_fleets["sagemaker"]
    before = aws_sim.calls()["calls"]
    report = disp_report(spec, client)
    after = aws_sim.calls()["calls"]
    delta = {
        op: after.get(op, 0) - before.get(op, 0) for op in after if after.get(op, 0) != before.get(op, 0)
    }
    # the run's listing and its two describes, then one listing of the account's reused pools and one describe
    # of the other fleet's job that handed disp's a1 its pool (not of other's a2, which took disp's)
    assert delta == {"ListTrainingJobs": 2, "DescribeTrainingJob": 3}
    doc = report_json(report)
    a1, a2 = job_name("disp", "a1", RUN_KEY), job_name("disp", "a2", RUN_KEY)
    jobs = {job["job_name"]: job for job in doc["jobs"]}
    assert (jobs[a1]["start"], jobs[a1]["start_evidence"]) == ("warm", "reused-pool")
    assert jobs[a1]["pool_from_job"] is None  # other's job: not named
    assert jobs[a1]["pool_from_other_run"] is True
    assert jobs[a2]["reused_by_other_run"] is True
    assert jobs[a2]["start"] == "cold"  # the pool it gave away is other's warm start, not disp's
    assert doc["totals"]["warm_starts"] == 1
    assert doc["totals"]["pools_taken_from_other_runs"] == doc["totals"]["pools_given_to_other_runs"] == 1
    assert doc["other_runs_pools"]["given"] == [{"city": "a2", "job_name": a2, "taken_by_job": None}]
    assert doc["other_runs_pools"]["unknown_jobs"] == []
    assert "other-" not in str(doc["jobs"]) + str(doc["other_runs_pools"])


class OwnJobsOnly:
    """A boto3 client whose credentials may describe only the fleet's own jobs (an IAM policy on its job names)."""

    def __init__(self, client: Any, fleet: str) -> None:
        self.client, self.fleet = client, fleet

    def list_training_jobs(self, **kwargs: Any) -> Any:
        return self.client.list_training_jobs(**kwargs)

    def describe_training_job(self, **kwargs: Any) -> Any:
        if not kwargs["TrainingJobName"].startswith(f"{self.fleet}-"):
            raise ClientError(
                {"Error": {"Code": "AccessDeniedException", "Message": "not authorized"}},
                "DescribeTrainingJob",
            )
        return self.client.describe_training_job(**kwargs)


def test_credentials_that_may_not_describe_other_fleets_jobs_still_get_a_report(
    two_fleets: dict[str, Any],
) -> None:
    spec = two_fleets["spec"]
    report = disp_report(spec, OwnJobsOnly(two_fleets["sagemaker"], spec.fleet))
    doc = report_json(report)
    # the listing named the taker: the pool taken is still counted; only the giver could not be read
    assert doc["totals"]["pools_taken_from_other_runs"] == 1
    assert doc["other_runs_pools"]["unknown_jobs"] == []
    assert doc["other_runs_pools"]["unknown_jobs_not_shown"] == 1  # other's a1, counted
    assert doc["totals"]["jobs"] == 2
