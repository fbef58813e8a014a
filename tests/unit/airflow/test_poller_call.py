"""RunSession.call (RunClient.call): a trigger's own request (describe, tags, create) outlives a passing outage of the endpoint
instead of failing the city's task, and any other error still reaches the task."""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING, Any

import pytest
from botocore.exceptions import ClientError, ConnectionClosedError, EndpointConnectionError, ReadTimeoutError

from sagemaker_fleet.dispatch.cadence import Cadence
from sagemaker_fleet.dispatch.sweep import RunSweeps, sweep_once
from sagemaker_fleet.triggers.client import is_transient
from sagemaker_fleet.triggers.connection import RunConnection
from sagemaker_fleet.triggers.session import RunSession, SessionSetup
from unit.airflow.test_triggers import FakeClient, FakeHook

if TYPE_CHECKING:
    from sagemaker_fleet.dispatch.shell import Swept


def client_error(code: str, status: int) -> ClientError:
    return ClientError(
        {"Error": {"Code": code, "Message": code}, "ResponseMetadata": {"HTTPStatusCode": status}},
        "CreateTrainingJob",
    )


@pytest.mark.parametrize(
    ("error", "transient"),
    [
        (EndpointConnectionError(endpoint_url="http://127.0.0.1:1"), True),
        (ConnectionClosedError(endpoint_url="http://127.0.0.1:1"), True),
        (ReadTimeoutError(endpoint_url="http://127.0.0.1:1"), True),
        (ConnectionRefusedError(111, "refused"), True),
        (TimeoutError(), True),
        (client_error("ThrottlingException", 400), True),
        (client_error("InternalFailure", 500), True),
        (client_error("ServiceUnavailable", 503), True),
        (client_error("ValidationException", 400), False),
        (client_error("ResourceLimitExceeded", 400), False),
        (ValueError("a bug"), False),
    ],
)
def test_only_errors_that_say_nothing_about_the_request_are_sent_again(
    error: Exception, transient: bool
) -> None:
    assert is_transient(error) is transient


def flaky(failures: list[Exception], result: Any) -> tuple[Any, list[str]]:
    seen: list[str] = []

    async def request(client: Any, name: str) -> Any:
        seen.append(name)
        if failures:
            raise failures.pop(0)
        return result

    return request, seen


def poller(monkeypatch, give_up: float = 900.0) -> tuple[RunSession, list[float]]:
    slept: list[float] = []

    async def sleep(seconds: float) -> None:  # the back-off is recorded, not waited
        slept.append(seconds)

    monkeypatch.setattr("sagemaker_fleet.triggers.client.asyncio.sleep", sleep)
    return session(RunSweeps(cadence=Cadence(give_up_seconds=give_up))), slept


def session(sweeps: RunSweeps) -> RunSession:
    """A run's session over ``sweeps``, its client a fake one."""
    connection = RunConnection(FakeHook(FakeClient({})), "-20261201", interval=2.0)  # type: ignore[arg-type]
    return RunSession(connection, SessionSetup(sweeps))


def test_a_request_is_sent_again_through_an_outage_with_the_sweeps_back_off(monkeypatch) -> None:
    p, slept = poller(monkeypatch)
    down = EndpointConnectionError(endpoint_url="http://127.0.0.1:1")
    request, seen = flaky([down, down, down, client_error("ThrottlingException", 400)], {"ok": True})
    assert asyncio.run(p.call("describing x", request, "x")) == {"ok": True}
    assert seen == ["x"] * 5
    assert slept == [2.0, 4.0, 8.0, 16.0]  # the poll interval, doubled each time, up to 8 times it


def test_an_error_about_the_request_reaches_the_caller_at_once(monkeypatch) -> None:
    p, slept = poller(monkeypatch)
    request, seen = flaky([client_error("ValidationException", 400)], None)
    with pytest.raises(ClientError, match="ValidationException"):
        asyncio.run(p.call("creating x", request, "x"))
    assert (seen, slept) == (["x"], [])


def test_an_outage_that_outlasts_the_sweeps_patience_fails_the_request(monkeypatch) -> None:
    p, slept = poller(monkeypatch, give_up=0.0)  # already past: the first transient error is the last
    request, seen = flaky([EndpointConnectionError(endpoint_url="http://127.0.0.1:1")], None)
    with pytest.raises(EndpointConnectionError):
        asyncio.run(p.call("creating x", request, "x"))
    assert (seen, slept) == (["x"], [])


def scripted(p: RunSession, listing: list[dict], census: list[dict] | None = None) -> None:
    """The poller's listings: the account's running jobs ``census`` (none by default), else ``listing`` as it holds
    the run's jobs when the sweep lists."""

    async def alist_jobs(client: Any, name_contains: str, **filters: Any) -> Any:
        if filters.get("warm_pool_status_equals"):
            return
        for job in (census or []) if filters.get("status_equals") else list(listing):
            yield job

    p.hook.alist_jobs = alist_jobs  # type: ignore[method-assign]


def sweep(p: RunSession) -> Swept:
    return asyncio.run(sweep_once(p.sweeps, p.io, p.interval))


def pool_end_poller(update: Any) -> RunSession:
    """A poller whose run has one idle pool nobody will take over; its keep-alive changes go through ``update``."""
    from unit.dispatch.test_dispatch_tracker import dispatch_for, hand_book, summary

    spec, book = hand_book("X")
    listing = [summary(spec, "c0", "Completed", pool="Available")]
    p = session(dispatch_for(spec, book, listing))
    scripted(p, listing)
    p.hook.aupdate_keep_alive = update  # type: ignore[method-assign]
    return p


def test_a_pool_end_throttled_past_its_retries_fails_the_sweep_and_the_next_sweep_ends_the_pool() -> None:
    calls: list[str] = []

    async def update(client: Any, name: str, seconds: int) -> None:
        calls.append(name)
        if len(calls) == 1:
            raise client_error("ThrottlingException", 400)

    p = pool_end_poller(update)
    failed = sweep(p).error
    assert isinstance(failed, ClientError)
    assert "Throttling" in str(failed)
    assert sweep(p).error is None
    assert sweep(p).error is None  # made: not sent again
    assert calls == [calls[0], calls[0]]


def test_a_pool_end_refused_because_the_pool_is_gone_is_not_sent_again() -> None:
    calls: list[str] = []

    async def update(client: Any, name: str, seconds: int) -> None:
        calls.append(name)
        raise client_error("ValidationException", 400)

    p = pool_end_poller(update)
    assert sweep(p).error is None  # a refusal is not the sweep's failure
    assert sweep(p).error is None
    assert len(calls) == 1


def test_keep_alive_0_refused_while_the_job_runs_is_done_and_the_pool_it_keeps_is_ended_once_idle() -> None:
    """Should AWS refuse keep-alive changes of running jobs: the tail release of each running job is sent once,
    its ValidationException counts as done (no failed sweep, not sent again), and the sweep that sees the job's
    pool Available ends it."""
    from unit.dispatch.test_dispatch_tracker import dispatch_for, hand_book, summary

    spec, book = hand_book("XX")  # both cities of the group have their job: no successor is coming
    listing = [summary(spec, "c0"), summary(spec, "c1")]
    p = session(dispatch_for(spec, book, listing))
    scripted(p, listing)
    running = {s["TrainingJobName"] for s in listing}
    sent: list[tuple[str, bool]] = []

    async def update(client: Any, name: str, seconds: int) -> None:
        sent.append((name, name in running))
        if name in running:
            raise client_error("ValidationException", 400)

    p.hook.aupdate_keep_alive = update  # type: ignore[method-assign]
    c0, c1 = sorted(running)
    assert sweep(p).error is None
    assert sent == [(c0, True), (c1, True)]
    assert sweep(p).error is None
    assert sent == [(c0, True), (c1, True)]  # refused: done, not sent again
    running.discard(c0)
    listing[0] = summary(spec, "c0", "Completed", pool="Available")
    assert sweep(p).error is None
    assert sent == [(c0, True), (c1, True), (c0, False)]


def test_another_runs_job_the_credentials_may_not_describe_is_left_uncounted_with_one_warning(
    monkeypatch, caplog
) -> None:
    """A policy that scopes DescribeTrainingJob to the fleet's own jobs (what docs/guides/aws.md asked for before runs
    counted the account): the sweep goes on, the job is not asked for again, and the log names the permission."""
    from sagemaker_fleet.dispatch.account import AccountView

    p, _ = poller(monkeypatch)
    p.sweeps.account = AccountView()
    scripted(
        p, [], census=[{"TrainingJobName": f"other-{i}", "TrainingJobStatus": "InProgress"} for i in range(2)]
    )
    asked: list[str] = []

    async def adescribe(client: Any, name: str) -> Any:
        asked.append(name)
        raise ClientError(
            {"Error": {"Code": "AccessDeniedException", "Message": "no"}}, "DescribeTrainingJob"
        )

    monkeypatch.setattr(p.hook, "adescribe", adescribe)
    with caplog.at_level("WARNING"):
        assert sweep(p).error is None
        assert sweep(p).error is None
    assert sorted(asked) == ["other-0", "other-1"]  # not asked again
    assert p.sweeps.account.to_describe(0, None) == []
    assert p.sweeps.account.held(()) == {}
    warnings = [r.getMessage() for r in caplog.records if "may not describe" in r.getMessage()]
    assert len(warnings) == 1
    assert "sagemaker-fleet iam --describe-fleet NAME" in warnings[0]
    assert "never on training-job/*" in warnings[0]


def test_any_other_describe_error_of_another_runs_job_fails_the_sweep(monkeypatch) -> None:
    from sagemaker_fleet.dispatch.account import AccountView

    p, _ = poller(monkeypatch)
    p.sweeps.account = AccountView()
    scripted(p, [], census=[{"TrainingJobName": "other", "TrainingJobStatus": "InProgress"}])

    async def adescribe(client: Any, name: str) -> Any:
        raise client_error("ThrottlingException", 400)

    monkeypatch.setattr(p.hook, "adescribe", adescribe)
    assert isinstance(sweep(p).error, ClientError)
    assert p.sweeps.account.to_describe(0, None) == ["other"]  # asked again by the next sweep
