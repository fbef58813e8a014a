"""The plan task's duration history, read from report.json files in the simulator's S3 (moto) over HTTP: the
newest that reads is used, and a corrupt or foreign report is skipped instead of failing every later run."""

from __future__ import annotations

import json

import pytest

from sagemaker_fleet.fleetspec import load_fleet_spec
from sagemaker_fleet.operators.plan import PlanFleetOperator

pytestmark = pytest.mark.integration


def report(fleet: str, seconds: int) -> bytes:
    return json.dumps(
        {
            "fleet": fleet,
            "run_key": "x",
            "jobs": [
                {
                    "city": "seoul",
                    "job_name": f"{fleet}-seoul-x",
                    "status": "Completed",
                    "training_seconds": seconds,
                    "startup_seconds": 150,
                    "start": "cold",
                    "spot": False,
                }
            ],
        }
    ).encode()


@pytest.fixture
def s3(aws_sim):
    aws_sim.reset(moto=True)
    client = aws_sim.boto3_client("s3")
    client.create_bucket(Bucket="acme-ml")
    return client


def history(fleets_dir):
    spec = load_fleet_spec(fleets_dir / "small.yaml")
    operator = PlanFleetOperator(task_id="plan", spec_path=str(fleets_dir / "small.yaml"))
    return operator._history(spec, "20261129")


def test_a_corrupt_or_foreign_newest_report_is_skipped_for_the_newest_that_reads(
    s3, fleets_dir, capsys
) -> None:
    def put(day: str, body: str) -> object:
        return s3.put_object(Bucket="acme-ml", Key=f"fleets/small/reports/{day}/report.json", Body=body)

    put("20261125", report("small", 1111))
    put("20261126", report("small", 2222))  # the newest that reads
    put("20261127", report("citydemand", 3333))  # another fleet's report under this prefix
    put("20261128", b'{"fleet": "small", "jobs": [')  # cut short
    put("20261129", report("small", 9999))  # this very run's own report: never its own history
    found = history(fleets_dir)
    assert found is not None
    assert found.training["seoul"] == 2222
    skipped = [line for line in capsys.readouterr().out.splitlines() if "skipping" in line]  # the task log
    assert len(skipped) == 2
    assert any("20261128" in m for m in skipped)
    assert any("20261127" in m and "citydemand" in m for m in skipped)


def test_no_readable_report_plans_without_history(s3, fleets_dir) -> None:
    s3.put_object(Bucket="acme-ml", Key="fleets/small/reports/20261128/report.json", Body=b"not json")
    assert history(fleets_dir) is None


def test_a_missing_bucket_plans_without_history(aws_sim, fleets_dir) -> None:
    aws_sim.reset(moto=True)
    assert history(fleets_dir) is None


def test_the_plan_keeps_to_the_lower_of_the_specs_and_the_accounts_quotas(
    aws_sim, fleets_dir, capsys
) -> None:
    """The plan task reads Service Quotas (from the simulator over HTTP): the account allows 4 of the 6 instances
    the spec declares, so the plan and the run's dispatch keep to 4, and the task log says to fix the spec."""
    from sagemaker_fleet.dispatch import DispatchBook
    from sagemaker_fleet.plan import FleetPlan, plan_fleet

    aws_sim.set_quota("ml.m5.xlarge", instances=4, warm_pools=3, spot_instances=4)
    aws_sim.set_quota("ml.m5.2xlarge", instances=2, warm_pools=1)
    spec = load_fleet_spec(fleets_dir / "small.yaml")
    operator = PlanFleetOperator(task_id="plan", spec_path=str(fleets_dir / "small.yaml"))
    planned, account = operator._account_quotas(spec)
    assert planned.quotas["ml.m5.xlarge"].instances == 4
    assert "the spec says 6, the account allows 4: planning with 4" in capsys.readouterr().out
    plan = FleetPlan.from_json(
        plan_fleet(planned, "20261129").within(account).to_json()
    )  # as the triggers read it
    assert plan.quotas["ml.m5.xlarge"].instances == 4
    book = DispatchBook.from_plan(plan, spec)
    assert book.capacity[("ml.m5.xlarge", "instances")] == 4  # not the file's 6
    assert book.account_limit(("ml.m5.xlarge", "instances")) == 4
    # the account allows more than the spec says: the spec's is the fleet's cap, the account's what all jobs keep to
    aws_sim.set_quota("ml.m5.xlarge", instances=10, warm_pools=3, spot_instances=4)
    planned, account = operator._account_quotas(spec)
    assert planned.quotas["ml.m5.xlarge"].instances == 6
    plan = FleetPlan.from_json(plan_fleet(planned, "20261129").within(account).to_json())
    book = DispatchBook.from_plan(plan, spec)
    assert (
        book.capacity[("ml.m5.xlarge", "instances")],
        book.account_limit(("ml.m5.xlarge", "instances")),
    ) == (6, 10)


def test_unreadable_quotas_plan_with_the_specs(aws_sim, fleets_dir, monkeypatch, capsys) -> None:
    monkeypatch.setenv("AIRFLOW_CONN_AWS_DEFAULT", "aws://?endpoint_url=http%3A%2F%2F127.0.0.1%3A9")  # nobody
    monkeypatch.setenv("AWS_MAX_ATTEMPTS", "1")
    spec = load_fleet_spec(fleets_dir / "small.yaml")
    operator = PlanFleetOperator(task_id="plan", spec_path=str(fleets_dir / "small.yaml"))
    assert operator._account_quotas(spec) == (spec, {})
    assert "the account's quotas could not be read" in capsys.readouterr().out
