"""What the Fleet view reads from SageMaker, cheaply: two batched listings per refresh, describes only for jobs
that moved, and one answer per run shared by every viewer for a few seconds.

A refresh lists the run's jobs once (ListTrainingJobs by the run's name filter and creation window, every page),
then describes only the jobs whose description is not cached or may still change: a job is *final* once it is
terminal and its warm pool is settled (none, Terminated or Reused); a final job's description never changes, so
it is described once for the life of the cache. Never one call per city per refresh.

The account's other jobs (the quota and the warm pools are the account's, not the run's) come from one more listing,
of the account's jobs created since :data:`ACCOUNT_LOOKBACK` before the run's first job (every page, no name
filter). An other run's job that holds capacity — running, or keeping an Available pool — is described once for
its instance type, count and warm-pool key (a job's resources never change: the description is kept while the job
is listed), at most :data:`OTHER_DESCRIBES_PER_REFRESH` a refresh; one the credentials may not describe
(AccessDenied) is not asked for again and shows as unknown. Pools taken from other runs need no call: the listing's
``ReusedByJob`` names the taker. For a fleet that shares, the account's board is read too (:func:`board_records`).
The listing, those descriptions and the board are what the run's tracker in :mod:`.model` reads, as the triggerer's
sweeps give them to its own, so the view explains a wait as the triggerer's log does.

Jobs are read through a :class:`~sagemaker_fleet.jobs.reader.TrainingJobReader` (the plugin passes the hook).
"""

from __future__ import annotations

import dataclasses
import datetime as dt
import json
import logging
import threading
import time
from collections.abc import Callable, Mapping
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from sagemaker_fleet.dispatch.cadence import AWS_CADENCE
from sagemaker_fleet.fleetspec.model import MAX_RUNTIME_AWS_DEFAULT
from sagemaker_fleet.fleetspec.names import run_key_floor, run_name_contains, split_s3_uri
from sagemaker_fleet.fleetview.account import AccountSnapshot
from sagemaker_fleet.fleetview.model import ListingStats
from sagemaker_fleet.jobs.errors import error_code
from sagemaker_fleet.jobs.paging import PageGuard, as_datetime, creation_lookback
from sagemaker_fleet.jobs.statuses import ACCESS_DENIED_CODES, holds_capacity, pool_status, settled
from sagemaker_fleet.jobs.statuses import ACTIVE_STATUSES as ACTIVE

if TYPE_CHECKING:
    from sagemaker_fleet.jobs.reader import TrainingJobReader

log = logging.getLogger(__name__)

DESCRIBE_WORKERS = 4
#: Seconds one answer serves every viewer of a run (the page refreshes every few seconds; SageMaker changes slower).
DEFAULT_TTL = 5.0
#: The account's listing covers jobs created since this long before the run's first job (or before now, while the
#: run has none): other runs' jobs that still run or keep a pool beside it. It lists every job every refresh (no
#: status filter: the pools are wanted too), so it reaches back only as far as SageMaker's default runtime, without
#: margin; a job created earlier that still holds capacity is not shown (the dispatcher's census counts it).
ACCOUNT_LOOKBACK = creation_lookback(MAX_RUNTIME_AWS_DEFAULT)
#: DescribeTrainingJob calls a refresh spends on other runs' jobs (the rest wait for the next refresh).
OTHER_DESCRIBES_PER_REFRESH = 24


def is_final(job: Mapping[str, Any]) -> bool:
    """A description that will not change again: the job is :func:`~sagemaker_fleet.jobs.statuses.settled`."""
    return settled(job.get("TrainingJobStatus"), pool_status(job))


def _signature(summary: Mapping[str, Any]) -> tuple[Any, ...]:
    return (
        summary.get("TrainingJobStatus"),
        summary.get("SecondaryStatus"),
        pool_status(summary),
        str(summary.get("LastModifiedTime")),
    )


def board_records(s3: Any, board: str, modified_after: float) -> list[object]:
    """The records of the account's board at ``board`` (an S3 prefix; :mod:`sagemaker_fleet.dispatch.board`) last
    modified at or after ``modified_after`` (seconds since the epoch: older ones are ended runs'), through a boto3
    S3 client: one ListObjectsV2 of the prefix, every page, and one GetObject per record. One that is not JSON is
    skipped, as the triggerer skips it."""
    bucket, prefix = split_s3_uri(board)
    guard = PageGuard(f"ListObjectsV2(s3://{bucket}/{prefix})", "NextContinuationToken")
    request: dict[str, Any] = {"Bucket": bucket, "Prefix": prefix}
    records: list[object] = []
    while True:
        page = s3.list_objects_v2(**request)
        for item in page.get("Contents") or ():
            modified = item.get("LastModified")
            if modified is not None and modified.timestamp() < modified_after:
                continue
            body = s3.get_object(Bucket=bucket, Key=item["Key"])["Body"].read()
            try:
                records.append(json.loads(body))
            except ValueError:
                continue
        token = guard.next(page) if page.get("IsTruncated") else None
        if token is None:
            return records
        request["ContinuationToken"] = token


@dataclass
class RunJobsReader:
    """The describes of one run's jobs, refreshed with as few calls as the run's state allows, what the
    account's other jobs hold and, for a fleet that shares, the account's board (:meth:`read`).

    ``board``: the board's S3 prefix (``sharing.board``; None: the fleet does not share)."""

    run_key: str
    names: Mapping[str, tuple[str, int]]
    board: str | None = None
    cached: dict[str, tuple[tuple[Any, ...], Mapping[str, Any]]] = field(default_factory=dict)
    #: other runs' jobs that hold capacity, as described once (a job's resources never change)
    others: dict[str, Mapping[str, Any]] = field(default_factory=dict)
    #: other runs' jobs the credentials may not describe
    opaque: set[str] = field(default_factory=set)
    #: the account as the latest :meth:`read` saw it
    account: AccountSnapshot = field(default_factory=AccountSnapshot)

    def read(self, reader: TrainingJobReader, s3: Any = None) -> tuple[list[Mapping[str, Any]], ListingStats]:
        """The run's descriptions and the calls made; ``s3``: a boto3 S3 client to read the board with."""
        summaries: list[Mapping[str, Any]] = [
            s
            for s in reader.list_jobs(
                run_name_contains(self.run_key), creation_time_after=run_key_floor(self.run_key)
            )
            if s.get("TrainingJobName") in self.names
        ]
        stale = []
        for summary in summaries:
            name = str(summary["TrainingJobName"])
            hit = self.cached.get(name)
            if hit is None or hit[0] != _signature(summary) or not is_final(hit[1]):
                stale.append(summary)
        with ThreadPoolExecutor(max_workers=DESCRIBE_WORKERS) as pool:
            described = list(pool.map(lambda s: reader.describe(str(s["TrainingJobName"])), stale))
        for summary, description in zip(stale, described, strict=True):
            if description is not None:
                self.cached[str(summary["TrainingJobName"])] = (_signature(summary), description)
        listed = [str(s["TrainingJobName"]) for s in summaries]
        out = [self.cached[name][1] for name in sorted(listed) if name in self.cached]
        others = self._read_account(reader, summaries)
        if self.board is not None and s3 is not None:
            self.account = dataclasses.replace(self.account, board=self._read_board(s3, self.board))
        stats = ListingStats(
            list_calls=2,
            describe_calls=len(stale),
            cached_describes=len(out) - len(stale),
            other_describe_calls=others,
        )
        return out, stats

    def _read_board(self, s3: Any, board: str) -> list[object] | None:
        """The board's records not stale yet, or None when S3 did not answer (the view goes on without them)."""
        try:
            return board_records(s3, board, time.time() - AWS_CADENCE.stale_seconds)
        except Exception:  # noqa: BLE001 - the board refines the waiting reasons; the view shows the rest
            log.warning("the account's sharing board at %s could not be read", board, exc_info=True)
            return None

    def _read_account(self, reader: TrainingJobReader, own: list[Mapping[str, Any]]) -> int:
        """List the account's jobs, describe the other runs' jobs that hold capacity and are not known yet, and
        keep the snapshot; returns the describes made."""
        created = [when for s in own if (when := as_datetime(s.get("CreationTime"))) is not None]
        since = min(created, default=dt.datetime.now(dt.UTC)) - ACCOUNT_LOOKBACK
        others: list[Mapping[str, Any]] = [
            s
            for s in reader.list_jobs("", creation_time_after=since)
            if s.get("TrainingJobName") not in self.names
        ]
        holding = [s for s in others if holds_capacity(s.get("TrainingJobStatus"), pool_status(s))]
        wanted = [
            str(s["TrainingJobName"])
            for s in holding
            if s["TrainingJobName"] not in self.others and s["TrainingJobName"] not in self.opaque
        ][:OTHER_DESCRIBES_PER_REFRESH]

        def describe(name: str) -> Mapping[str, Any] | None:
            try:
                return reader.describe(name)
            except Exception as exc:
                if error_code(exc) not in ACCESS_DENIED_CODES:
                    raise
                self.opaque.add(name)
                return None

        with ThreadPoolExecutor(max_workers=DESCRIBE_WORKERS) as pool:
            for name, description in zip(wanted, pool.map(describe, wanted), strict=True):
                if description is not None and (description.get("ResourceConfig") or {}).get("InstanceType"):
                    self.others[name] = description
        listed = {str(s["TrainingJobName"]) for s in others}
        for name in set(self.others) - listed:  # no longer listed: forget it
            del self.others[name]
        running: dict[str, int] = {}
        pools: dict[str, int] = {}
        unknown = 0
        for summary in holding:
            description = self.others.get(str(summary["TrainingJobName"]))
            if description is None:
                unknown += 1
                continue
            resources = description["ResourceConfig"]
            itype, count = str(resources["InstanceType"]), int(resources.get("InstanceCount", 1))
            counts = running if summary.get("TrainingJobStatus") in ACTIVE else pools
            counts[itype] = counts.get(itype, 0) + count
        givers = {
            str(reused_by): str(s["TrainingJobName"])
            for s in others
            if (reused_by := (s.get("WarmPoolStatus") or {}).get("ReusedByJob")) in self.names
        }
        self.account = AccountSnapshot(
            listed_since=since,
            other_running=running,
            other_pools=pools,
            other_unknown=unknown,
            other_denied=len(self.opaque & listed),
            givers=givers,
            listed=others,
            described={name: self.others[name] for name in sorted(self.others)},
        )
        return len(wanted)


@dataclass
class _Entry:
    lock: threading.Lock = field(default_factory=threading.Lock)
    value: Any = None
    at: float = float("-inf")
    used: float = float("-inf")
    state: Any = None  # the caller's own state kept between refreshes (a RunJobsReader)


class ViewCache:
    """Answers per key (``(dag_id, run_id)``), shared between viewers for ``ttl`` seconds; an answer that ``keep``
    says is still good (an ended run's, while the run is the one it was read from) is served past its ``ttl``.
    Concurrent viewers of one run wait for the one refresh in progress instead of each starting their own. At most
    ``max_entries`` runs are kept, the least recently viewed dropped first.

    An answer is whatever ``compute`` returns, the same for every viewer of the run: anything that depends on who
    asks is derived from it per request, never stored under the run's key alone."""

    def __init__(
        self, ttl: float = DEFAULT_TTL, clock: Callable[[], float] = time.monotonic, max_entries: int = 256
    ) -> None:
        self.ttl = ttl
        self.clock = clock
        self.max_entries = max_entries
        self._entries: dict[tuple[str, str], _Entry] = {}
        self._lock = threading.Lock()

    def __len__(self) -> int:
        return len(self._entries)

    def get(
        self,
        key: tuple[str, str],
        compute: Callable[[Any], tuple[Any, Any]],
        keep: Callable[[Any], bool] | None = None,
    ) -> Any:
        """The cached answer, or ``compute(state)`` → (answer, state to keep) when it is older than ``ttl`` and
        ``keep(answer)`` (if given) is false."""
        with self._lock:
            entry = self._entries.get(key)
            if entry is None:
                if len(self._entries) >= self.max_entries:
                    oldest = min(self._entries, key=lambda k: self._entries[k].used)
                    del self._entries[oldest]
                entry = self._entries[key] = _Entry()
            entry.used = self.clock()
        with entry.lock:
            if self.clock() - entry.at < self.ttl or (
                entry.value is not None and keep is not None and keep(entry.value)
            ):
                return entry.value
            entry.value, entry.state = compute(entry.state)
            entry.at = self.clock()
            return entry.value
