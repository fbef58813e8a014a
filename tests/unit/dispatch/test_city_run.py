"""A city's run (pure, its I/O faked): the capacity back-off the trigger and ``simulate`` share."""

from __future__ import annotations

import asyncio
import datetime as dt
from typing import TYPE_CHECKING, Any

from sagemaker_fleet.dispatch.cadence import Cadence
from sagemaker_fleet.dispatch.city_run import CityRun
from unit.plan.plan_fleets import RUN_KEY, city, fleet

if TYPE_CHECKING:
    from sagemaker_fleet.dispatch.state import Wait


class QuotaInUse:
    """A shell whose quota stays in use: every create is refused. Time moves only when the city waits."""

    def __init__(self, turn_wait: float) -> None:
        self.time = 0.0
        self.turn_wait = turn_wait
        self.turns: list[Wait] = []
        self.refused: list[float] = []
        self.released: list[str] = []

    def now(self) -> float:
        return self.time

    def jitter(self, job_name: str, retries: int) -> float:
        return 1.0

    async def sleep(self, seconds: float) -> None:
        self.time += seconds

    async def wait_turn(self, wait: Wait) -> None:
        self.turns.append(wait)
        if len(self.turns) == 1:
            self.time += self.turn_wait  # a long wait for the group's turn

    def release(self, city_name: str) -> None:
        self.released.append(city_name)

    async def create(self, request: Any) -> None:
        self.refused.append(self.time)
        return None

    async def watch(self, job: Any, created_after: dt.datetime | None) -> Any:
        raise AssertionError("no job was created")

    async def describe(self, job_name: str) -> Any:
        raise AssertionError("a city without submissions describes nothing")

    async def tags(self, arn: str) -> dict[str, str]:
        raise AssertionError("a city without submissions reads no tags")


class Quiet:
    def info(self, msg: str, /, *args: Any) -> None: ...

    def warning(self, msg: str, /, *args: Any) -> None: ...


def test_the_capacity_timeout_counts_from_the_first_refusal_not_from_the_wait_for_a_turn() -> None:
    spec = fleet([city("oslo")])
    io = QuotaInUse(turn_wait=1000.0)
    run = CityRun(
        spec,
        spec.city("oslo"),
        RUN_KEY,
        io,
        Quiet(),
        cadence=Cadence(capacity_retry_seconds=60.0, capacity_timeout_seconds=300.0),
    )
    end = asyncio.run(run.train())
    assert end.kind == "no_capacity"
    assert "no ml.m5.xlarge capacity for 300 s" in end.reason
    # refused at 1000 s (after the turn), then after 60 and 120 s; the next back-off (240 s) ends past 1300 s
    assert io.refused == [1000.0, 1060.0, 1180.0]
    assert run.refusals == 3
    assert io.released == ["oslo"] * 3  # each refusal gives the city's place back
    assert [w.first for w in io.turns] == [True, False, False]  # a retry already had its turn


def test_a_refused_create_tells_the_runs_account_view_before_giving_the_place_back() -> None:
    """The quota counts as full from the refusal on, so the place the city gives back goes to nobody until the
    next listing (the shell re-admits at once on release)."""
    from sagemaker_fleet.dispatch import DispatchBook, build_run_dispatch
    from sagemaker_fleet.jobs.progress import run_job_names
    from sagemaker_fleet.plan import plan_fleet

    spec = fleet([city("oslo"), city("rome")])
    sweeps = build_run_dispatch(
        DispatchBook.from_plan(plan_fleet(spec, RUN_KEY), spec), run_job_names(spec, RUN_KEY)
    )
    view = sweeps.account
    assert view is not None
    assert sweeps.tracker is not None
    io = QuotaInUse(turn_wait=0.0)
    full_at_release: list[bool] = []
    io.release = lambda name: full_at_release.append(("ml.m5.xlarge", "instances") in view.full)  # type: ignore[method-assign]
    run = CityRun(
        spec,
        spec.city("oslo"),
        RUN_KEY,
        io,
        Quiet(),
        sweeps.tracker,
        cadence=Cadence(capacity_retry_seconds=60.0, capacity_timeout_seconds=100.0),
    )
    asyncio.run(run.train())
    assert full_at_release
    assert all(full_at_release)


class EndedJob:
    """A shell in which the city's job of this run ended while no trigger watched it."""

    def __init__(self, description: dict, try_tag: str) -> None:
        self.description = description
        self.try_tag = try_tag

    def now(self) -> float:
        return 0.0

    async def describe(self, job_name: str) -> Any:
        return self.description if job_name == self.description["TrainingJobName"] else None

    async def tags(self, arn: str) -> dict[str, str]:
        return {"sagemaker-fleet:airflow-try": self.try_tag}


def ended_run(try_id: str, seen: list, log: Any = None) -> CityRun:
    from sagemaker_fleet.dispatch import DispatchBook, RunTracker
    from sagemaker_fleet.jobs.progress import run_job_names
    from unit.cost.cost_describes import describe_job

    spec = fleet([city("oslo")])
    description = describe_job(f"demo-oslo-{RUN_KEY}")
    tracker = RunTracker(DispatchBook.empty(), run_job_names(spec, RUN_KEY))
    tracker.observe([description], whole=True)
    return CityRun(
        spec,
        spec.city("oslo"),
        RUN_KEY,
        EndedJob(description, "manual__1/1"),  # type: ignore[arg-type]
        log or Quiet(),
        tracker,
        try_id=try_id,
        cadence=Cadence(capacity_retry_seconds=60.0, capacity_timeout_seconds=300.0),
        on_job_end=lambda run, d: seen.append(d["TrainingJobName"]),
    )


def test_a_restarted_trigger_counts_its_trys_job_that_ended_while_no_trigger_watched_it() -> None:
    seen: list[str] = []
    end = asyncio.run(ended_run("manual__1/1", seen).train())
    assert end.kind == "done"
    assert seen == [f"demo-oslo-{RUN_KEY}"]  # this try's job: nobody saw it end, so this run counts it


def test_a_retry_does_not_count_an_earlier_trys_job_again() -> None:
    seen: list[str] = []
    asyncio.run(ended_run("manual__1/2", seen).train())
    assert seen == []  # try 1's trigger counted it when it saw it end


class Lines:
    def __init__(self) -> None:
        self.lines: list[str] = []

    def info(self, msg: str, *args: Any) -> None:
        self.lines.append(msg % args)

    warning = info


def test_the_task_log_says_which_job_a_restarted_trigger_counted_on_finding_it_ended() -> None:
    """The end-to-end run bounds its double counts by these lines (a kill between a count and the task's end)."""
    mine, retry = Lines(), Lines()
    asyncio.run(ended_run("manual__1/1", [], mine).train())
    asyncio.run(ended_run("manual__1/2", [], retry).train())
    found = [line for line in mine.lines if "ended while no trigger watched it" in line]
    assert found == [
        f"oslo: demo-oslo-{RUN_KEY} ended while no trigger watched it (the triggerer restarted); its metrics are "
        "sent now"
    ]
    assert not any("ended while no trigger watched it" in line for line in retry.lines)


class Creates:
    """A shell that creates every job at once (its turn comes at once) and records the requests."""

    def __init__(self) -> None:
        self.requests: list[Any] = []

    def now(self) -> float:
        return 0.0

    async def wait_turn(self, wait: Wait) -> None:
        return None

    def release(self, city_name: str) -> None:
        raise AssertionError("nothing is refused")

    async def create(self, request: Any) -> Any:
        from sagemaker_fleet.jobs.attachment import Attachment

        self.requests.append(request)
        return Attachment.just_created(request, "arn:job", dt.datetime(2026, 11, 29, tzinfo=dt.UTC))


def test_a_job_created_without_the_keep_alive_its_turn_planned_says_why_once_and_gets_no_update() -> None:
    """The city's turn plans a keep-alive, but every other city of its group already has a job: it is created with
    keep-alive 0 and its line says so and why — and the sweep sends no UpdateTrainingJob(keep-alive 0), which the
    poller used to log as a second "keep-alive set to 0" for a job that never asked for a pool."""
    from sagemaker_fleet.dispatch import DispatchBook, RunTracker
    from sagemaker_fleet.fleetspec.model import InstanceQuota
    from sagemaker_fleet.jobs.attempts import NextStep
    from sagemaker_fleet.jobs.progress import run_job_names
    from sagemaker_fleet.plan import plan_fleet
    from unit.dispatch.test_dispatch_tracker import summary

    spec = fleet(
        [city("a", 900), city("b", 800), city("c", 700)],
        {"ml.m5.xlarge": InstanceQuota(instances=1, warm_pools=1)},
    )
    plan = plan_fleet(spec, RUN_KEY)
    middle = next(job for job in plan.jobs if job.position == 1)
    assert middle.keep_alive_seconds > 0
    others = [job.city for job in plan.jobs if job.city != middle.city]
    tracker = RunTracker(DispatchBook.from_plan(plan, spec), run_job_names(spec, RUN_KEY))
    tracker.observe([summary(spec, name, "Completed", pool="Terminated") for name in others], whole=True)
    io, log = Creates(), Lines()
    run = CityRun(spec, spec.city(middle.city), RUN_KEY, io, log, tracker)
    attachment = asyncio.run(run.submit(NextStep("submit", 1), first=True))
    assert attachment is not None
    assert "KeepAlivePeriodInSeconds" not in io.requests[0]["ResourceConfig"]
    group = middle.group
    assert log.lines == [
        f"{middle.city}: created {attachment.job_name} (on-demand, keep-alive 0 s: no city of group {group} is left "
        "to take its pool)"
    ]
    tracker.observe([summary(spec, middle.city)], whole=False)  # listed while it runs
    assert tracker.tail_jobs() == []


def test_a_spot_job_s_line_says_it_keeps_no_pool() -> None:
    from sagemaker_fleet.jobs.attempts import NextStep
    from unit.plan.plan_fleets import spot

    spec = fleet([city("perth", spot=spot())])
    io, log = Creates(), Lines()
    run = CityRun(spec, spec.city("perth"), RUN_KEY, io, log)
    attachment = asyncio.run(run.submit(NextStep("submit", 1, spot=True), first=True))
    assert attachment is not None
    assert log.lines == [f"perth: created {attachment.job_name} (spot: no warm pool)"]
