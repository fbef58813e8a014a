"""How the orchestrator learns that a job ended — the API load each strategy puts on the control plane.

- :class:`BatchedPoller` is ``triggers/poller.py``'s ``FleetPoller``: while jobs are watched, one ListTrainingJobs
  sweep of the run's jobs (``NameContains`` the run key, ``CreationTimeAfter`` the oldest still-watched job's
  creation − 5 min, pages of 100) per interval, backing off ×2 (up to ×8) on throttling; one DescribeTrainingJob
  per job once its summary is terminal. A sweep starts at once when the first job is watched; the poller stops at
  a sweep that finds nothing watched (a job watched later starts it again).
- :class:`PerJobPoller` is the stock trigger: one DescribeTrainingJob per job every interval until it is terminal.

Every call goes through the engine, so its counters (and its throttling) see exactly these calls.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any, Protocol

from sagemaker_fleet.sim.driver.errors import SimulationError
from sagemaker_fleet.sim.errors import SimApiError

if TYPE_CHECKING:
    from sagemaker_fleet.sim.driver.timeline import Timeline
    from sagemaker_fleet.sim.engine import SimEngine

TERMINAL = frozenset({"Completed", "Failed", "Stopped"})
THROTTLED = frozenset({"ThrottlingException", "Throttling", "TooManyRequestsException"})
PAGE_SIZE = 100
#: The batched poller lists jobs created since its oldest still-watched job, less this margin (clock skew).
CREATION_MARGIN_SECONDS = 300.0
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
    def __init__(
        self, engine: SimEngine, timeline: Timeline, run_key: str, interval: float, deliver: Deliver
    ) -> None:
        self.engine = engine
        self.timeline = timeline
        self.name_contains = f"-{run_key}"
        self.interval = interval
        self.deliver = deliver
        self.watches: dict[str, float] = {}  # name → creation time, insertion-ordered
        self.running = False
        self.backoff = 1

    def watch(self, name: str, created_at: float) -> None:
        self.watches[name] = created_at
        if not self.running:
            self.running = True
            self.backoff = 1
            self.timeline.at(self.engine.now(), self._sweep)

    def _sweep(self) -> None:
        if not self.watches:
            self.running = False
            return
        summaries = self._list()
        if summaries is None:
            self.backoff = min(MAX_BACKOFF_FACTOR, self.backoff * 2)
        else:
            self.backoff = max(1, self.backoff // 2)
            self._describe_terminal(summaries)
        self.timeline.at(self.engine.now() + self.interval * self.backoff, self._sweep)

    def _list(self) -> dict[str, str] | None:
        """Job name → TrainingJobStatus for every job of the run's listing; None when a page was throttled."""
        request: dict[str, Any] = {
            "NameContains": self.name_contains,
            "MaxResults": PAGE_SIZE,
            "CreationTimeAfter": min(self.watches.values()) - CREATION_MARGIN_SECONDS,
        }
        seen: dict[str, str] = {}
        while True:
            page = _api(self.engine.list_training_jobs, request)
            if page is None:
                return None
            for summary in page.get("TrainingJobSummaries", ()):
                seen[summary["TrainingJobName"]] = summary["TrainingJobStatus"]
            token = page.get("NextToken")
            if not token:
                return seen
            request = {**request, "NextToken": token}

    def _describe_terminal(self, statuses: dict[str, str]) -> None:
        for name in [name for name in self.watches if statuses.get(name) in TERMINAL]:
            described = _api(self.engine.describe_training_job, name)
            if described is None:
                continue  # throttled: the next sweep sees the job terminal again and describes it then
            del self.watches[name]
            self.deliver(name, described)


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
