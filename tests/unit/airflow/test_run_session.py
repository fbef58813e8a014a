"""RunSession.open: a run's session is opened once per event loop, complete, by the first of its triggers."""

from __future__ import annotations

import asyncio

from sagemaker_fleet.dispatch import DispatchBook, build_run_dispatch
from sagemaker_fleet.triggers.connection import RunConnection
from sagemaker_fleet.triggers.session import RunSession, SessionSetup
from unit.airflow.test_triggers import FakeClient, FakeHook


def test_the_first_trigger_opens_the_run_s_session_with_its_dispatch_and_the_others_join_it() -> None:
    setups: list[RunConnection] = []

    def connect() -> RunConnection:
        return RunConnection(FakeHook(FakeClient({})), "-1", 30.0)  # type: ignore[arg-type]

    async def setup(connection: RunConnection) -> SessionSetup:
        setups.append(connection)
        await asyncio.sleep(0.01)  # reading the plan: the others wait for it, they do not open a second one
        return SessionSetup(build_run_dispatch(DispatchBook.empty(), {}))

    async def scenario() -> tuple[list[RunSession], RunSession]:
        key = ("conn", "-1", "fleet")
        sessions = await asyncio.gather(*(RunSession.open(key, connect, setup) for _ in range(3)))
        watching = RunSession.shared(("conn", "-1", ""), connect)
        return list(sessions), watching

    sessions, watching = asyncio.run(scenario())
    assert len(setups) == 1
    assert {id(s) for s in sessions} == {id(sessions[0])}
    assert sessions[0].connection is setups[0]
    assert sessions[0].tracker is not None  # complete before any city registers
    assert watching is not sessions[0]
    assert watching.tracker is None  # a session that only watches jobs dispatches nothing
    assert not RunSession._opening  # nothing left of the opening
