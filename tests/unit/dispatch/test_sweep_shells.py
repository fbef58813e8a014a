"""One loop, two shells: the triggerer's ``RunSession`` (asyncio, an aiobotocore-shaped client) and ``simulate``'s
``SimulatedFleetPoller`` (virtual time, an engine-shaped endpoint), fed the same scripted listings, make the same
decisions at the same times: the same ListTrainingJobs windows, the same cities admitted, the same jobs described
(terminal, or missing from two listings), the same ends handed to watchers, the same keep-alive changes, and the
same back-off after a throttled listing or describe. Both run once as a fleet without ``sharing``, and once as one
on the account's board beside another run: its jobs in every listing (one the credentials may not describe), its
record on the board, and an ended run's record older than the stale time.

Each shell runs its own loop over a fake endpoint that answers the k-th listing with the script's k-th; the cities
wait for their turn from the start, and each admitted city's job is watched from then on, as a city's run does.
"""

from __future__ import annotations

import asyncio
import copy
import datetime as dt
import json
import logging
import math
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import pytest
from botocore.exceptions import ClientError

from sagemaker_fleet.dispatch import DispatchBook, Wait, build_run_dispatch
from sagemaker_fleet.dispatch.board import RunDemand
from sagemaker_fleet.dispatch.cadence import Cadence
from sagemaker_fleet.dispatch.state import CREATION_MARGIN
from sagemaker_fleet.fleetspec.model import InstanceQuota, SharingSettings
from sagemaker_fleet.fleetspec.names import job_name, run_name_contains
from sagemaker_fleet.hooks.fleet import SageMakerFleetHook
from sagemaker_fleet.jobs.progress import run_job_names
from sagemaker_fleet.plan import plan_fleet
from sagemaker_fleet.sim.errors import SimApiError
from sagemaker_fleet.simulate import polling as sim_polling
from sagemaker_fleet.simulate.polling import SimulatedFleetPoller
from sagemaker_fleet.simulate.timeline import Timeline
from sagemaker_fleet.triggers import session as session_module
from sagemaker_fleet.triggers.connection import RunConnection
from sagemaker_fleet.triggers.session import RunSession, SessionSetup
from sagemaker_fleet.triggers.sweep_io import RunSweepIO
from sagemaker_fleet.triggers.watch import watch_until_terminal
from unit.plan.plan_fleets import RUN_KEY, city, fleet

T0 = dt.datetime(2026, 11, 29, 6, tzinfo=dt.UTC)
INTERVAL = 30.0
#: No shell may sweep past this (simulated seconds): a loop that does not end fails the test instead of hanging.
HORIZON = 3600.0
THROTTLED = "throttled"
DENIED = "denied"
BOARD = "s3://acme-ml/fleet-board/"
#: Another run of the account: its jobs (on another instance type: the run's cities never wait for them).
OTHER = "weekly"
OTHER_KEY = "20261122"

Decision = tuple[Any, ...]


def make_run(shared: bool) -> tuple[Any, DispatchBook]:
    """One warm-pool group of four cities, two at a time: by rank c3, c2 first, then c1 and c0 take their pools;
    ``shared``: the fleet is on the account's board (as every YAML fleet is by default) beside another run."""
    spec = fleet(
        [city(f"c{i}", 600 + 10 * i) for i in range(4)],
        quotas={"ml.m5.xlarge": InstanceQuota(instances=2, warm_pools=2)},
        sharing=SharingSettings(share=0.5, priority=0, board=BOARD) if shared else None,
    )
    book = DispatchBook.from_plan(plan_fleet(spec, RUN_KEY), spec)
    assert list(book.members["g0"]) == ["c3", "c2", "c1", "c0"]
    return spec, book


@pytest.fixture(scope="module", params=["alone", "shared"])
def run(request: pytest.FixtureRequest) -> tuple[Any, DispatchBook]:
    return make_run(request.param == "shared")


@pytest.fixture(scope="module")
def alone() -> tuple[Any, DispatchBook]:
    return make_run(False)


@pytest.fixture(scope="module")
def shared() -> tuple[Any, DispatchBook]:
    return make_run(True)


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


def other(n: int) -> dict:
    return {
        "TrainingJobName": f"{OTHER}-x{n}-{OTHER_KEY}",
        "TrainingJobStatus": "InProgress",
        "CreationTime": at(-3600),
    }


def world(spec: Any) -> tuple[list[Listing], list[dict], dict[str, tuple[float, dict]]]:
    """The script, the other run's jobs and the board (key → (LastModified, record)) the shells meet. On the board
    the run's first admissions wait for one read after its first post: one more empty listing comes first."""
    if spec.sharing is None:
        return script(spec), [], {}
    others = [other(0), other(1)]
    described = {
        f"{OTHER}-x0-{OTHER_KEY}": {
            **other(0),
            "RoleArn": "arn:aws:iam::111122223333:role/Other",
            "ResourceConfig": {"InstanceType": "ml.c5.xlarge", "InstanceCount": 1, "VolumeSizeInGB": 30},
        },
        f"{OTHER}-x1-{OTHER_KEY}": DENIED,  # a policy scoped to the fleet's own jobs
    }
    listings = [Listing([]), *script(spec)]
    for listing in listings:
        listing.describes.update(described)
    prefix = BOARD.removeprefix("s3://acme-ml/")
    board = {
        f"{prefix}{OTHER}/{OTHER_KEY}.json": (0.0, RunDemand(OTHER, OTHER_KEY, 0.5, posted=0.0).to_json()),
        f"{prefix}daily/20261121.json": (  # an ended run's record: never fetched
            -Cadence().stale_seconds - 1,
            RunDemand("daily", "20261121", 0.5, posted=0.0).to_json(),
        ),
    }
    return listings, others, board


def throttling() -> ClientError:
    return ClientError({"Error": {"Code": "ThrottlingException", "Message": "Rate exceeded"}}, "Call")


def access_denied() -> ClientError:
    return ClientError({"Error": {"Code": "AccessDeniedException", "Message": "no"}}, "DescribeTrainingJob")


class Endpoint:
    """The scripted endpoint both shells talk to, and the decisions it sees them make (time, what, which)."""

    def __init__(self, spec: Any, clock: Callable[[], float]) -> None:
        self.listings, self.others, self.board = world(spec)
        self.clock = clock
        self.served = 0
        self.current = self.listings[0]
        self.decisions: list[Decision] = []

    def note(self, *decision: Any) -> None:
        self.decisions.append((self.clock(), *decision))

    def list(self, request: dict[str, Any]) -> list[dict] | None:
        census = request.get("StatusEquals") or request.get("WarmPoolStatusEquals")
        if census:  # the account's running jobs and idle pools, once before the first sweep
            self.note("census", census)
            return copy.deepcopy(self.others) if census == "InProgress" else []
        if "NextToken" not in request:
            self.current = self.listings[min(self.served, len(self.listings) - 1)]
            self.served += 1
            self.note("list", request.get("CreationTimeAfter"))
        return None if self.current.summaries is None else copy.deepcopy(self.current.summaries + self.others)

    def describe(self, job_name: str) -> Any:
        self.note("describe", job_name)
        return copy.deepcopy(self.current.describe(job_name))

    def keep_alive(self, job_name: str, seconds: int) -> None:
        self.note("keep-alive", job_name, seconds)

    def watch_board(self, monkeypatch: pytest.MonkeyPatch, shell: type) -> None:
        """Note what the board gave ``shell``'s sweeps (the records' fleets) and what they posted."""
        read, post = shell.read_board, shell.post_board

        async def read_board(io: Any, bucket: str, prefix: str, modified_after: float) -> Any:
            records = await read(io, bucket, prefix, modified_after)
            self.note("board", None if records is None else sorted(r["fleet"] for r in records))
            return records

        async def post_board(io: Any, bucket: str, key: str, record: dict) -> bool:
            self.note("post", key, json.dumps(record, sort_keys=True))
            return await post(io, bucket, key, record)

        monkeypatch.setattr(shell, "read_board", read_board)
        monkeypatch.setattr(shell, "post_board", post_board)


class FakeS3:
    """The board's bucket for the triggerer's S3 client: LastModified on the test's clock."""

    def __init__(self, endpoint: Endpoint) -> None:
        self.endpoint = endpoint
        self.objects = {
            key: (json.dumps(record), at_wall(modified)) for key, (modified, record) in endpoint.board.items()
        }

    async def list_objects_v2(self, Bucket: str, Prefix: str) -> dict[str, Any]:  # noqa: N803 - boto3's names
        contents = [
            {"Key": key, "ETag": f'"{hash(body)}"', "LastModified": modified}
            for key, (body, modified) in sorted(self.objects.items())
            if key.startswith(Prefix)
        ]
        return {"Contents": contents, "IsTruncated": False}

    async def get_object(self, Bucket: str, Key: str) -> dict[str, Any]:  # noqa: N803
        body = self.objects[Key][0].encode()

        class Body:
            async def read(self) -> bytes:
                return body

        return {"Body": Body()}

    async def put_object(self, Bucket: str, Key: str, Body: bytes, ContentType: str) -> None:  # noqa: N803
        self.objects[Key] = (Body.decode(), at_wall(self.endpoint.clock()))


def at_wall(seconds: float) -> dt.datetime:
    return dt.datetime.fromtimestamp(seconds, dt.UTC)


# ------------------------------------------------------------------------------------------ the triggerer's shell


def triggerer_decisions(spec: Any, book: DispatchBook, monkeypatch: pytest.MonkeyPatch) -> list[Decision]:
    """The triggerer's session over an aiobotocore-shaped client, its sleeps moving a virtual clock."""
    clock = [0.0]
    endpoint = Endpoint(spec, lambda: clock[0])

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
            if described == DENIED:
                raise access_denied()
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

    monkeypatch.setattr(session_module, "asyncio", VirtualAsyncio())
    monkeypatch.setattr(RunSweepIO, "now", lambda self: clock[0])
    monkeypatch.setattr(RunSweepIO, "wall", lambda self: clock[0])
    endpoint.watch_board(monkeypatch, RunSweepIO)
    quiet = logging.getLogger("test.sweep_shells")

    async def city_run(poller: RunSession, city_name: str) -> None:
        await poller.wait_turn(Wait(city_name, since=0.0))
        endpoint.note("admitted", city_name)
        described = await watch_until_terminal(poller, name(spec, city_name), at(clock[0]), quiet)
        endpoint.note("ended", described["TrainingJobName"])

    async def main() -> None:
        connection = RunConnection(Hook(), run_name_contains(RUN_KEY), INTERVAL)  # type: ignore[arg-type]
        poller = RunSession(connection, SessionSetup(build_run_dispatch(book, run_job_names(spec, RUN_KEY))))
        connection.board._client = FakeS3(endpoint)
        await asyncio.wait_for(asyncio.gather(*(city_run(poller, c) for c in book.members["g0"])), 30)
        assert poller._task is not None
        await asyncio.wait_for(poller._task, 30)  # it stops by itself once nobody watches or waits

    asyncio.run(main())
    return endpoint.decisions


# ------------------------------------------------------------------------------------------ simulate's shell


def simulator_decisions(spec: Any, book: DispatchBook, monkeypatch: pytest.MonkeyPatch) -> list[Decision]:
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
            if described == DENIED:
                raise SimApiError("AccessDeniedException", "no")
            return described

        def update_training_job(self, request: dict[str, Any]) -> dict[str, Any]:
            endpoint.keep_alive(
                request["TrainingJobName"], request["ResourceConfig"]["KeepAlivePeriodInSeconds"]
            )
            return {}

    engine = Engine()
    endpoint = Endpoint(spec, engine.now)
    endpoint.watch_board(monkeypatch, sim_polling.SimulatedFleetPoller)
    board = {f"acme-ml/{key}": value for key, value in copy.deepcopy(endpoint.board).items()}
    poller = SimulatedFleetPoller(
        engine,  # type: ignore[arg-type]
        timeline,
        RUN_KEY,
        INTERVAL,
        build_run_dispatch(book, run_job_names(spec, RUN_KEY)),
        board=board,
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
    simulator = sorted(simulator_decisions(spec, book, monkeypatch), key=repr)
    assert triggerer == simulator


def test_the_script_meets_every_rule_of_the_sweep(alone, monkeypatch) -> None:
    """The comparison above is only as good as the script: the triggerer's decisions (the reference, it runs in
    production) over it show each rule once."""
    spec, book = alone
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
    assert sorted(simulator_decisions(spec, book, monkeypatch), key=repr) != triggerer


def test_the_shared_world_meets_the_rules_of_the_account(shared, monkeypatch) -> None:
    """On the board beside another run, the triggerer's decisions show: the other run's jobs described once (the
    one the credentials may not describe not asked again), its record read until it goes stale, an ended run's
    record never, and the run's own record posted on the board's clock."""
    spec, book = shared
    decisions = triggerer_decisions(spec, book, monkeypatch)
    x0, x1 = (f"{OTHER}-x{n}-{OTHER_KEY}" for n in (0, 1))
    assert [d for d in decisions if d[1] == "describe" and d[2] in (x0, x1)] == [
        (0.0, "describe", x0),
        (0.0, "describe", x1),
    ]
    reads = [d for d in decisions if d[1] == "board"]
    assert all("daily" not in d[2] for d in reads)
    assert reads[0] == (0.0, "board", [OTHER])
    assert {d[2] == ["demo"] for d in reads} == {False, True}
    assert all(
        d[0] > Cadence().stale_seconds for d in reads if OTHER not in d[2]
    )  # stale past STALE_SECONDS only
    posts = [d for d in decisions if d[1] == "post"]
    assert posts
    assert all(json.loads(d[3])["posted"] == d[0] for d in posts)
    admitted = [d for d in decisions if d[1] == "admitted"]
    assert [d[2] for d in admitted] == ["c3", "c2", "c1", "c0"]
    assert admitted[0][0] > posts[0][0]  # the first admissions wait for a read after the first post


def test_the_comparison_sees_a_simulator_that_keeps_an_ended_runs_record(shared, monkeypatch) -> None:
    spec, book = shared
    triggerer = sorted(triggerer_decisions(spec, book, monkeypatch), key=repr)
    read = sim_polling.SimulatedFleetPoller.read_board

    async def every_record(io: Any, bucket: str, prefix: str, modified_after: float) -> Any:
        return await read(io, bucket, prefix, -math.inf)

    monkeypatch.setattr(sim_polling.SimulatedFleetPoller, "read_board", every_record)
    assert sorted(simulator_decisions(spec, book, monkeypatch), key=repr) != triggerer
