"""What the run's tracker keeps per job and what a waiting city asks with (pure), and the listing's margin."""

from __future__ import annotations

import datetime as dt
from collections import Counter
from dataclasses import dataclass

from sagemaker_fleet.jobs.statuses import POOL_SETTLED
from sagemaker_fleet.jobs.statuses import TERMINAL_STATUSES as TERMINAL

Counts = Counter[str]
#: The listing starts this long before the oldest unsettled job's creation (clock skew, listing lag).
CREATION_MARGIN = dt.timedelta(minutes=5)


@dataclass
class JobState:
    """One job of the run as last listed or described."""

    city: str
    attempt: int
    status: str
    pool: str | None
    created: dt.datetime | None
    retained: float = 0.0  #: ResourceRetainedBillableTimeInSeconds: > 0 on a Terminated pool that idled
    reused_by: str | None = None  #: ReusedByJob: the job that took its pool (maybe another run's)

    @property
    def settled(self) -> bool:
        """Terminal and holding no pool: later listings may leave it out without losing anything."""
        return self.status in TERMINAL and (self.pool is None or self.pool in POOL_SETTLED)


@dataclass(frozen=True)
class Wait:
    """A city asking to start its ``attempt``-th submission. ``first``: it has no job in this run yet, so it waits
    for its turn in the group (a spot re-submission or a retry already had its turn and waits for room only);
    ``since``: when it began waiting (seconds, the caller's clock)."""

    city: str
    attempt: int = 1
    first: bool = True
    since: float = 0.0
