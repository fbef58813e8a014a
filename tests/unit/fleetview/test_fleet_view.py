"""The Fleet view's model, its SageMaker reads and its cache, against figures worked out here independently."""

from __future__ import annotations

import json
from datetime import timedelta
from typing import Any
from unittest.mock import patch

from sagemaker_fleet.cost.disclosure import Disclosure
from sagemaker_fleet.fleetspec.names import job_name
from sagemaker_fleet.fleetspec.price_table import load_price_table
from sagemaker_fleet.fleetview.account import other_fleets
from sagemaker_fleet.fleetview.model import RunContext, ViewInputs, build_fleet_view, job_links
from sagemaker_fleet.fleetview.source import RunJobsReader, ViewCache, is_final
from sagemaker_fleet.jobs.prices import PriceBook
from sagemaker_fleet.plan import plan_fleet
from unit.cost.cost_describes import RUN_KEY, T0, demo_spec, describe_job

#: $3.60 an hour for every type: a tenth of a cent per instance-second.
RATE = 0.001


def _book(spec: Any) -> PriceBook:
    return PriceBook(
        region=spec.region, table=load_price_table(), spec_prices={"ml.m5.xlarge": 3.6, "ml.g5.xlarge": 3.6}
    )


def _planned_usd(plan: dict[str, Any], spec: Any, city: str) -> float:
    """A city's planned span plus its planned idle keep-alive before its lane successor, at RATE."""
    count = {c.name: c.instance_count for c in spec.cities}
    jobs = sorted(plan["jobs"], key=lambda j: (j["lane"], j["position"]))
    for job, nxt in zip(jobs, [*jobs[1:], None], strict=True):
        if job["city"] != city:
            continue
        seconds = job["planned_end_seconds"] - job["planned_start_seconds"]
        if nxt is not None and nxt["lane"] == job["lane"] and job["keep_alive_seconds"] > 0:
            seconds += max(
                0, min(nxt["planned_start_seconds"] - job["planned_end_seconds"], job["keep_alive_seconds"])
            )
        return seconds * RATE * count[city]
    raise AssertionError(city)


def _view(state: str = "running", now_after: float = 2600.0) -> tuple[dict[str, Any], dict[str, Any], Any]:
    spec = demo_spec()
    plan = plan_fleet(spec, RUN_KEY, None).to_json()
    seoul = describe_job(
        job_name("demo", "seoul", RUN_KEY),
        training=1800,
        keep_alive=600,
        retained=120,
        pool_status="Terminated",
    )
    tokyo = describe_job(
        job_name("demo", "tokyo", RUN_KEY),
        status="InProgress",
        secondary="Training",
        created=2100.0,
        training=0,
        phases=[("Starting", 100.0), ("Training", 400.0)],
    )
    lima1 = describe_job(
        job_name("demo", "lima", RUN_KEY),
        status="Failed",
        created=30,
        training=120,
        failure_reason="AlgorithmError: exit 1",
    )
    lima2 = describe_job(job_name("demo", "lima", RUN_KEY, 2), created=400, training=300)
    now = T0 + timedelta(seconds=now_after)
    run = RunContext("fleet_demo", "manual__1", RUN_KEY, state)
    view = build_fleet_view(run, ViewInputs(spec, plan, [seoul, tokyo, lima1, lima2], _book(spec), now))
    return view, plan, spec


def test_costs_so_far_and_projected_from_billed_time_running_time_and_the_plan() -> None:
    view, plan, spec = _view()
    seoul = (1800 + 120) * RATE  # billable + retained idle
    lima = (120 + 300) * RATE  # both submissions are billed
    tokyo_running = (2600 - 2100) * RATE  # created 500 s ago, nothing billed yet
    assert view["cost"]["billed_usd"] == round(seoul + lima, 2) == 2.34
    assert view["cost"]["running_unbilled_usd"] == 0.5
    assert view["cost"]["so_far_usd"] == 2.84
    unfinished = [j["city"] for j in plan["jobs"] if j["city"] not in ("seoul", "lima")]
    rest = sum(
        max(0.0, _planned_usd(plan, spec, city) - (tokyo_running if city == "tokyo" else 0.0))
        for city in unfinished
    )
    assert view["cost"]["projected_usd"] == round(seoul + lima + tokyo_running + rest, 2)
    total = sum(_planned_usd(plan, spec, j["city"]) for j in plan["jobs"])
    assert view["cost"]["expected_usd"] == round(total, 2)


def test_counts_waiting_cities_with_reasons_and_resubmissions() -> None:
    view, plan, _ = _view()
    planned = sorted(j["city"] for j in plan["jobs"])
    assert view["counts"]["cities"] == len(planned) == 7
    assert view["counts"]["completed"] == 2  # seoul, lima's second submission
    assert view["counts"]["running"] == 1
    assert view["counts"]["submissions"] == 4
    assert view["counts"]["resubmissions"] == 1
    assert view["counts"]["planned_cold_starts"] == plan["summary"]["cold_starts"]
    waiting = {w["city"]: w["reason"] for w in view["waiting"]}
    assert sorted(waiting) == sorted(set(planned) - {"seoul", "tokyo", "lima"})
    assert all(reason.startswith("waits for ") for reason in waiting.values()), waiting
    [lima] = view["resubmissions"]
    assert [(a["attempt"], a["status"], a["reason"]) for a in lima["attempts"]] == [
        (1, "Failed", "AlgorithmError: exit 1"),
        (2, "Completed", "Completed"),
    ]
    assert view["failures"] == []  # lima's latest submission trained


def test_timelines_draw_every_planned_and_every_actual_job_on_one_axis() -> None:
    view, plan, _ = _view()
    assert view["gantt"]["plan_svg"].count('class="job planned"') == len(plan["jobs"])
    assert view["gantt"]["actual_svg"].count('class="job"') == 4
    # plan rows and actual lanes carry the plan's group names (g0 ml.m5.xlarge on demand, g1 its spot city, g2
    # ml.g5.xlarge), also for a group none of whose jobs has run yet
    plan_svg, actual_svg = view["gantt"]["plan_svg"], view["gantt"]["actual_svg"]
    for name in ("g0", "g1", "g2"):
        assert f">{name} · lane 1<" in plan_svg
    assert ">g0 · lane 1<" in actual_svg
    assert {job["group"] for job in view["jobs"]} == {"g0"}
    assert {job["group"] for job in plan["jobs"] if job["city"] in ("seoul", "tokyo", "lima")} == {"g0"}
    makespan = max(j["planned_end_seconds"] for j in plan["jobs"])
    assert view["gantt"]["span_seconds"] == max(makespan, 2600.0)


def test_a_finished_run_projects_what_was_billed_and_nobody_waits_any_more() -> None:
    view, _, _ = _view(state="failed")
    assert view["cost"]["projected_usd"] == view["cost"]["so_far_usd"]
    assert {w["reason"] for w in view["waiting"]} == {"never started: the run ended first"}


def test_job_links_are_the_training_tasks_console_and_logs_links() -> None:
    links = job_links("eu-west-1", "demo-oslo-20261129")
    assert links["console_url"] == (
        "https://console.aws.amazon.com/sagemaker/home?region=eu-west-1#/jobs/demo-oslo-20261129"
    )
    assert "logStreamNameFilter$3Ddemo-oslo-20261129" in links["logs_url"]
    assert job_links("cn-north-1", "x")["console_url"].startswith("https://console.amazonaws.cn/")


class FakeReader:
    def __init__(self, jobs: dict[str, dict[str, Any]]) -> None:
        self.jobs = jobs
        self.listings: list[tuple[str, Any]] = []
        self.described: list[str] = []

    def list_jobs(self, name_contains: str, *, creation_time_after: Any = None) -> Any:
        self.listings.append((name_contains, creation_time_after))
        for job in self.jobs.values():
            yield {
                k: job[k]
                for k in (
                    "TrainingJobName",
                    "TrainingJobStatus",
                    "SecondaryStatus",
                    "LastModifiedTime",
                    "CreationTime",
                )
                if k in job
            } | ({"WarmPoolStatus": job["WarmPoolStatus"]} if "WarmPoolStatus" in job else {})

    def describe(self, name: str) -> dict[str, Any] | None:
        self.described.append(name)
        return self.jobs[name]


def test_one_listing_per_refresh_and_describes_only_for_jobs_that_can_still_change() -> None:
    done = describe_job("demo-seoul-20261129", pool_status="Terminated", retained=10)
    pooled = describe_job("demo-tokyo-20261129", pool_status="Available", keep_alive=600)
    running = describe_job(
        "demo-lima-20261129",
        status="InProgress",
        secondary="Training",
        training=0,
        phases=[("Starting", 10.0), ("Training", 50.0)],
    )
    other_run = describe_job("demo-lima-20261130")
    fake = FakeReader({j["TrainingJobName"]: j for j in (done, pooled, running, other_run)})
    names = {j["TrainingJobName"]: (j["TrainingJobName"].split("-")[1], 1) for j in (done, pooled, running)}
    reader = RunJobsReader(RUN_KEY, names)
    first, stats = reader.read(fake)
    assert [d["TrainingJobName"] for d in first] == sorted(names)
    assert (stats.list_calls, stats.describe_calls, stats.cached_describes) == (2, 3, 0)
    # the run's listing, then the account's since a day before the run's first job (the quota is the account's)
    assert fake.listings == [
        ("-20261129", T0.replace(hour=0) - timedelta(days=1)),
        ("", T0 - timedelta(days=1)),
    ]
    assert stats.other_describe_calls == 0  # the other run's job holds nothing: never described
    assert is_final(done)
    assert not is_final(pooled)
    assert not is_final(running)
    fake.described.clear()
    second, stats = reader.read(fake)
    assert sorted(fake.described) == ["demo-lima-20261129", "demo-tokyo-20261129"]  # not the final one
    assert (stats.describe_calls, stats.cached_describes) == (2, 1)
    assert len(second) == 3


def test_the_cache_serves_every_viewer_for_its_ttl_and_keeps_the_readers_state() -> None:
    clock = [100.0]
    cache = ViewCache(ttl=5.0, clock=lambda: clock[0])
    calls: list[Any] = []

    def compute(state: Any) -> tuple[Any, Any]:
        calls.append(state)
        return {"n": len(calls)}, len(calls)

    assert cache.get(("d", "r"), compute) == {"n": 1}
    clock[0] += 4.9
    assert cache.get(("d", "r"), compute) == {"n": 1}  # another viewer, same answer, no call
    assert cache.get(("d", "other"), compute) == {"n": 2}  # another run has its own entry
    clock[0] += 0.2
    assert cache.get(("d", "r"), compute) == {"n": 3}
    assert calls == [None, None, 1]  # the refresh got the state its run's previous refresh left


def test_an_answer_keep_says_is_good_is_served_past_its_ttl_until_keep_says_otherwise() -> None:
    """An ended run's read: kept while ``keep`` holds (the run unchanged), computed again once it does not."""
    clock = [0.0]
    cache = ViewCache(ttl=5.0, clock=lambda: clock[0])
    good = [True]
    calls: list[Any] = []

    def compute(state: Any) -> tuple[Any, Any]:
        calls.append(state)
        return {"n": len(calls)}, len(calls)

    def keep(answer: Any) -> bool:
        return good[0]

    assert cache.get(("d", "r"), compute, keep) == {"n": 1}
    clock[0] += 3600
    assert cache.get(("d", "r"), compute, keep) == {"n": 1}  # an hour on: no call
    good[0] = False  # the run was cleared, say
    assert cache.get(("d", "r"), compute, keep) == {"n": 2}
    assert calls == [None, 1]


def test_the_cache_keeps_at_most_its_bound_dropping_the_least_recently_viewed() -> None:
    clock = [0.0]
    cache = ViewCache(ttl=1e9, clock=lambda: clock[0], max_entries=2)
    computed: list[str] = []

    def compute_for(run: str) -> Any:
        def compute(state: Any) -> tuple[Any, Any]:
            computed.append(run)
            return run, None

        return compute

    for run in ("a", "b"):
        clock[0] += 1
        cache.get(("d", run), compute_for(run))
    clock[0] += 1
    cache.get(("d", "a"), compute_for("a"))  # a viewed again: b is now the least recently viewed
    clock[0] += 1
    cache.get(("d", "c"), compute_for("c"))
    assert len(cache) == 2
    clock[0] += 1
    cache.get(("d", "a"), compute_for("a"))
    cache.get(("d", "b"), compute_for("b"))
    assert computed == ["a", "b", "c", "b"]  # a was kept, b was dropped and read again


def test_an_endpoint_clock_ahead_of_ours_never_makes_running_jobs_start_in_the_future() -> None:
    from sagemaker_fleet.fleetview.model import observed_now

    running = describe_job(
        "demo-tokyo-20261129",
        status="InProgress",
        secondary="Training",
        training=0,
        created=100.0,
        phases=[("Starting", 100.0), ("Training", 300.0)],
    )
    assert observed_now([running], T0) == T0 + timedelta(seconds=500)  # the last transition's end
    assert observed_now([running], T0 + timedelta(hours=1)) == T0 + timedelta(hours=1)


class Denying(FakeReader):
    """Credentials that may describe only the fleet's own jobs."""

    def describe(self, name: str) -> dict[str, Any] | None:
        if not name.startswith("demo-"):
            from botocore.exceptions import ClientError

            self.described.append(name)
            raise ClientError(
                {"Error": {"Code": "AccessDeniedException", "Message": "no"}}, "DescribeTrainingJob"
            )
        return super().describe(name)


def _account_jobs() -> dict[str, dict[str, Any]]:
    """The run's seoul (running, 1 × m5) and tokyo (started on another fleet's pool); other runs' jobs: one running
    on 2 × m5, one keeping an Available pool of 1 × m5, one on g5 (a type of the run too), one finished."""
    seoul = describe_job(
        "demo-seoul-20261129",
        status="InProgress",
        secondary="Training",
        training=0,
        phases=[("Starting", 200.0), ("Training", 9.0)],
    )
    # slow to start: warm only by the other fleet's ReusedByJob, which the account's listing shows
    tokyo = describe_job("demo-tokyo-20261129", created=900, startup=200)
    others = [
        describe_job(
            "team-forecast",
            count=2,
            status="InProgress",
            secondary="Training",
            training=0,
            phases=[("Training", 9.0)],
        ),
        describe_job("other-lima-20261129", pool_status="Available", keep_alive=600),
        describe_job("other-oslo-20261129", pool_status="Reused", reused_by="demo-tokyo-20261129"),
        describe_job(
            "team-vision",
            instance_type="ml.g5.xlarge",
            count=4,
            status="InProgress",
            training=0,
            phases=[("Training", 9.0)],
        ),
        describe_job("team-done"),
    ]
    return {job["TrainingJobName"]: job for job in [seoul, tokyo, *others]}


def test_other_runs_capacity_is_described_once_per_job_and_shown_beside_the_runs_own() -> None:
    spec = demo_spec()
    jobs = _account_jobs()
    fake = FakeReader(jobs)
    names = {name: (name.split("-")[1], 1) for name in jobs if name.startswith("demo-")}
    reader = RunJobsReader(RUN_KEY, names)
    describes, stats = reader.read(fake)
    others = sorted(n for n in fake.described if not n.startswith("demo-"))
    assert others == ["other-lima-20261129", "team-forecast", "team-vision"]  # those holding capacity only
    assert stats.other_describe_calls == 3
    fake.described.clear()
    _, again = reader.read(fake)
    assert [n for n in fake.described if not n.startswith("demo-")] == []  # their shapes are kept
    assert (again.list_calls, again.other_describe_calls) == (2, 0)
    plan = plan_fleet(spec, RUN_KEY, None).to_json()
    run = RunContext("fleet_demo", "scheduled__x", RUN_KEY, "running")
    view = build_fleet_view(run, ViewInputs(spec, plan, describes, _book(spec), T0, account=reader.account))
    capacity = {row["instance_type"]: row for row in view["account"]["capacity"]}
    quotas = {itype: q.instances for itype, q in spec.quotas.items()}
    assert capacity["ml.m5.xlarge"] == {
        "instance_type": "ml.m5.xlarge",
        "quota_instances": quotas.get("ml.m5.xlarge"),
        "run_running": 1,
        "run_pools": 0,
        "other_running": 2,
        "other_pools": 1,
        "free": None if "ml.m5.xlarge" not in quotas else max(0, quotas["ml.m5.xlarge"] - 4),
    }
    assert (capacity["ml.g5.xlarge"]["other_running"], capacity["ml.g5.xlarge"]["run_running"]) == (4, 0)
    # another fleet's job: counted, not named, unless the reader may read that fleet (the plugin decides)
    assert view["account"]["pools_taken_from_other_runs"] == [
        {"city": "tokyo", "job_name": "demo-tokyo-20261129", "from_job": None}
    ]
    tokyo = next(job for job in view["jobs"] if job["city"] == "tokyo")
    assert tokyo["start"] == "warm"
    assert view["counts"]["warm_starts"] == 1  # tokyo once; nothing for the pool's giver
    assert view["listing"]["other_describe_calls"] == 0
    assert "other-oslo" not in json.dumps(view)
    inputs = ViewInputs(spec, plan, describes, _book(spec), T0, account=reader.account)
    assert other_fleets("demo", describes, reader.account) == {"other"}
    shown = build_fleet_view(run, inputs, Disclosure.of_fleet("demo", "other"))
    assert shown["account"]["pools_taken_from_other_runs"] == [
        {"city": "tokyo", "job_name": "demo-tokyo-20261129", "from_job": "other-oslo-20261129"}
    ]
    assert shown["account"]["capacity"] == view["account"]["capacity"]  # capacity is counts for every reader


def test_other_runs_jobs_the_credentials_may_not_describe_show_as_unknown_and_are_not_asked_again() -> None:
    jobs = _account_jobs()
    fake = Denying(jobs)
    names = {name: (name.split("-")[1], 1) for name in jobs if name.startswith("demo-")}
    reader = RunJobsReader(RUN_KEY, names)
    reader.read(fake)
    assert (reader.account.other_unknown, reader.account.other_denied) == (3, 3)
    assert reader.account.givers == {"demo-tokyo-20261129": "other-oslo-20261129"}  # from the listing alone
    fake.described.clear()
    reader.read(fake)
    assert [n for n in fake.described if not n.startswith("demo-")] == []


class BoardBucket:
    """ListObjectsV2 and GetObject of a board prefix: a fresh record, an ended run's and one that is not JSON."""

    def __init__(self, objects: dict[str, tuple[float, bytes]]) -> None:
        self.objects = objects
        self.fetched: list[str] = []

    def list_objects_v2(self, **kwargs: Any) -> dict[str, Any]:
        assert (kwargs["Bucket"], kwargs["Prefix"]) == ("acme-reports", "sagemaker-fleet/board/")
        return {
            "Contents": [
                {"Key": key, "LastModified": T0 + timedelta(seconds=at)}
                for key, (at, _) in self.objects.items()
            ],
            "IsTruncated": False,
        }

    def get_object(self, **kwargs: Any) -> dict[str, Any]:
        self.fetched.append(kwargs["Key"])
        body = self.objects[kwargs["Key"]][1]
        return {"Body": type("Body", (), {"read": lambda self: body})()}


def test_a_sharing_runs_refresh_reads_the_accounts_board_for_the_waiting_reasons() -> None:
    spec = demo_spec()
    assert spec.sharing is not None
    prefix = "sagemaker-fleet/board/"
    bucket = BoardBucket(
        {
            f"{prefix}other/{RUN_KEY}.json": (0.0, json.dumps({"version": 1, "fleet": "other"}).encode()),
            f"{prefix}old/{RUN_KEY}.json": (-10 * 86400.0, b"{}"),
            f"{prefix}junk.json": (0.0, b"not json"),
        }
    )
    reader = RunJobsReader(RUN_KEY, {}, spec.sharing.board)
    with patch("sagemaker_fleet.fleetview.source.time.time", return_value=T0.timestamp()):
        reader.read(FakeReader({}), bucket)
    assert reader.account.board == [{"version": 1, "fleet": "other"}]
    assert sorted(bucket.fetched) == [
        f"{prefix}junk.json",
        f"{prefix}other/{RUN_KEY}.json",
    ]  # not the ended run's
    reader.read(FakeReader({}))  # no S3 client: no board, and the reasons say the run waits for it
    assert reader.account.board is None
