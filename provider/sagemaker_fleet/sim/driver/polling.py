"""How the orchestrator learns that a job ended — the API load each strategy puts on the control plane.

- :class:`SimulatedFleetPoller` is the triggerer's ``FleetPoller`` in virtual time: the same sweep
  (:class:`~sagemaker_fleet.dispatch.sweep.RunSweeps`: listing window, jobs missing from a listing, describes, the
  hand-off, pool ends, back-off) with the simulator's engine as its endpoint. While jobs are watched or cities wait,
  one ListTrainingJobs sweep of the run's jobs per interval (at most 10 s while cities wait); a sweep that was
  throttled backs off. Each listing feeds the :class:`~sagemaker_fleet.dispatch.RunTracker` the triggerer uses.
- :class:`PerJobPoller` is the stock trigger: one DescribeTrainingJob per job every interval until it is terminal.

Every call goes through the engine, so its counters (and its throttling) see exactly these calls.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any, Unpack

from sagemaker_fleet.dispatch.sweep import PoolEnd, RunSweeps
from sagemaker_fleet.dispatch.tracker import HANDOFF_INTERVAL
from sagemaker_fleet.fleetspec.names import run_name_contains
from sagemaker_fleet.jobs.paging import JobFilters, ListingError, job_listing
from sagemaker_fleet.jobs.statuses import KEEP_ALIVE_REFUSALS
from sagemaker_fleet.jobs.statuses import TERMINAL_STATUSES as TERMINAL
from sagemaker_fleet.jobs.statuses import THROTTLING_CODES as THROTTLED
from sagemaker_fleet.sim.driver.errors import SimulationError
from sagemaker_fleet.sim.errors import SimApiError

if TYPE_CHECKING:
    import datetime as dt

    from sagemaker_fleet.dispatch.tracker import RunTracker, Wait
    from sagemaker_fleet.sim.driver.endpoint import Endpoint
    from sagemaker_fleet.sim.driver.timeline import Timeline

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
        tracker: RunTracker,
        handoff_interval: float = HANDOFF_INTERVAL,
        board: dict[str, object] | None = None,
    ) -> None:
        self.engine = engine
        #: the account's sharing board (S3 objects by "bucket/key"), shared by the runs of one engine
        self.board: dict[str, object] = {} if board is None else board
        self.timeline = timeline
        self.name_contains = run_name_contains(run_key)
        self.interval = interval
        # No floor: a listing of the run's whole past has no CreationTimeAfter here, where the triggerer starts it
        # the day before a dated run key. Virtual time starts at the simulator's epoch, not on the run key's day,
        # so that floor would hide every job of the simulated run.
        self.sweeps = RunSweeps(tracker, floor=None, handoff_interval=handoff_interval)
        self.watchers: dict[str, Deliver] = {}
        self.waiters: dict[str, tuple[Wait, Callable[[], None]]] = {}
        self.running = False

    def watch(self, name: str, created_after: dt.datetime | None, deliver: Deliver) -> None:
        """Watch job ``name``; ``deliver`` gets its description once a sweep sees it ended."""
        self.sweeps.watch(name, created_after)
        self.watchers[name] = deliver
        self.kick()

    def wait_turn(self, wait: Wait, admitted: Callable[[], None]) -> None:
        """``wait.city`` waits for its turn; ``admitted()`` is called when the dispatch lets it create its job."""
        self.waiters[wait.city] = (wait, admitted)
        self.kick()
        self._admit(self.sweeps.admit(self._waiting(), self.engine.now()))

    def release(self, city: str) -> None:
        """``city`` was admitted but created no job (the quota refused it): its place goes to the next."""
        tracker = self.sweeps.tracker
        assert tracker is not None
        tracker.release(city)
        self._admit(self.sweeps.admit(self._waiting(), self.engine.now()))

    def kick(self) -> None:
        """Sweep now unless a sweep is already scheduled."""
        if not self.running:
            self.running = True
            self.sweeps.backoff.factor = 1
            self.timeline.at(self.engine.now(), self._sweep)

    def _waiting(self) -> list[Wait]:
        return [wait for wait, _ in self.waiters.values()]

    def _admit(self, cities: list[str] | tuple[str, ...]) -> None:
        for city in cities:
            _, admitted = self.waiters.pop(city)
            admitted()

    def _busy(self) -> bool:
        tracker = self.sweeps.tracker
        return (
            bool(self.watchers or self.waiters)
            or (tracker is not None and not tracker.listed_whole)
            or self.sweeps.ends_pending()
        )

    def _sweep(self) -> None:
        if not self._busy():
            self.running = False
            return
        sweeps = self.sweeps
        now = self.engine.now()
        try:
            for filters in sweeps.census():
                sweeps.censused(self._list("", **filters), now)
            if (where := sweeps.board_read(now, self.interval)) is not None:
                place = "/".join(where)
                sweeps.board_records([v for k, v in self.board.items() if k.startswith(place)], now, now)
            listing = sweeps.listing()
            summaries = self._list(
                "" if listing.account else self.name_contains, creation_time_after=listing.after
            )
            for name in sweeps.foreign(listing, summaries, now, self.interval):
                sweeps.foreign_described(name, _api(self.engine.describe_training_job, name), now)
            listed = sweeps.listed(listing, summaries, now, self._waiting())
            self._admit(listed.admitted)
            if (post := sweeps.board_post(now, now)) is not None:  # virtual time is the board's clock too
                bucket, key, record = post
                self.board[f"{bucket}/{key}"] = record
                sweeps.board_posted(record, now)
            failed = self._describe_all(listed.describe)
            for end in sweeps.pool_ends():  # decided from the listing: not skipped for a describe that failed
                self._keep_alive_zero(end)
            if failed is not None:
                raise failed
            sweeps.swept(ok=True)
        except _Throttled:
            sweeps.swept(ok=False)
        self.timeline.at(now + sweeps.delay(self.interval, bool(self.waiters)), self._sweep)

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

    def _describe_all(self, names: tuple[str, ...]) -> _Throttled | None:
        """Describe each job; a terminal description goes to its watcher. As in the triggerer, every one is asked
        for, and a throttled one (described again in the next sweep) is returned: it fails the sweep once the
        sweep's pool ends are handed out."""
        throttled: _Throttled | None = None
        for name in names:
            try:
                described = _api(self.engine.describe_training_job, name)
            except _Throttled as exc:
                throttled = exc
                continue
            if self.sweeps.described(name, described) and described.get("TrainingJobStatus") in TERMINAL:
                self.sweeps.unwatch(name)
                self.watchers.pop(name)(described)
        return throttled

    def _keep_alive_zero(self, end: PoolEnd) -> None:
        """UpdateTrainingJob to keep-alive 0: a running job then ends without a pool, an idle pool ends now. A job
        or pool that changed meanwhile refuses it, which leaves nothing to do, and so does an engine that refuses
        keep-alive changes of running jobs (the pool that job keeps is ended by a later sweep, once Available); a
        throttled one is tried again by the next sweep (this one fails, as in the triggerer)."""
        try:
            self.engine.update_training_job(
                {"TrainingJobName": end.job_name, "ResourceConfig": {"KeepAlivePeriodInSeconds": 0}}
            )
        except SimApiError as exc:
            if exc.code in KEEP_ALIVE_REFUSALS:
                return
            self.sweeps.pool_end_failed(end)
            if exc.code in THROTTLED:
                raise _Throttled from exc
            raise SimulationError(f"UpdateTrainingJob({end.job_name}) failed: {exc}") from exc


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
