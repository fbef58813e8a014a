"""One loop, two shells: the triggerer's ``FleetPoller`` (asyncio, an aiobotocore-shaped client) and ``simulate``'s
``SimulatedFleetPoller`` (virtual time, an engine-shaped endpoint), fed the same scripted listings, make the same
decisions at the same times: the same ListTrainingJobs windows, the same cities admitted, the same jobs described
(terminal, or missing from two listings), the same ends handed to watchers, the same keep-alive changes, and the
same back-off after a throttled listing or describe.

Each shell runs its own loop over a fake endpoint that answers the k-th listing with the script's k-th; the cities
wait for their turn from the start, and each admitted city's job is watched from then on, as a city's run does.
"""

from __future__ import annotations

import asyncio
import copy
import datetime as dt
import logging
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import pytest
from botocore.exceptions import ClientError

from sagemaker_fleet.dispatch import DispatchBook, RunTracker, Wait
from sagemaker_fleet.dispatch.tracker import CREATION_MARGIN
from sagemaker_fleet.fleetspec.model import InstanceQuota
from sagemaker_fleet.fleetspec.names import job_name, run_name_contains
from sagemaker_fleet.hooks.fleet import SageMakerFleetHook
from sagemaker_fleet.jobs.progress import run_job_names
from sagemaker_fleet.plan import plan_fleet
from sagemaker_fleet.sim.driver.polling import SimulatedFleetPoller
from sagemaker_fleet.sim.driver.timeline import Timeline
from sagemaker_fleet.sim.errors import SimApiError
from sagemaker_fleet.triggers import poller as poller_module
from sagemaker_fleet.triggers.poller import FleetPoller
from sagemaker_fleet.triggers.watch import watch_until_terminal
from unit.plan.plan_fleets import RUN_KEY, city, fleet

T0 = dt.datetime(2026, 11, 29, 6, tzinfo=dt.UTC)
INTERVAL = 30.0
#: No shell may sweep past this (simulated seconds): a loop that does not end fails the test instead of hanging.
HORIZON = 3600.0
THROTTLED = "throttled"

Decision = tuple[Any, ...]


@pytest.fixture(scope="module")
def run() -> tuple[Any, DispatchBook]:
    """One warm-pool group of four cities, two at a time: by rank c3, c2 first, then c1 and c0 take their pools."""
    spec = fleet(
        [city(f"c{i}", 600 + 10 * i) for i in range(4)],
        quotas={"ml.m5.xlarge": InstanceQuota(instances=2, warm_pools=2)},
    )
    book = DispatchBook.from_plan(plan_fleet(spec, RUN_KEY), spec)
    assert list(book.members["g0"]) == ["c3", "c2", "c1", "c0"]
    return spec, book


def name(spec: Any, city_name: str) -> str:
    return job_name(spec.fleet, city_name, RUN_KEY)


def at(seconds: float) -> dt.datetime:
    return T0 + dt.timedelta(seconds=seconds)


def job(
    spec: Any, city_name: str, status: str = "InProgress", created: float = 1.0, pool: str | None = None
) -> dict:
    summary: dict[str, Any] = {
        "TrainingJobName": name(spec, city_name),
        "TrainingJobStatus": status,
        "SecondaryStatus": "Training" if status == "InProgress" else status,
        "CreationTime": at(created),
    }
    if pool:
        summary["WarmPoolStatus"] = {"Status": pool}
    return summary


@dataclass
class Listing:
    """One scripted ListTrainingJobs answer (None: throttled) and how its sweep's describes are answered: a
    description by job name, or :data:`THROTTLED`; a job not named is described as the listing shows it."""

    summaries: list[dict] | None
    describes: dict[str, Any] = field(default_factory=dict)

    def describe(self, job_name: str) -> Any:
        if job_name in self.describes:
            return self.describes[job_name]
        listed = {s["TrainingJobName"]: s for s in self.summaries or ()}
        # a job the listing does not show yet (SageMaker's listing lags behind a create) is still starting
        summary = listed.get(job_name, {"TrainingJobName": job_name, "TrainingJobStatus": "InProgress"})
        return {**summary, "AlgorithmSpecification": {}}


def script(spec: Any) -> list[Listing]:
    """Starts, a hand-off, a throttled listing, a job missing from two listings, the group's last jobs given
    keep-alive 0, a throttled describe and an idle pool nobody takes over."""

    def c(city_name: str, *args: Any, **kwargs: Any) -> dict:
        return job(spec, city_name, *args, **kwargs)

    c2_ended = {name(spec, "c2"): {**c("c2", "Completed", pool="Available"), "AlgorithmSpecification": {}}}
    ended = [
        c("c3", "Completed", pool="Reused"),
        c("c2", "Completed", pool="Reused"),
        c("c1", "Completed", 21, "Terminated"),
        c("c0", "Completed", 71, "Available"),  # its keep-alive 0 came too late: an idle pool
    ]
    return [
        Listing([]),  # the run's whole past: nothing yet (c3 and c2 start)
        Listing([c("c3"), c("c2")]),
        Listing([c("c3", "Completed", pool="Available"), c("c2")]),  # c1 takes c3's pool
        Listing(None),
        Listing([c("c3", "Completed", pool="Reused"), c("c1", created=21)], c2_ended),  # c2 missing
        Listing([c("c3", "Completed", pool="Reused"), c("c1", created=21)], c2_ended),  # again: described
        Listing(
            [c("c3", "Completed", pool="Reused"), c("c2", "Completed", pool="Available"), c("c1", created=21)]
        ),
        Listing(  # every city has its job: the running ones get keep-alive 0
            [
                c("c3", "Completed", pool="Reused"),
                c("c2", "Completed", pool="Reused"),
                c("c1", created=21),
                c("c0", created=71),
            ]
        ),
        Listing(ended, describes={name(spec, "c1"): THROTTLED}),
        Listing(ended),
    ]


def throttling() -> ClientError:
    return ClientError({"Error": {"Code": "ThrottlingException", "Message": "Rate exceeded"}}, "Call")


class Endpoint:
    """The scripted endpoint both shells talk to, and the decisions it sees them make (time, what, which)."""

    def __init__(self, listings: list[Listing], clock: Callable[[], float]) -> None:
        self.listings = listings
        self.clock = clock
        self.served = 0
        self.current = listings[0]
        self.decisions: list[Decision] = []

    def note(self, *decision: Any) -> None:
        self.decisions.append((self.clock(), *decision))

    def list(self, request: dict[str, Any]) -> list[dict] | None:
        census = request.get("StatusEquals") or request.get("WarmPoolStatusEquals")
        if (
            census
        ):  # the account's running jobs and idle pools, once before the first sweep: none of another run
            self.note("census", census)
            return []
        if "NextToken" not in request:
            self.current = self.listings[min(self.served, len(self.listings) - 1)]
            self.served += 1
            self.note("list", request.get("CreationTimeAfter"))
        return copy.deepcopy(self.current.summaries)

    def describe(self, job_name: str) -> Any:
        self.note("describe", job_name)
        return copy.deepcopy(self.current.describe(job_name))

    def keep_alive(self, job_name: str, seconds: int) -> None:
        self.note("keep-alive", job_name, seconds)


# ------------------------------------------------------------------------------------------ the triggerer's shell


def triggerer_decisions(spec: Any, book: DispatchBook, monkeypatch: pytest.MonkeyPatch) -> list[Decision]:
    """The triggerer's poller over an aiobotocore-shaped client, its sleeps moving a virtual clock."""
    clock = [0.0]
    endpoint = Endpoint(script(spec), lambda: clock[0])

    class Client:
        async def __aenter__(self) -> Client:
            return self

        async def __aexit__(self, *exc: object) -> None:
            return None

        async def list_training_jobs(self, **request: Any) -> dict[str, Any]:
            summaries = endpoint.list(request)
            if summaries is None:
                raise throttling()
            return {"TrainingJobSummaries": summaries}

        async def describe_training_job(self, TrainingJobName: str) -> dict[str, Any]:  # noqa: N803
            described = endpoint.describe(TrainingJobName)
            if described == THROTTLED:
                raise throttling()
            return described

        async def update_training_job(self, TrainingJobName: str, ResourceConfig: dict) -> dict:  # noqa: N803
            endpoint.keep_alive(TrainingJobName, ResourceConfig["KeepAlivePeriodInSeconds"])
            return {}

    client = Client()

    class Hook:
        alist_jobs = SageMakerFleetHook.alist_jobs
        adescribe = SageMakerFleetHook.adescribe
        aupdate_keep_alive = SageMakerFleetHook.aupdate_keep_alive

        async def get_async_conn(self) -> Client:
            return client

    class VirtualAsyncio:
        """The poller module's asyncio, with sleeps that move the clock (and let the cities act) at once."""

        def __getattr__(self, attribute: str) -> Any:
            return getattr(asyncio, attribute)

        async def sleep(self, seconds: float) -> None:
            for _ in range(5):  # the cities act on the sweep's decisions at its time, then the time passes
                await asyncio.sleep(0)
            clock[0] += seconds
            assert clock[0] <= HORIZON, "the triggerer's poller went on sweeping"

    monkeypatch.setattr(poller_module, "asyncio", VirtualAsyncio())
    monkeypatch.setattr(FleetPoller, "now", lambda self: clock[0])
    quiet = logging.getLogger("test.sweep_shells")

    async def city_run(poller: FleetPoller, city_name: str) -> None:
        await poller.wait_turn(Wait(city_name, since=0.0))
        endpoint.note("admitted", city_name)
        described = await watch_until_terminal(poller, name(spec, city_name), at(clock[0]), quiet)
        endpoint.note("ended", described["TrainingJobName"])

    async def main() -> None:
        poller = FleetPoller(Hook(), run_name_contains(RUN_KEY), INTERVAL)  # type: ignore[arg-type]
        poller.tracker = RunTracker(book, run_job_names(spec, RUN_KEY))
        await asyncio.wait_for(asyncio.gather(*(city_run(poller, c) for c in book.members["g0"])), 30)
        assert poller._task is not None
        await asyncio.wait_for(poller._task, 30)  # it stops by itself once nobody watches or waits

    asyncio.run(main())
    return endpoint.decisions


# ------------------------------------------------------------------------------------------ simulate's shell


def simulator_decisions(spec: Any, book: DispatchBook) -> list[Decision]:
    """``simulate``'s poller over an engine-shaped endpoint, on the driver's timeline."""
    timeline = Timeline()

    class Engine:
        time = 0.0

        def now(self) -> float:
            return self.time

        def list_training_jobs(self, request: dict[str, Any]) -> dict[str, Any]:
            summaries = endpoint.list(request)
            if summaries is None:
                raise SimApiError("ThrottlingException", "Rate exceeded")
            return {"TrainingJobSummaries": summaries}

        def describe_training_job(self, job_name: str) -> dict[str, Any]:
            described = endpoint.describe(job_name)
            if described == THROTTLED:
                raise SimApiError("ThrottlingException", "Rate exceeded")
            return described

        def update_training_job(self, request: dict[str, Any]) -> dict[str, Any]:
            endpoint.keep_alive(
                request["TrainingJobName"], request["ResourceConfig"]["KeepAlivePeriodInSeconds"]
            )
            return {}

    engine = Engine()
    endpoint = Endpoint(script(spec), engine.now)
    poller = SimulatedFleetPoller(
        engine,  # type: ignore[arg-type]
        timeline,
        RUN_KEY,
        INTERVAL,
        RunTracker(book, run_job_names(spec, RUN_KEY)),
    )

    def city_run(city_name: str) -> None:
        def watch() -> None:
            endpoint.note("admitted", city_name)
            poller.watch(
                name(spec, city_name),
                at(engine.now()),
                lambda described: timeline.at(
                    engine.now(), lambda: endpoint.note("ended", described["TrainingJobName"])
                ),
            )

        poller.wait_turn(Wait(city_name, since=0.0), lambda: timeline.at(engine.now(), watch))

    timeline.at(0.0, lambda: [city_run(c) for c in book.members["g0"]])
    while (when := timeline.next_time()) is not None:
        assert when <= HORIZON, "simulate's poller went on sweeping"
        engine.time = when
        timeline.run_due(when)
    return endpoint.decisions


# ------------------------------------------------------------------------------------------ the comparison


def test_both_shells_make_the_same_decisions_at_the_same_times(run, monkeypatch) -> None:
    spec, book = run
    triggerer = sorted(triggerer_decisions(spec, book, monkeypatch), key=repr)
    simulator = sorted(simulator_decisions(spec, book), key=repr)
    assert triggerer == simulator


def test_the_script_meets_every_rule_of_the_sweep(run, monkeypatch) -> None:
    """The comparison above is only as good as the script: the triggerer's decisions (the reference, it runs in
    production) over it show each rule once."""
    spec, book = run
    decisions = triggerer_decisions(spec, book, monkeypatch)
    lists = [d for d in decisions if d[1] == "list"]
    assert lists[0] == (0.0, "list", None)  # the run's whole past first
    assert lists[2] == (
        20.0,
        "list",
        at(1) - CREATION_MARGIN,
    )  # then from the oldest job that can still change
    assert lists[-1][2] == at(21) - CREATION_MARGIN  # the window follows the run
    times = [d[0] for d in lists]
    gaps = [later - earlier for earlier, later in zip(times, times[1:], strict=False)]
    assert 20.0 in gaps  # a throttled listing doubled the wait (10 s while cities wait)
    # a throttled describe after a listing that came through does not (it is asked again at the interval: 30 s
    # once nobody waits), so no gap is twice the interval
    assert 60.0 not in gaps
    assert 30.0 in gaps
    throttled_describe = next(d[0] for d in decisions if d[1:] == ("describe", name(spec, "c1")))
    assert [d for d in decisions if d[1] == "describe" and d[2] == name(spec, "c1")][-1][
        0
    ] == throttled_describe + 30
    admitted = [d[2] for d in decisions if d[1] == "admitted"]
    assert admitted == ["c3", "c2", "c1", "c0"]
    c2 = name(spec, "c2")
    assert [d for d in decisions if d[1:] == ("describe", c2)] == [(60.0, "describe", c2)]  # after two misses
    keep_alive = [d[2] for d in decisions if d[1] == "keep-alive"]
    assert keep_alive == [name(spec, "c1"), name(spec, "c0"), name(spec, "c0")]  # running, running, then idle
    assert sorted(d[2] for d in decisions if d[1] == "ended") == sorted(
        name(spec, c) for c in book.members["g0"]
    )


def test_the_comparison_sees_a_shell_that_decides_otherwise(run, monkeypatch) -> None:
    """A simulator whose sweep reads one listing fewer before describing a missing job is caught."""
    from sagemaker_fleet.dispatch import sweep

    spec, book = run
    triggerer = sorted(triggerer_decisions(spec, book, monkeypatch), key=repr)
    monkeypatch.setattr(sweep, "MISSES_BEFORE_DESCRIBE", 1)
    assert sorted(simulator_decisions(spec, book), key=repr) != triggerer
