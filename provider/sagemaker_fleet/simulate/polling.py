"""How the orchestrator learns that a job ended — the API load each strategy puts on the control plane.

- :class:`SimulatedFleetPoller` is the triggerer's run session (``RunSession``) in virtual time: the same sweep
  (:func:`~sagemaker_fleet.dispatch.sweep.sweep_once`: listing window, jobs missing from a listing, describes, the
  hand-off, pool ends, the board, back-off), stepped like a city's run, with the simulator's engine as its I/O.
  While jobs are watched or cities wait, one ListTrainingJobs sweep of the run's jobs per interval (at most the
  cadence's ``handoff_interval`` while cities wait); a sweep that was throttled backs off. Each listing feeds the :class:`~sagemaker_fleet.dispatch.RunTracker` the triggerer uses.
- :class:`PerJobPoller` is the stock trigger: one DescribeTrainingJob per job every interval until it is terminal.

Every call goes through the engine, so its counters (and its throttling) see exactly these calls.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING, Any, Unpack

from sagemaker_fleet.dispatch.shell import DENIED, Answer, Swept
from sagemaker_fleet.dispatch.sweep import sweep_once
from sagemaker_fleet.dispatch.waiters import Waiters
from sagemaker_fleet.fleetspec.names import run_name_contains
from sagemaker_fleet.jobs.paging import JobFilters, ListingError, job_listing
from sagemaker_fleet.jobs.statuses import ACCESS_DENIED_CODES, KEEP_ALIVE_REFUSALS
from sagemaker_fleet.jobs.statuses import TERMINAL_STATUSES as TERMINAL
from sagemaker_fleet.jobs.statuses import THROTTLING_CODES as THROTTLED
from sagemaker_fleet.sim.errors import SimApiError
from sagemaker_fleet.simulate.coroutines import run_coroutine
from sagemaker_fleet.simulate.errors import SimulationError

if TYPE_CHECKING:
    import datetime as dt

    from sagemaker_fleet.dispatch.shell import Listed, PoolEnd
    from sagemaker_fleet.dispatch.state import Wait
    from sagemaker_fleet.dispatch.sweep import RunSweeps
    from sagemaker_fleet.simulate.endpoint import Endpoint
    from sagemaker_fleet.simulate.timeline import Timeline

#: Gets a watched job's DescribeTrainingJob response once it is terminal.
Deliver = Callable[[dict[str, Any]], None]


class _Throttled(Exception):
    """A call of the sweep was throttled: the sweep failed and backs off."""


def _api(call: Callable[[Any], dict[str, Any]], argument: Any) -> dict[str, Any]:
    """The call's response; :class:`_Throttled` when it was throttled; any other error is a bug of the driver."""
    try:
        return call(argument)
    except SimApiError as exc:
        if exc.code in THROTTLED:
            raise _Throttled from exc
        raise SimulationError(f"{call.__name__}({argument!r}) failed: {exc}") from exc


class SimulatedFleetPoller:
    """The triggerer's shared poller and dispatcher in virtual time (see the module docstring): cities wait for
    their turn here (``admitted`` is called in the sweep that lets them through) and jobs are watched here."""

    def __init__(
        self,
        engine: Endpoint,
        timeline: Timeline,
        run_key: str,
        interval: float,
        sweeps: RunSweeps,
        board: dict[str, tuple[float, object]] | None = None,
    ) -> None:
        self.engine = engine
        #: the account's sharing board (S3 objects by "bucket/key": their LastModified and record), shared by the
        #: runs of one engine
        self.board: dict[str, tuple[float, object]] = {} if board is None else board
        self.timeline = timeline
        self.name_contains = run_name_contains(run_key)
        self.interval = interval
        # The run's dispatch (:func:`~sagemaker_fleet.dispatch.build.build_run_dispatch`), with no floor: a listing of
        # the run's whole past has no CreationTimeAfter here, where the triggerer starts it the day before a dated
        # run key. Virtual time starts at the simulator's epoch, not on the run key's day, so that floor would hide
        # every job of the simulated run.
        self.sweeps = sweeps
        self.watchers: dict[str, Deliver] = {}
        self.waiters: Waiters[Callable[[], None]] = Waiters(sweeps)
        self.running = False

    def watch(self, name: str, created_after: dt.datetime | None, deliver: Deliver) -> None:
        """Watch job ``name``; ``deliver`` gets its description once a sweep sees it ended."""
        self.sweeps.watch(name, created_after)
        self.watchers[name] = deliver
        self.kick()

    def wait_turn(self, wait: Wait, admitted: Callable[[], None]) -> None:
        """``wait.city`` waits for its turn; ``admitted()`` is called when the dispatch lets it create its job."""
        self.kick()
        self._admit(self.waiters.add(wait, admitted, self.engine.now()))

    def release(self, city: str) -> None:
        """``city`` was admitted but created no job (the quota refused it): its place goes to the next."""
        self._admit(self.waiters.release(city, self.engine.now()))

    def kick(self) -> None:
        """Sweep now unless a sweep is already scheduled."""
        if not self.running:
            self.running = True
            self.sweeps.restart()
            self.timeline.at(self.engine.now(), self._sweep)

    @staticmethod
    def _admit(turns: list[Callable[[], None]]) -> None:
        for admitted in turns:
            admitted()

    def _sweep(self) -> None:
        if not self.waiters.pending():
            self.running = False
            return
        run_coroutine(sweep_once(self.sweeps, self, self.interval), self._swept)

    def _swept(self, swept: Swept) -> None:
        """A throttled sweep backed off; any other error is the driver's (the simulation stops with it)."""
        if swept.error is not None and not isinstance(swept.error, _Throttled):
            raise swept.error
        self.timeline.at(self.engine.now() + swept.delay, self._sweep)

    # ------------------------------------------------------------------------------------------ the sweep's I/O

    def now(self) -> float:
        return self.engine.now()

    def wall(self) -> float:
        """Virtual time is the board's clock too: the simulated account's records are posted and go stale in it."""
        return self.engine.now()

    def waiting(self) -> list[Wait]:
        return self.waiters.waiting()

    async def list_jobs(self, *, account: bool, **filters: Unpack[JobFilters]) -> list[dict[str, Any]]:
        return self._list("" if account else self.name_contains, **filters)

    def _list(self, name_contains: str, **filters: Unpack[JobFilters]) -> list[dict[str, Any]]:
        """Every summary of a listing (the hook's request and paging rule, :func:`job_listing`): a listing that
        does not end is a fault of the simulator, not the run's jobs."""
        listing = job_listing(name_contains, **filters)
        seen: list[dict[str, Any]] = []
        while listing.request is not None:
            page = _api(self.engine.list_training_jobs, listing.request)
            try:
                seen += listing.take(page)
            except ListingError as exc:
                raise SimulationError(str(exc)) from exc
        return seen

    async def describe(self, names: Sequence[str], *, foreign: bool) -> list[Answer]:
        """Each job described in turn; a throttled one is its answer (the sweep fails, as in the triggerer), and so
        is :data:`DENIED` for another run's job the credentials may not describe."""
        answers: list[Answer] = []
        for name in names:
            try:
                answers.append(self.engine.describe_training_job(name))
            except SimApiError as exc:
                if foreign and exc.code in ACCESS_DENIED_CODES:
                    answers.append(DENIED)
                elif exc.code in THROTTLED:
                    answers.append(_Throttled(f"DescribeTrainingJob({name!r})"))
                else:
                    raise SimulationError(f"DescribeTrainingJob({name!r}) failed: {exc}") from exc
        return answers

    async def end_pool(self, end: PoolEnd) -> None:
        """UpdateTrainingJob to keep-alive 0: a running job then ends without a pool, an idle pool ends now. A job
        or pool that changed meanwhile refuses it, which leaves nothing to do, and so does an engine that refuses
        keep-alive changes of running jobs (the pool that job keeps is ended by a later sweep, once Available)."""
        try:
            self.engine.update_training_job(
                {"TrainingJobName": end.job_name, "ResourceConfig": {"KeepAlivePeriodInSeconds": 0}}
            )
        except SimApiError as exc:
            if exc.code in KEEP_ALIVE_REFUSALS:
                return
            if exc.code in THROTTLED:
                raise _Throttled from exc
            raise SimulationError(f"UpdateTrainingJob({end.job_name}) failed: {exc}") from exc

    async def read_board(self, bucket: str, prefix: str, modified_after: float) -> list[object]:
        place = f"{bucket}/{prefix}"
        return [
            record
            for key, (modified, record) in self.board.items()
            if key.startswith(place) and modified >= modified_after
        ]

    async def post_board(self, bucket: str, key: str, record: Mapping[str, Any]) -> bool:
        self.board[f"{bucket}/{key}"] = (self.wall(), record)
        return True

    def hand_out(self, listed: Listed) -> None:
        """Only the admissions: a simulated city acts on its job's end, never on a running job's summary."""
        self._admit(self.waiters.admitted(listed.admitted))

    def deliver(self, name: str, description: Mapping[str, Any] | None) -> None:
        if description is not None and description.get("TrainingJobStatus") in TERMINAL:
            self.sweeps.unwatch(name)
            self.watchers.pop(name)(dict(description))


class PerJobPoller:
    """The stock trigger: one DescribeTrainingJob per job every interval until it is terminal."""

    def __init__(self, engine: Endpoint, timeline: Timeline, interval: float) -> None:
        self.engine = engine
        self.timeline = timeline
        self.interval = interval

    def watch(self, name: str, created_at: float, deliver: Deliver) -> None:
        self.timeline.at(created_at + self.interval, lambda: self._poll(name, deliver))

    def _poll(self, name: str, deliver: Deliver) -> None:
        try:
            described: dict[str, Any] | None = _api(self.engine.describe_training_job, name)
        except _Throttled:
            described = None
        if described is not None and described["TrainingJobStatus"] in TERMINAL:
            deliver(described)
        else:
            self.timeline.at(self.engine.now() + self.interval, lambda: self._poll(name, deliver))
