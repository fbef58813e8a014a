"""How the orchestrator learns that a job ended — the API load each strategy puts on the control plane.

- :class:`BatchedPoller` is ``triggers/poller.py``'s ``FleetPoller``: while jobs are watched, one ListTrainingJobs
  sweep of the run's running jobs (``NameContains`` the run key, ``StatusEquals=InProgress``, ``CreationTimeAfter``
  the earliest watched creation − 5 min, pages of 100) per interval, backing off ×2 (up to ×8) on throttling; one
  DescribeTrainingJob per watched job missing from that listing (it has ended). A sweep starts at once when the first job is watched; the poller stops at a sweep that
  finds nothing watched (a job watched later starts it again, with a fresh ``CreationTimeAfter``).
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
#: The batched poller lists jobs created since its earliest watched job, less this margin (clock skew).
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
        self.watches: dict[str, None] = {}  # insertion-ordered set
        self.created_after: float | None = None
        self.running = False
        self.backoff = 1

    def watch(self, name: str, created_at: float) -> None:
        self.watches[name] = None
        if self.created_after is None or created_at < self.created_after:
            self.created_after = created_at
        if not self.running:
            self.running = True
            self.backoff = 1
            self.timeline.at(self.engine.now(), self._sweep)

    def _sweep(self) -> None:
        if not self.watches:
            self.running = False
            self.created_after = None
            return
        summaries = self._list()
        if summaries is None:
            self.backoff = min(MAX_BACKOFF_FACTOR, self.backoff * 2)
        else:
            self.backoff = max(1, self.backoff // 2)
            self._describe_terminal(summaries)
        self.timeline.at(self.engine.now() + self.interval * self.backoff, self._sweep)

    def _list(self) -> dict[str, str] | None:
        """Job name → TrainingJobStatus for the run's running jobs; None when a page was throttled."""
        assert self.created_after is not None
        request: dict[str, Any] = {
            "NameContains": self.name_contains,
            "MaxResults": PAGE_SIZE,
            "CreationTimeAfter": self.created_after - CREATION_MARGIN_SECONDS,
            "StatusEquals": "InProgress",
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
        for name in [name for name in self.watches if statuses.get(name) in (None, *TERMINAL)]:
            described = _api(self.engine.describe_training_job, name)
            if described is None:
                continue  # throttled: the next sweep misses the job again and describes it then
            if described["TrainingJobStatus"] in TERMINAL:
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
