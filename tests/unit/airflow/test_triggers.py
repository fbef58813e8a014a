"""Triggers serialize to JSON-only kwargs and rebuild identically; the batched poller shares one sweep."""

from __future__ import annotations

import asyncio
import dataclasses
import datetime as dt
import importlib
import json
import logging
from typing import Any

import pytest
from botocore.exceptions import (
    ConnectionClosedError,
    EndpointConnectionError,
    HTTPClientError,
    NoCredentialsError,
)

from sagemaker_fleet.hooks.connection import AwsConnection
from sagemaker_fleet.hooks.fleet import SageMakerFleetHook
from sagemaker_fleet.triggers.city import FleetCityTrigger
from sagemaker_fleet.triggers.conditions import FleetRunTrigger, WarmPoolTrigger
from sagemaker_fleet.triggers.connection import RunConnection
from sagemaker_fleet.triggers.defaults import CITY_TRIGGER_GROUPS, TriggerSettings
from sagemaker_fleet.triggers.fleet import FleetJobTrigger
from sagemaker_fleet.triggers.session import RunSession, SessionSetup
from sagemaker_fleet.triggers.watch import watch_until_terminal

TRIGGERS = [
    FleetJobTrigger(
        job_name="f-seoul-20261129",
        name_contains="-20261129",
        poll_interval=5,
        created_after="2026-11-29T00:00:00+00:00",
        botocore_config={"connect_timeout": 3},
    ),
    FleetRunTrigger(spec_path="/x/fleet.yaml", run_key="20261129", poll_interval=7, region_name="us-east-1"),
    WarmPoolTrigger(
        key={
            "role_arn": "arn:aws:iam::111122223333:role/R",
            "instance_type": "ml.m5.xlarge",
            "instance_count": 1,
            "volume_size_gb": 30,
        },
        name_contains="f-",
    ),
]


@pytest.mark.parametrize("trigger", TRIGGERS, ids=lambda t: type(t).__name__)
def test_serialize_round_trip(trigger) -> None:
    classpath, kwargs = trigger.serialize()
    json.dumps(kwargs)  # JSON-only kwargs
    module, _, name = classpath.rpartition(".")
    rebuilt = getattr(importlib.import_module(module), name)(**kwargs)
    assert rebuilt.serialize() == (classpath, kwargs)


class FakeClient:
    """Just enough of an aiobotocore SageMaker client: pages of summaries, describe on demand."""

    def __init__(self, jobs: dict[str, str]) -> None:
        self.jobs = jobs
        self.calls: list[str] = []

    async def __aenter__(self) -> FakeClient:
        return self

    async def __aexit__(self, *exc: object) -> None:
        return None

    async def list_training_jobs(self, **kwargs: Any) -> dict[str, Any]:
        self.calls.append("list")
        wanted = kwargs.get("StatusEquals")
        names = sorted(n for n in self.jobs if wanted is None or self.jobs[n] == wanted)
        start = int(kwargs.get("NextToken", 0))
        page = names[start : start + 2]
        out: dict[str, Any] = {
            "TrainingJobSummaries": [
                {"TrainingJobName": n, "TrainingJobStatus": self.jobs[n], "SecondaryStatus": "Training"}
                for n in page
            ]
        }
        if start + 2 < len(names):
            out["NextToken"] = str(start + 2)
        return out

    async def describe_training_job(self, TrainingJobName: str) -> dict[str, Any]:  # noqa: N803
        self.calls.append("describe")
        return {
            "TrainingJobName": TrainingJobName,
            "TrainingJobStatus": self.jobs[TrainingJobName],
            "AlgorithmSpecification": {},
        }  # only a description has it, no summary


class FakeHook:
    def __init__(self, client: FakeClient) -> None:
        self.client = client

    async def get_async_conn(self) -> FakeClient:
        return self.client

    alist_jobs = SageMakerFleetHook.alist_jobs  # the real paging over the fake client

    async def adescribe(self, client: FakeClient, name: str) -> dict[str, Any] | None:
        return await client.describe_training_job(TrainingJobName=name)


def watching(key: tuple[Any, ...], client: FakeClient, interval: float) -> RunSession:
    """The session that watches jobs under ``key`` in this event loop, asking for sweeps every ``interval`` s."""
    session = RunSession.shared(key, lambda: RunConnection(FakeHook(client), "-1", interval))  # type: ignore[arg-type]
    session.connection.ask_interval(interval)
    return session


def test_one_sweep_serves_every_watcher() -> None:
    jobs = {f"f-c{i}-1": "InProgress" for i in range(5)}
    client = FakeClient(jobs)

    async def scenario() -> list[dict[str, Any]]:
        poller = watching(("k",), client, 0.01)
        queues = [poller.watch(name, dt.datetime(2026, 11, 29, tzinfo=dt.UTC)) for name in jobs]
        first = [await q.get() for q in queues]
        for name in jobs:
            poller.unwatch(name)
        await poller.close()
        return first

    first = asyncio.run(scenario())
    assert {u["TrainingJobName"] for u in first} == set(jobs)
    # 5 jobs, pages of 2: one sweep is 3 list calls and no describe at all
    assert client.calls[:3] == ["list", "list", "list"]
    assert "describe" not in client.calls


def test_a_sweep_describes_each_ended_job_once_with_its_own_client() -> None:
    jobs = {"f-a-1": "InProgress", "f-b-1": "Completed", "f-c-1": "InProgress", "f-d-1": "Failed"}
    client = FakeClient(jobs)

    async def scenario() -> dict[str, dict[str, Any]]:
        poller = watching(("k2",), client, 0.01)
        queues = {name: poller.watch(name, dt.datetime(2026, 11, 29, tzinfo=dt.UTC)) for name in jobs}
        first = {name: await q.get() for name, q in queues.items()}
        for name in jobs:
            poller.unwatch(name)
        await poller.close()
        return first

    first = asyncio.run(scenario())
    # 4 jobs in pages of 2, then the two that ended are described, once each
    assert client.calls[:4] == ["list", "list", "describe", "describe"]
    statuses = {
        name: ("AlgorithmSpecification" in update, update["TrainingJobStatus"])
        for name, update in first.items()
    }
    assert statuses == {
        "f-a-1": (False, "InProgress"),
        "f-b-1": (True, "Completed"),
        "f-c-1": (False, "InProgress"),
        "f-d-1": (True, "Failed"),
    }


class FlakyClient(FakeClient):
    """A FakeClient whose listings raise ``error`` while ``down`` is set (the endpoint or network gone)."""

    def __init__(self, jobs: dict[str, str], error: Exception) -> None:
        super().__init__(jobs)
        self.error = error
        self.down = True

    async def list_training_jobs(self, **kwargs: Any) -> dict[str, Any]:
        if self.down:
            self.calls.append("refused")
            raise self.error
        return await super().list_training_jobs(**kwargs)


CONNECTION_ERRORS = [
    EndpointConnectionError(endpoint_url="https://api.sagemaker.us-east-1.amazonaws.com/"),
    ConnectionClosedError(endpoint_url="https://api.sagemaker.us-east-1.amazonaws.com/"),
    HTTPClientError(error="connection reset"),
    NoCredentialsError(),
    RuntimeError("a bug in a sweep"),
]


@pytest.mark.parametrize("error", CONNECTION_ERRORS, ids=lambda e: type(e).__name__)
def test_the_poller_outlives_an_outage_and_its_watchers_never_see_it(error: Exception) -> None:
    client = FlakyClient({"f-a-1": "InProgress"}, error)

    async def scenario() -> dict[str, Any]:
        poller = watching(("flaky", type(error).__name__), client, 0.001)
        queue = poller.watch("f-a-1", dt.datetime(2026, 11, 29, tzinfo=dt.UTC))
        while client.calls.count("refused") < 8:  # noqa: ASYNC110 - past MAX_CONSECUTIVE_ERRORS, within GIVE_UP_SECONDS
            await asyncio.sleep(0.001)
        assert queue.empty()
        assert not poller._task.done()
        client.down = False
        client.jobs["f-a-1"] = "Completed"
        update = await asyncio.wait_for(queue.get(), 5)
        poller.unwatch("f-a-1", queue)
        await poller.close()
        return update

    update = asyncio.run(scenario())
    assert update["TrainingJobStatus"] == "Completed"
    assert "error" not in update


def test_a_lasting_outage_fails_every_watcher_and_waiting_city_instead_of_hanging(monkeypatch) -> None:
    from sagemaker_fleet.dispatch import Cadence, DispatchBook, Wait, build_run_dispatch
    from sagemaker_fleet.triggers.watch import JobWatchError

    client = FlakyClient({"f-a-1": "InProgress"}, EndpointConnectionError(endpoint_url="https://x/"))

    async def scenario() -> tuple[Any, Any]:
        dispatch = build_run_dispatch(DispatchBook.empty(), {}, Cadence(give_up_seconds=0.05))
        poller = RunSession(RunConnection(FakeHook(client), "-1", 0.001), SessionSetup(dispatch))  # type: ignore[arg-type]
        queue = poller.watch("f-a-1", dt.datetime(2026, 11, 29, tzinfo=dt.UTC))
        turn = asyncio.ensure_future(poller.wait_turn(Wait("b")))
        update = await asyncio.wait_for(queue.get(), 10)
        with pytest.raises(JobWatchError, match="polling failed for"):
            await asyncio.wait_for(turn, 10)
        poller.unwatch("f-a-1", queue)
        await poller.close()
        return update, client.calls.count("refused")

    update, refused = asyncio.run(scenario())
    assert "EndpointConnectionError" in update["error"]
    assert "polling failed for" in update["error"]
    assert refused >= 5


def test_two_triggers_watching_one_job_each_get_its_end() -> None:
    client = FakeClient({"f-a-1": "InProgress"})

    async def scenario() -> list[dict[str, Any]]:
        poller = watching(("twice",), client, 0.001)
        log = logging.getLogger("test")
        watchers = [asyncio.ensure_future(watch_until_terminal(poller, "f-a-1", None, log)) for _ in range(2)]
        await asyncio.sleep(0.05)
        client.jobs["f-a-1"] = "Completed"
        ended = await asyncio.wait_for(asyncio.gather(*watchers), 5)
        assert "f-a-1" not in poller.watches  # both unwatched: the poller stops
        await poller.close()
        return ended

    ended = asyncio.run(scenario())
    assert [e["TrainingJobStatus"] for e in ended] == ["Completed", "Completed"]


def test_a_watch_gives_up_past_the_jobs_own_limits() -> None:
    from sagemaker_fleet.dispatch.cadence import Cadence
    from sagemaker_fleet.triggers.watch import JobWatchError, watch_deadline

    margin = Cadence().watch_margin_seconds

    assert watch_deadline({"StoppingCondition": {"MaxRuntimeInSeconds": 600}}, margin) == 600 + margin
    spot = {"StoppingCondition": {"MaxRuntimeInSeconds": 600, "MaxWaitTimeInSeconds": 1800}}
    assert watch_deadline(spot, margin) == 1800 + margin
    assert watch_deadline({}, margin) is None
    client = FakeClient({"f-a-1": "InProgress"})  # never ends

    async def scenario() -> None:
        poller = watching(("stuck",), client, 0.001)
        with pytest.raises(JobWatchError, match="has not ended"):
            await watch_until_terminal(poller, "f-a-1", None, logging.getLogger("test"), deadline_seconds=0.1)
        assert not poller.watches
        await poller.close()

    asyncio.run(scenario())


@pytest.mark.parametrize(
    ("endpoint", "expected"),
    [
        ("https://api.sagemaker.us-east-1.amazonaws.com", 5.0),
        ("https://api.sagemaker.cn-north-1.amazonaws.com.cn", 5.0),
        ("http://127.0.0.1:8765", 0.5),  # the simulator may sweep faster
        ("", 0.5),
    ],
)
def test_a_poll_interval_below_5_s_is_clamped_against_aws_only(endpoint: str, expected: float) -> None:
    client = FakeClient({"f-a-1": "InProgress"})
    client.meta = type("Meta", (), {"endpoint_url": endpoint})()  # type: ignore[attr-defined]

    async def scenario() -> tuple[float, float]:
        poller = watching(("clamp", endpoint), client, 0.5)
        queue = poller.watch("f-a-1", dt.datetime(2026, 11, 29, tzinfo=dt.UTC))
        await asyncio.wait_for(queue.get(), 5)
        first = poller.interval
        again = watching(("clamp", endpoint), client, 0.1)
        poller.unwatch("f-a-1", queue)
        await poller.close()
        return first, again.interval

    first, second = asyncio.run(scenario())
    assert first == expected
    assert second == (expected if expected == 5.0 else 0.1)  # a later trigger cannot undo the clamp


def _keyword_parameters(cls: type) -> dict[str, Any]:
    """The keywords ``cls(...)`` takes: its ``__init__``'s, and its bases' for as long as one hands ``**kwargs`` on."""
    import inspect

    found: dict[str, Any] = {}
    for klass in cls.__mro__:
        if "__init__" not in vars(klass):
            continue
        parameters = inspect.signature(vars(klass)["__init__"]).parameters
        for name, parameter in parameters.items():
            if parameter.kind is inspect.Parameter.KEYWORD_ONLY:
                found.setdefault(name, parameter)
        if not any(p.kind is inspect.Parameter.VAR_KEYWORD for p in parameters.values()):
            break
    return found


def _non_default_arguments(cls: type) -> dict[str, Any]:
    """A value for every keyword of ``cls(...)`` that differs from its default (so a dropped one shows); a settings
    group (the city trigger's) as its row's dict, with every field of it other than its default."""
    values: dict[str, Any] = {}
    for name, parameter in _keyword_parameters(cls).items():
        if name in CITY_TRIGGER_GROUPS and cls is FleetCityTrigger:
            fields = dataclasses.fields(CITY_TRIGGER_GROUPS[name])
            values[name] = {f.name: _other_than(f.default, str(f.type), f.name) for f in fields}
            continue
        values[name] = _other_than(parameter.default, str(parameter.annotation), name)
    assert values, cls
    return values


def _other_than(default: Any, annotation: str, name: str) -> Any:
    """A value of type ``annotation`` other than ``default``."""
    if "bool" in annotation:
        value: Any = not default if isinstance(default, bool) else True
    elif "dict" in annotation:
        value = {"sample": name}
    elif annotation.startswith("float") or annotation.startswith("int"):
        value = (default or 0) + 3
    else:
        value = f"{name}-sample"
    assert value != default, name
    return value


@pytest.mark.parametrize(
    "cls", [FleetJobTrigger, FleetRunTrigger, WarmPoolTrigger, FleetCityTrigger], ids=lambda c: c.__name__
)
def test_every_constructor_argument_survives_serialization(cls: type) -> None:
    """serialize() → the triggerer stores the kwargs → a new instance: each argument given must come back as it
    was given (comparing serialize() with itself would pass with a kwarg dropped on both sides)."""
    given = _non_default_arguments(cls)
    if cls is WarmPoolTrigger:
        given["key"] = {
            "role_arn": "arn:aws:iam::111122223333:role/R",
            "instance_type": "ml.m5.xlarge",
            "instance_count": 2,
            "volume_size_gb": 50,
        }
    classpath, kwargs = cls(**given).serialize()
    json.dumps(kwargs)
    assert classpath == f"{cls.__module__}.{cls.__qualname__}"
    for name, value in given.items():
        assert name in kwargs, f"{cls.__name__} drops {name} when serialized"
        assert kwargs[name] == value, (name, kwargs[name], value)
    rebuilt = cls(**kwargs)
    for name, value in given.items():
        got = getattr(rebuilt, name)
        assert (got.to_json() if isinstance(got, TriggerSettings) else got) == value, name


AWS_CONNECTION = set(AwsConnection.names())


@pytest.mark.parametrize(
    "cls", [FleetJobTrigger, FleetRunTrigger, WarmPoolTrigger, FleetCityTrigger], ids=lambda c: c.__name__
)
def test_every_trigger_takes_and_keeps_the_whole_aws_connection(cls: type) -> None:
    """``verify`` (a CA bundle, or False against a local endpoint) goes wherever the rest of the connection goes:
    into the stored kwargs, back into the rebuilt trigger, and into the hook it talks to AWS with."""
    given = _non_default_arguments(cls)
    assert not set(given) & AWS_CONNECTION, (
        cls
    )  # the connection is the base's, not each trigger's own keywords
    given.update(
        {f.name: _other_than(f.default, str(f.type), f.name) for f in dataclasses.fields(AwsConnection)}
    )
    if cls is WarmPoolTrigger:
        given["key"] = {}
    given.update(
        verify="/etc/ssl/fleet-ca.pem", region_name="eu-west-1", botocore_config={"connect_timeout": 3}
    )
    kwargs = cls(**given).serialize()[1]
    assert {name: kwargs[name] for name in AWS_CONNECTION} == {name: given[name] for name in AWS_CONNECTION}
    trigger = cls(**kwargs)
    assert trigger.connection == AwsConnection(**{name: given[name] for name in AWS_CONNECTION})
    hooks = [trigger.hook()] + ([trigger.fleet_hook()] if hasattr(trigger, "fleet_hook") else [])
    for hook in hooks:  # what the hook hands boto3 and aiobotocore (its properties would read the connection)
        assert (hook.aws_conn_id, hook._region_name, hook._verify) == (
            given["aws_conn_id"],
            "eu-west-1",
            "/etc/ssl/fleet-ca.pem",
        )
        assert hook._config.connect_timeout == 3


def test_the_sensors_hand_their_whole_aws_connection_to_their_triggers() -> None:
    from sagemaker_fleet.sensors.fleet import FleetRunSensor, WarmPoolAvailableSensor

    connection = {
        "aws_conn_id": "fleet_aws",
        "region_name": "eu-west-1",
        "verify": False,
        "botocore_config": {"connect_timeout": 3},
    }
    run = FleetRunSensor(task_id="run", spec_path="/x/fleet.yaml", run_key="20261129", **connection)
    assert run._trigger().connection == AwsConnection(**connection)

    class Pool(WarmPoolAvailableSensor):
        def _key(self) -> Any:  # not read from a fleet file: only the connection matters here
            from types import SimpleNamespace

            return SimpleNamespace(to_json=dict)

    pool = Pool(task_id="pool", spec_path="/x/fleet.yaml", city="oslo", **connection)
    assert pool._trigger().connection == AwsConnection(**connection)
