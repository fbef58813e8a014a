"""Warm pools handed between the run and other runs of the account (pure: :mod:`.collect` makes the calls).

SageMaker matches warm pools by key across the account, not per fleet: a job of this run may start on the pool of
another run's job (another fleet's, the same fleet's manual run, another team's), and another run's job may take
the pool of a job of this run. Only the giver says so (its ``WarmPoolStatus.ReusedByJob``):

- **given**: a job of the run whose ``ReusedByJob`` is not a job of the run — read from the run's own describes;
- **taken**: a job of the run named in the ``ReusedByJob`` of a job that is not the run's. Finding that giver takes
  a look at the account: :func:`giver_listing` (one ListTrainingJobs of the account's jobs whose pool was
  ``Reused``), then a DescribeTrainingJob only of the other runs' jobs :func:`to_describe` picks (those that
  handed a pool to one of the run's jobs, for the image they ran, and those whose listing summary leaves out
  ``ReusedByJob`` but ended while one of the run's jobs could have taken their pool).

A warm start on another run's pool counts once: as the taker's warm start (rule 1 of :mod:`sagemaker_fleet.jobs.starts`,
evidence ``reused-pool``), in the taker's run; the giver's own start is never read from its ``ReusedByJob``.
"""

from __future__ import annotations

import dataclasses
import datetime as dt
from collections.abc import Container, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from sagemaker_fleet.fleetspec.model import KEEP_ALIVE_GUIDE_MAX, MAX_RUNTIME_LIMIT
from sagemaker_fleet.jobs.paging import as_datetime, creation_lookback

if TYPE_CHECKING:
    from sagemaker_fleet.cost.disclosure import Disclosure

#: The keep-alive the developer guide documents as the longest: a pool is taken at most this long after its job's
#: end (the report's assumption; the API takes up to 6 hours, which a spec is warned about).
LONGEST_KEEP_ALIVE = dt.timedelta(seconds=KEEP_ALIVE_GUIDE_MAX)
#: The listing reaches this far back before the first candidate's creation: a giver ran for up to the longest
#: MaxRuntimeInSeconds and handed its pool on within :data:`LONGEST_KEEP_ALIVE`.
GIVER_LOOKBACK = creation_lookback(MAX_RUNTIME_LIMIT, KEEP_ALIVE_GUIDE_MAX)


@dataclass(frozen=True)
class Giver:
    """The other run's job whose pool a job of the run started on, and its training image (None: not described)."""

    job_name: str
    training_image: str | None = None


@dataclass(frozen=True)
class OtherRunsPools:
    """What the report found out about pools the run took from other runs' jobs.

    ``looked_up``: the account was looked at (False: no job of the run could have taken another run's pool, or the
    caller did not look); ``givers``: job of the run → the giver; ``unknown``: other runs' jobs the report needed to
    describe and the credentials may not (AccessDenied); ``listing_denied``: the account's listing itself was
    refused (then nothing is known of pools taken from other runs); ``unknown_not_shown``: how many of ``unknown``
    a report left out by name (:meth:`disclosed`)."""

    givers: Mapping[str, Giver] = field(default_factory=dict)
    unknown: tuple[str, ...] = ()
    unknown_not_shown: int = 0
    looked_up: bool = False
    listing_denied: bool = False
    list_calls: int = 0
    describe_calls: int = 0

    def to_json(self) -> dict[str, Any]:
        return {
            "looked_up": self.looked_up,
            "listing_denied": self.listing_denied,
            "unknown_jobs": list(self.unknown),
            "unknown_jobs_not_shown": self.unknown_not_shown,
            "list_calls": self.list_calls,
            "describe_calls": self.describe_calls,
        }

    def disclosed(self, disclosure: Disclosure) -> OtherRunsPools:
        """The same look at the account, naming only the jobs ``disclosure`` shows (the others counted)."""
        unknown = tuple(name for name in self.unknown if disclosure.shows(name))
        return dataclasses.replace(
            self,
            givers={taker: g for taker, g in self.givers.items() if disclosure.shows(g.job_name)},
            unknown=unknown,
            unknown_not_shown=self.unknown_not_shown + len(self.unknown) - len(unknown),
        )


def _pool(job: Mapping[str, Any]) -> Mapping[str, Any]:
    return job.get("WarmPoolStatus") or {}


def candidates(describes: Iterable[Mapping[str, Any]]) -> dict[str, dt.datetime | None]:
    """The run's jobs that may have started on another run's pool, with their creation: not on spot (no warm pool)
    and not handed a pool by another job of the run (``describes``: the run's DescribeTrainingJob responses)."""
    jobs = list(describes)
    handed = {_pool(job).get("ReusedByJob") for job in jobs}
    return {
        str(job["TrainingJobName"]): as_datetime(job.get("CreationTime"))
        for job in jobs
        if not job.get("EnableManagedSpotTraining") and job.get("TrainingJobName") not in handed
    }


def giver_listing(takers: Mapping[str, dt.datetime | None]) -> dt.datetime | None:
    """The listing's CreationTimeAfter: :data:`GIVER_LOOKBACK` before the first candidate (None: no bound)."""
    created = [when for when in takers.values() if when is not None]
    return min(created) - GIVER_LOOKBACK if created else None


def to_describe(
    summaries: Iterable[Mapping[str, Any]],
    own: Container[str],
    takers: Mapping[str, dt.datetime | None],
) -> list[str]:
    """The other runs' jobs of the listing (jobs whose pool was Reused) to describe: those whose ``ReusedByJob``
    names a candidate (for their image), and those whose summary leaves ``ReusedByJob`` out and that ended no
    earlier than :data:`LONGEST_KEEP_ALIVE` before the first candidate and no later than the last one's creation."""
    created = [when for when in takers.values() if when is not None]
    first, last = (min(created), max(created)) if created else (None, None)
    names = []
    for summary in summaries:
        name = str(summary.get("TrainingJobName"))
        if name in own:
            continue
        if _pool(summary).get("Status") not in (None, "Reused"):
            continue
        reused_by = _pool(summary).get("ReusedByJob")
        if reused_by is not None:
            if reused_by in takers:
                names.append(name)
            continue
        ended = as_datetime(summary.get("TrainingEndTime"))
        if ended is None or first is None or last is None or first - LONGEST_KEEP_ALIVE <= ended <= last:
            names.append(name)
    return names


def other_runs_pools(
    summaries: Sequence[Mapping[str, Any]],
    described: Mapping[str, Mapping[str, Any] | None],
    takers: Container[str],
    *,
    denied: Iterable[str] = (),
    list_calls: int = 0,
) -> OtherRunsPools:
    """The givers from the listing's summaries and the descriptions (``described``: name → description, None for
    a job gone since), for the run's candidate ``takers``; ``denied``: jobs the credentials may not describe."""
    givers: dict[str, Giver] = {}
    for summary in summaries:
        name = str(summary.get("TrainingJobName"))
        description = described.get(name)
        reused_by = _pool(description or {}).get("ReusedByJob") or _pool(summary).get("ReusedByJob")
        if reused_by is None or reused_by not in takers:
            continue
        image = ((description or {}).get("AlgorithmSpecification") or {}).get("TrainingImage")
        givers[str(reused_by)] = Giver(name, str(image) if image else None)
    return OtherRunsPools(
        givers=givers,
        unknown=tuple(sorted(set(denied))),
        looked_up=True,
        list_calls=list_calls,
        describe_calls=len(described) + len(set(denied)),
    )
