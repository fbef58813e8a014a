"""Warm pools handed between the run and other runs of the account: counted once, as the taker's warm start, and
shown in report.json, report.csv and report.html (other fleets' jobs counted, not named); the givers found with a
bounded look at the account."""

from __future__ import annotations

import csv
import io
from datetime import timedelta
from typing import Any

import pytest

from sagemaker_fleet.cost import build_cost_report, render_html
from sagemaker_fleet.cost.collect import find_other_runs_givers
from sagemaker_fleet.cost.crossruns import GIVER_LOOKBACK, Giver, OtherRunsPools, candidates
from sagemaker_fleet.cost.disclosure import Disclosure
from sagemaker_fleet.cost.export import render_csv, render_json, report_json
from sagemaker_fleet.cost.report import RunJobIndex
from sagemaker_fleet.cost.summary import summary_lines
from sagemaker_fleet.fleetspec.price_table import load_price_table
from sagemaker_fleet.jobs.prices import PriceBook
from sagemaker_fleet.jobs.reader import ClientJobReader
from unit.cost.cost_describes import GENERATED_AT, RUN_KEY, T0, demo_spec, describe_job, end_of

SEOUL, TOKYO, LIMA = "demo-seoul-20261129", "demo-tokyo-20261129", "demo-lima-20261129"
THEIRS = "other-lisbon-20261129"  # another fleet's job


def run_jobs() -> list[dict[str, Any]]:
    """seoul's pool went to another fleet's job; tokyo started (quickly) on another fleet's pool; lima cold."""
    seoul = describe_job(
        SEOUL, keep_alive=600, retained=60, pool_status="Reused", reused_by="other-oslo-20261129"
    )
    tokyo = describe_job(TOKYO, created=end_of(seoul) + 60, startup=20, image="img")
    lima = describe_job(LIMA, created=50, startup=300)
    return [seoul, tokyo, lima]


def report(other_runs: OtherRunsPools | None = None) -> Any:
    spec = demo_spec()
    return build_cost_report(
        spec,
        RUN_KEY,
        run_jobs(),
        PriceBook(spec.region, load_price_table()),
        generated_at=GENERATED_AT,
        other_runs=other_runs,
    )


def test_a_pool_taken_from_another_run_is_the_takers_warm_start_once() -> None:
    plain = report()
    found = report(OtherRunsPools({TOKYO: Giver(THEIRS, "other-img")}, looked_up=True))
    tokyo = next(line for line in found.lines if line.job_name == TOKYO)
    assert (tokyo.start, tokyo.start_evidence) == ("warm", "reused-pool")
    assert (tokyo.pool_from_job, tokyo.pool_from_other_run) == (None, True)  # another fleet's: not named
    assert tokyo.image_pulled  # the giver ran another image
    assert found.totals.pools_taken_from_other_runs == 1
    # counted once: tokyo was warm by its start-up time already; the evidence changed, not the count
    assert found.totals.warm_starts == plain.totals.warm_starts
    assert found.totals.jobs == plain.totals.jobs == 3


def test_a_pool_given_to_another_run_counts_no_start_of_this_run() -> None:
    plain = report()
    seoul = next(line for line in plain.lines if line.job_name == SEOUL)
    assert seoul.reused_by_other_run
    assert (seoul.start, seoul.start_evidence) == ("cold", "timing")  # its own start, not the taker's
    assert plain.totals.pools_given_to_other_runs == 1
    assert plain.totals.warm_starts == 1  # tokyo, by timing: nothing for the pool seoul gave away
    assert not any(line.pool_from_other_run for line in plain.lines)


def test_a_pool_handed_inside_the_run_is_no_crossing() -> None:
    jobs = run_jobs()
    jobs[0]["WarmPoolStatus"]["ReusedByJob"] = TOKYO
    spec = demo_spec()
    inside = build_cost_report(spec, RUN_KEY, jobs, PriceBook(spec.region, load_price_table()))
    tokyo = next(line for line in inside.lines if line.job_name == TOKYO)
    assert (tokyo.pool_from_job, tokyo.pool_from_other_run) == (SEOUL, False)
    assert inside.totals.pools_given_to_other_runs == inside.totals.pools_taken_from_other_runs == 0
    assert candidates(jobs).keys() == {SEOUL, LIMA}


OURS = "demo-tokyo-m1a2b3c4d5"  # a job of another run of the run's own fleet (a manual run)


def test_json_csv_html_and_summary_count_other_fleets_jobs_without_naming_them() -> None:
    """Whoever may read the fleet's bucket reads the report: other fleets' jobs (another team's cities and run
    keys) are counted there, never named; the flags and totals stay."""
    found = report(
        OtherRunsPools({TOKYO: Giver(THEIRS)}, unknown=("other-x", OURS), looked_up=True, list_calls=1)
    )
    doc = report_json(found)
    assert doc["totals"]["pools_given_to_other_runs"] == 1
    assert doc["totals"]["pools_taken_from_other_runs"] == 1
    assert doc["other_runs_pools"]["given"] == [{"city": "seoul", "job_name": SEOUL, "taken_by_job": None}]
    assert doc["other_runs_pools"]["taken"] == [{"city": "tokyo", "job_name": TOKYO, "from_job": None}]
    assert doc["other_runs_pools"]["unknown_jobs"] == [OURS]  # the fleet's own other run is named
    assert doc["other_runs_pools"]["unknown_jobs_not_shown"] == 1
    by_job = {d["job_name"]: d for d in doc["jobs"]}
    assert (by_job[TOKYO]["pool_from_job"], by_job[TOKYO]["pool_from_other_run"]) == (None, True)
    assert (by_job[SEOUL]["reused_by_job"], by_job[SEOUL]["reused_by_other_run"]) == (None, True)
    rows = {row["job_name"]: row for row in csv.DictReader(io.StringIO(render_csv(found)))}
    assert (rows[TOKYO]["pool_from_job"], rows[TOKYO]["pool_from_other_run"]) == ("", "true")
    assert (rows[SEOUL]["reused_by_job"], rows[SEOUL]["reused_by_other_run"]) == ("", "true")
    page = render_html(found)
    assert '<table id="other-runs">' in page
    assert page.count("a job of another fleet (not named)") == 2
    assert 'id="other-runs-unknown"' in page
    assert (
        "2 job(s) of other runs could not be described (AccessDenied) (1 of other fleets, not named)" in page
    )
    assert OURS in page
    for text in (page, render_json(found), render_csv(found), "\n".join(summary_lines(found))):
        for name in (THEIRS, "other-oslo-20261129", "other-x"):
            assert name not in text
    assert any("1 taken from other runs" in line and "1 given" in line for line in summary_lines(found))


def test_a_report_names_the_jobs_of_the_fleets_its_disclosure_allows() -> None:
    spec = demo_spec()
    found = build_cost_report(
        spec,
        RUN_KEY,
        run_jobs(),
        PriceBook(spec.region, load_price_table()),
        generated_at=GENERATED_AT,
        other_runs=OtherRunsPools({TOKYO: Giver(THEIRS)}, unknown=("other-x",), looked_up=True),
        disclosure=Disclosure.of_fleet("demo", "other"),
    )
    doc = report_json(found)
    assert doc["other_runs_pools"]["given"] == [
        {"city": "seoul", "job_name": SEOUL, "taken_by_job": "other-oslo-20261129"}
    ]
    assert doc["other_runs_pools"]["taken"] == [{"city": "tokyo", "job_name": TOKYO, "from_job": THEIRS}]
    assert (doc["other_runs_pools"]["unknown_jobs"], doc["other_runs_pools"]["unknown_jobs_not_shown"]) == (
        ["other-x"],
        0,
    )
    page = render_html(found)
    assert THEIRS in page
    assert "other-oslo-20261129" in page
    assert "not named" not in page.split('id="other-runs"')[1]


class Account:
    """A fake SageMaker of the account: the run's jobs and other runs' jobs whose pool was reused."""

    def __init__(
        self, foreign: list[dict[str, Any]], run: list[dict[str, Any]], deny: set[str] = frozenset()
    ) -> None:
        self.jobs = {d["TrainingJobName"]: d for d in [*run, *foreign]}
        self.deny = deny
        self.lists: list[dict[str, Any]] = []
        self.described: list[str] = []

    def list_training_jobs(self, **kwargs: Any) -> dict[str, Any]:
        self.lists.append(kwargs)
        if "list" in self.deny:
            raise Refused("AccessDeniedException")
        summaries = [
            {
                k: job[k]
                for k in ("TrainingJobName", "CreationTime", "TrainingEndTime", "WarmPoolStatus")
                if k in job
            }
            for job in self.jobs.values()
            if (job.get("WarmPoolStatus") or {}).get("Status") == kwargs.get("WarmPoolStatusEquals")
        ]
        return {"TrainingJobSummaries": summaries}

    def describe_training_job(self, **kwargs: Any) -> dict[str, Any]:
        name = kwargs["TrainingJobName"]
        self.described.append(name)
        if name in self.deny:
            raise Refused("AccessDeniedException")
        return self.jobs[name]


class Refused(Exception):
    def __init__(self, code: str) -> None:
        super().__init__(code)
        self.response = {"Error": {"Code": code, "Message": "not allowed"}}


def foreign() -> list[dict[str, Any]]:
    gave = describe_job(
        THEIRS, created=-900, training=300, keep_alive=600, pool_status="Reused", reused_by=TOKYO
    )
    unrelated = describe_job(
        "other-rome-20261129", created=-900, pool_status="Reused", reused_by="other-bern-1"
    )
    return [gave, unrelated]


def test_givers_are_found_with_one_listing_and_describes_of_other_runs_jobs_only() -> None:
    run = run_jobs()
    account = Account(foreign(), run)
    index = RunJobIndex.for_run(demo_spec(), RUN_KEY)
    found = find_other_runs_givers(ClientJobReader(account), index, run)
    assert found.givers == {TOKYO: Giver(THEIRS, "img")}
    assert len(account.lists) == 1
    assert account.lists[0]["WarmPoolStatusEquals"] == "Reused"
    assert account.lists[0]["CreationTimeAfter"] == T0 - GIVER_LOOKBACK  # seoul, the first candidate
    assert account.described == [THEIRS]  # not the run's seoul (Reused too), not the pool another job took
    assert (found.list_calls, found.describe_calls, found.unknown) == (1, 1, ())


def test_no_call_when_no_job_of_the_run_could_have_taken_a_pool() -> None:
    spot = [describe_job("demo-perth-20261129", spot=True)]
    account = Account(foreign(), spot)
    found = find_other_runs_givers(ClientJobReader(account), RunJobIndex.for_run(demo_spec(), RUN_KEY), spot)
    assert (account.lists, account.described, found.looked_up) == ([], [], False)


@pytest.mark.parametrize("deny", [{THEIRS}, {"list"}])
def test_credentials_that_may_not_read_other_runs_jobs_leave_them_unknown(deny: set[str]) -> None:
    run = run_jobs()
    found = find_other_runs_givers(
        ClientJobReader(Account(foreign(), run, deny)), RunJobIndex.for_run(demo_spec(), RUN_KEY), run
    )
    if "list" in deny:
        assert found.listing_denied
        assert found.givers == {}
    else:
        # the listing named the taker: the pool is still counted, only the giver's image is unknown
        assert found.givers == {TOKYO: Giver(THEIRS, None)}
        assert found.unknown == (THEIRS,)
    page = render_html(report(found))
    assert 'id="other-runs-unknown"' in page


def test_a_summary_without_reused_by_job_is_described_only_when_it_ended_near_a_candidate() -> None:
    run = run_jobs()
    near, far = foreign()[0], describe_job("other-far-1", created=-90_000, training=10, pool_status="Reused")
    account = Account([near, far], run)
    original = account.list_training_jobs

    def bare(**kwargs: Any) -> dict[str, Any]:  # summaries without ReusedByJob
        page = original(**kwargs)
        for summary in page["TrainingJobSummaries"]:
            summary["WarmPoolStatus"] = {"Status": "Reused"}
        return page

    account.list_training_jobs = bare  # type: ignore[method-assign]
    found = find_other_runs_givers(ClientJobReader(account), RunJobIndex.for_run(demo_spec(), RUN_KEY), run)
    assert sorted(account.described) == [THEIRS]  # far ended a day before the run's first job
    assert found.givers[TOKYO].job_name == THEIRS
    assert far["TrainingEndTime"] < T0 - timedelta(hours=1)
