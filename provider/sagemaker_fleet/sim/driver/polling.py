"""How the orchestrator learns that a job ended — the API load each strategy puts on the control plane.

- :class:`BatchedPoller` is ``triggers/poller.py``'s ``FleetPoller``: while jobs are watched or cities wait, one
  ListTrainingJobs sweep of the run's jobs (``NameContains`` the run key, ``CreationTimeAfter`` the oldest job that
  can still change, less 5 min, pages of 100) per interval (at most 10 s while cities wait), backing off ×2 (up to
  ×8) on throttling; one DescribeTrainingJob per job once its summary is terminal. Each listing feeds the same
  :class:`~sagemaker_fleet.dispatch.RunTracker` the triggerer uses, which decides who starts.
- :class:`PerJobPoller` is the stock trigger: one DescribeTrainingJob per job every interval until it is terminal.

Every call goes through the engine, so its counters (and its throttling) see exactly these calls.
"""

from __future__ import annotations

from collections.abc import Callable
from contextlib import suppress
from typing import TYPE_CHECKING, Any, Protocol

from sagemaker_fleet.dispatch.tracker import CREATION_MARGIN, HANDOFF_INTERVAL
from sagemaker_fleet.jobs.paging import ListingError, PagedListing
from sagemaker_fleet.jobs.statuses import TERMINAL_STATUSES as TERMINAL
from sagemaker_fleet.jobs.statuses import THROTTLING_CODES as THROTTLED
from sagemaker_fleet.sim.driver.errors import SimulationError
from sagemaker_fleet.sim.errors import SimApiError

if TYPE_CHECKING:
    from sagemaker_fleet.dispatch.tracker import RunTracker
    from sagemaker_fleet.sim.driver.timeline import Timeline
    from sagemaker_fleet.sim.engine import SimEngine

PAGE_SIZE = 100
CREATION_MARGIN_SECONDS = CREATION_MARGIN.total_seconds()
MAX_BACKOFF_FACTOR = 8

Deliver = Callable[[str, dict[str, Any]], None]


class Poller(Protocol):
    def watch(self, name: str, created_at: float) -> None:
        """Start watching a job just created; ``deliver(name, describe)`` is called once it is terminal."""


def _api(call: Callable[[Any], dict[str, Any]], argument: Any) -> dict[str, Any] | None:
    """The call's response, or None when it was throttled; any other error is a bug of the driver."""
    try:
        return call(argument)
    except SimApiError as exc:
        if exc.code in THROTTLED:
            return None
        raise SimulationError(f"{call.__name__}({argument!r}) failed: {exc}") from exc


class BatchedPoller:
    """The triggerer's shared poller in virtual time. With a ``tracker`` (the planned strategy) every listing
        also feeds the run's :class:`RunTracker`, ``on_listing`` dispatches from it (the hand-off happens in the sweep
        that saw a job end), the running jobs of a group with no city left to start get keep-alive 0 and idle pools no
    city will take over are ended, as ``FleetPoller`` does."""

    def __init__(
        self,
        engine: SimEngine,
        timeline: Timeline,
        run_key: str,
        interval: float,
        deliver: Deliver,
        tracker: RunTracker | None = None,
        handoff_interval: float = HANDOFF_INTERVAL,
    ) -> None:
        self.engine = engine
        self.timeline = timeline
        self.name_contains = f"-{run_key}"
        self.interval = interval
        self.deliver = deliver
        self.tracker = tracker
        self.handoff_interval = handoff_interval
        #: the dispatch: called after each listing; returns whether cities still wait for their turn
        self.on_listing: Callable[[float], bool] = lambda now: False
        self.waiting = False
        self.watches: dict[str, float] = {}  # name → creation time, insertion-ordered
        self.running = False
        self.backoff = 1

    def watch(self, name: str, created_at: float) -> None:
        self.watches[name] = created_at
        self.kick()

    def kick(self) -> None:
        """Sweep now unless a sweep is already scheduled."""
        if not self.running:
            self.running = True
            self.backoff = 1
            self.timeline.at(self.engine.now(), self._sweep)

    def _sweep(self) -> None:
        if not self.watches and not self.waiting and (self.tracker is None or self.tracker.listed_whole):
            self.running = False
            return
        window = self._window()
        summaries = self._list(window)
        if summaries is None:
            self.backoff = min(MAX_BACKOFF_FACTOR, self.backoff * 2)
        else:
            self.backoff = max(1, self.backoff // 2)
            if self.tracker is not None:
                self.tracker.observe(summaries, whole=window is None)
                self.waiting = self.on_listing(self.engine.now())
            self._describe_terminal({s["TrainingJobName"]: s["TrainingJobStatus"] for s in summaries})
            self._end_surplus_pools()
        interval = min(self.interval, self.handoff_interval) if self.waiting else self.interval
        self.timeline.at(self.engine.now() + interval * self.backoff, self._sweep)

    def _window(self) -> float | None:
        """CreationTimeAfter as FleetPoller computes it: the oldest watched or unsettled job, less the margin."""
        starts = [created - CREATION_MARGIN_SECONDS for created in self.watches.values()]
        if self.tracker is not None:
            tracked = self.tracker.window_start()
            if tracked is None:
                return None
            starts.append(tracked.timestamp())
        return min(starts) if starts else None

    def _list(self, window: float | None) -> list[dict[str, Any]] | None:
        """Every summary of the run's listing; None when a page was throttled. Pages are followed by the hook's
        rule (:class:`PagedListing`): a listing that does not end is a fault of the simulator, not the run's jobs."""
        request: dict[str, Any] = {"NameContains": self.name_contains, "MaxResults": PAGE_SIZE}
        if window is not None:
            request["CreationTimeAfter"] = window
        listing = PagedListing(f"ListTrainingJobs({self.name_contains!r})", request, "TrainingJobSummaries")
        seen: list[dict[str, Any]] = []
        while listing.request is not None:
            page = _api(self.engine.list_training_jobs, listing.request)
            if page is None:
                return None
            try:
                seen += listing.take(page)
            except ListingError as exc:
                raise SimulationError(str(exc)) from exc
        return seen

    def _describe_terminal(self, statuses: dict[str, str]) -> None:
        for name in [name for name in self.watches if statuses.get(name) in TERMINAL]:
            described = _api(self.engine.describe_training_job, name)
            if described is None:
                continue  # throttled: the next sweep sees the job terminal again and describes it then
            del self.watches[name]
            if self.tracker is not None:
                self.tracker.observe([described])
            self.deliver(name, described)

    def _end_surplus_pools(self) -> None:
        if self.tracker is None:
            return
        for name in self.tracker.tail_jobs():
            self.tracker.tail_released.add(name)
            # refused if it ended meanwhile: surplus_pools then ends its pool, if it kept one
            self._keep_alive_zero(name)
        for name in self.tracker.surplus_pools():
            self.tracker.released.add(name)
            self._keep_alive_zero(name)  # refused if the pool expired or was taken meanwhile

    def _keep_alive_zero(self, name: str) -> None:
        """UpdateTrainingJob to keep-alive 0: a running job then ends without a pool, an idle pool ends now. A job
        or pool that changed meanwhile refuses it, which leaves nothing to do."""
        with suppress(SimApiError):
            self.engine.update_training_job(
                {"TrainingJobName": name, "ResourceConfig": {"KeepAlivePeriodInSeconds": 0}}
            )


class PerJobPoller:
    def __init__(self, engine: SimEngine, timeline: Timeline, interval: float, deliver: Deliver) -> None:
        self.engine = engine
        self.timeline = timeline
        self.interval = interval
        self.deliver = deliver

    def watch(self, name: str, created_at: float) -> None:
        self.timeline.at(created_at + self.interval, lambda: self._poll(name))

    def _poll(self, name: str) -> None:
        described = _api(self.engine.describe_training_job, name)
        if described is not None and described["TrainingJobStatus"] in TERMINAL:
            self.deliver(name, described)
        else:
            self.timeline.at(self.engine.now() + self.interval, lambda: self._poll(name))
