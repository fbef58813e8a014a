"""ShareBoard: shares and priorities between the runs of one account, and pools handed over on purpose (pure).

Counting the account's jobs (:mod:`.account`) keeps runs within the account's quotas, but first come is first
served: a run that started earlier keeps every instance its next cities can use, and a run that ends a warm-pool
group ends its pools although another run waits for cities of the same matching key. Every fleet but one whose spec
says ``sharing: false`` (docs/concepts/several-fleets.md) takes part in a fair share, in the style of Kueue's
cluster queues and AWS Batch's share-based scheduling, but aware of warm pools:

- **the board**: each such run posts one small record (:class:`RunDemand`) to an S3 prefix every fleet of the
  account names alike — its share and priority, the instances it holds and those its waiting cities need per
  quota, the matching keys its cities wait for and those it has no city left for — when it changes, and at least
  every :attr:`~.cadence.Cadence.heartbeat_seconds`; it reads the others' every :attr:`~.cadence.Cadence.board_read_seconds`. A record
  not renewed for :attr:`~.cadence.Cadence.stale_seconds` is gone (its run ended, or no triggerer runs it). Listing summaries say what a run
  holds, never what it waits for: that is what the board adds;
- **who goes first** (:meth:`ShareBoard.reserve`): per quota, runs waiting for instances are ranked — those within
  their guaranteed share (``share`` × the quota) before those borrowing beyond it; then higher ``priority``; then
  the one furthest below its share; then by name (every run ranks alike from the same records, so two runs never
  both wait for each other). A run admits a city needing new instances only while the quota's free room, less
  what the runs ranked before it wait for, covers it. Idle capacity is borrowed by whoever has work: a run that
  waits for nothing reserves nothing. No running job is ever stopped;
- **a pool's holder** may hand its pool to its own next city of the same key while a run ranked before it waits on
  that quota, but only :data:`OWED_HANDOFFS` times per lane of the group (:meth:`RunTracker.admit`); then the
  group yields: its cities wait like cold ones, and its idle pools are ended so their instances go to the waiting
  run — or, when that run waits for cities of the same key, left to it: a pool of another run with a matching key
  is a warm start for the account;
- **pools handed over on purpose**: a run with no city left of a key keeps that many of the key's pools (keep-alive
  not set to 0, idle pools not ended) as the other runs' records say they wait for, and posts the key among those
  it gives, so the other run takes them at once (not after :data:`~.account.CLAIM_AFTER_LISTINGS` looks). A warm
  start on a pool handed over counts once, as the taker's (the giver's job shows ``ReusedByJob`` naming another
  run's job, which its run does not count as its own warm start);
- **the start**: a run admits no city into new instances until it has read the board
  :attr:`~.cadence.Cadence.start_settle_seconds` after its first record was posted (:attr:`ShareBoard.ready`). Two runs starting
  in the same second — a daily and a weekly DAG scheduled at the same midnight — each see the other's record
  before either admits, and rank alike; without it both took the whole free room from the same listing, and one
  met a quota's worth of ``ResourceLimitExceeded``. A run whose record the other did not see in time admits
  later than the other's creations: its listing shows them. Its own pools are handed on meanwhile (they hold
  their instances already).

Runs of fleets with ``sharing: false`` post nothing and rank after every run that does (share 0, priority 0):
their jobs still count against the quotas. Times on the board are wall-clock seconds (``posted``); everything else uses the shell's
clock.
"""

from __future__ import annotations

import hashlib
import json
import math
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from sagemaker_fleet.dispatch.cadence import AWS_CADENCE, Cadence
from sagemaker_fleet.fleetspec.names import is_run_job, split_s3_uri

if TYPE_CHECKING:
    from sagemaker_fleet.fleetspec.model import SharingSettings
    from sagemaker_fleet.jobs.keys import WarmPoolKey

#: While a run ranked before it waits on the quota, a group may hand its pools to its own cities this many times
#: per lane (its width); then it yields them.
OWED_HANDOFFS = 1
#: Version of the record's format (a reader skips records of another version).
RECORD_VERSION = 1


def quota_name(pool: tuple[str, str]) -> str:
    """A quota as a board record names it: ``ml.m5.xlarge/instances``."""
    return f"{pool[0]}/{pool[1]}"


def key_digest(key: WarmPoolKey) -> str:
    """A matching key as a board record names it (the same for every run: its JSON, hashed)."""
    return hashlib.sha256(json.dumps(key.to_json(), sort_keys=True).encode()).hexdigest()[:16]


def _counts(value: object) -> dict[str, int]:
    if not isinstance(value, Mapping):
        raise TypeError("a mapping of counts")
    return {str(k): int(v) for k, v in value.items() if int(v) > 0}


@dataclass(frozen=True)
class RunDemand:
    """One run's record on the board (see the module docstring); quotas by :func:`quota_name`, keys by
    :func:`key_digest`."""

    fleet: str
    run_key: str
    share: float = 0.0
    priority: int = 0
    held: Mapping[str, int] = field(default_factory=dict)
    blocked: Mapping[str, int] = field(default_factory=dict)  #: instances its waiting cities need, per quota
    need: Mapping[str, int] = field(
        default_factory=dict
    )  #: the instances of its next waiting city, per quota
    wants: Mapping[str, int] = field(default_factory=dict)  #: waiting cities per matching key
    gives: tuple[str, ...] = ()  #: keys it has no city left for (their pools are the others' to take)
    posted: float = 0.0

    def to_json(self) -> dict[str, Any]:
        return {
            "version": RECORD_VERSION,
            "fleet": self.fleet,
            "run_key": self.run_key,
            "share": self.share,
            "priority": self.priority,
            "held": dict(sorted(self.held.items())),
            "blocked": dict(sorted(self.blocked.items())),
            "need": dict(sorted(self.need.items())),
            "wants": dict(sorted(self.wants.items())),
            "gives": sorted(self.gives),
            "posted": self.posted,
        }

    @classmethod
    def from_json(cls, data: object) -> RunDemand | None:
        """The record, or None for anything that is not one of this version (it is skipped, never fatal)."""
        try:
            if not isinstance(data, Mapping) or data.get("version") != RECORD_VERSION:
                return None
            return cls(
                fleet=str(data["fleet"]),
                run_key=str(data["run_key"]),
                share=min(1.0, max(0.0, float(data.get("share", 0.0)))),
                priority=int(data.get("priority", 0)),
                held=_counts(data.get("held", {})),
                blocked=_counts(data.get("blocked", {})),
                need=_counts(data.get("need", {})),
                wants=_counts(data.get("wants", {})),
                gives=tuple(str(k) for k in data.get("gives", ())),
                posted=float(data["posted"]),
            )
        except (KeyError, TypeError, ValueError):
            return None

    def same(self, other: RunDemand | None) -> bool:
        """Whether ``other`` says the same (its post time aside)."""
        return other is not None and self.to_json() | {"posted": 0} == other.to_json() | {"posted": 0}

    def owns(self, job_name: str) -> bool:
        """Whether ``job_name`` is a job of this run (names are ``{fleet}-…-{run_key}[-r<n>]``)."""
        return is_run_job(job_name, self.fleet, self.run_key)

    def rank(self, quota: str, capacity: int) -> tuple[Any, ...]:
        """Its place among the runs waiting on ``quota`` (lower first): within its share, priority, how far below
        its share, name — counting the instances of its next waiting city as held."""
        held = self.held.get(quota, 0) + self.need.get(quota, 1)
        guaranteed = math.floor(self.share * capacity + 1e-9)
        ratio = held / (self.share * capacity) if self.share > 0 else math.inf
        return (held > guaranteed, -self.priority, ratio, held, self.fleet, self.run_key)


class ShareBoard:
    """A run's view of the board and its own record (see the module docstring). The shells do the S3 calls:
    :meth:`read_due` / :meth:`read`, :meth:`to_post` / :meth:`posted`."""

    def __init__(
        self, fleet: str, run_key: str, sharing: SharingSettings, cadence: Cadence = AWS_CADENCE
    ) -> None:
        self.sharing = sharing
        self.cadence = cadence  #: the run's intervals (reads, heartbeat, staleness, settling)
        self.mine = RunDemand(fleet, run_key, sharing.share, sharing.priority)
        self.last: RunDemand | None = None  #: the record as last posted (what the others rank)
        self.others: dict[tuple[str, str], RunDemand] = {}
        self.read_at = -math.inf
        self.posted_at = -math.inf
        self.first_post: float | None = None  #: when the run's first record was to be posted (shell's clock)
        #: the board held the run's own record when first read: the run started before (a restarted triggerer,
        #: or ``airflow dags test``'s next city) and the others have ranked it since, so it need not settle again
        self.seen_before = False
        self.reads = 0  #: board reads that came through

    # ------------------------------------------------------------------------------------------ S3

    @property
    def bucket(self) -> str:
        return split_s3_uri(self.sharing.board)[0]

    @property
    def prefix(self) -> str:
        """The board's prefix in :attr:`bucket` (every record of the account is under it)."""
        return split_s3_uri(self.sharing.board)[1]

    @property
    def object_key(self) -> str:
        return f"{self.prefix}{self.mine.fleet}/{self.mine.run_key}.json"

    def read_due(self, now: float, every: float | None = None) -> bool:
        """Whether the records are to be read now: every ``every`` seconds (the shell's sweep interval), at most
        every :attr:`~.cadence.Cadence.board_read_seconds`."""
        most = self.cadence.board_read_seconds
        return now - self.read_at >= (most if every is None else min(every, most))

    def read(self, records: Iterable[object], now: float, wall: float) -> None:
        """Take the board's records (JSON values; the run's own and stale ones are skipped)."""
        others: dict[tuple[str, str], RunDemand] = {}
        for data in records:
            record = RunDemand.from_json(data)
            if record is None or wall - record.posted > self.cadence.stale_seconds:
                continue
            ident = (record.fleet, record.run_key)
            if ident != (self.mine.fleet, self.mine.run_key):
                others[ident] = record
            elif not self.reads:
                self.seen_before = True
        self.others = others
        self.reads += 1
        self.read_at = now

    def read_as_viewer(self, records: Iterable[object], now: float, wall: float) -> None:
        """Take the board's records as a reader of the run that posts nothing (the Fleet view): the other runs' as
        :meth:`read` does, and the run's own as its triggerer last posted it (:meth:`posted`), which is the
        record the others rank it by; a run whose record is on the board is :attr:`ready`."""
        records = list(records)
        self.read(records, now, wall)
        for data in records:
            record = RunDemand.from_json(data)
            if (
                record is not None
                and (record.fleet, record.run_key) == (self.mine.fleet, self.mine.run_key)
                and wall - record.posted <= self.cadence.stale_seconds
            ):
                self.posted(record.to_json(), now)

    def update(self, demand: RunDemand) -> None:
        """The run's record as of this sweep (posted by the shell when :meth:`to_post` says so)."""
        self.mine = demand

    def to_post(self, now: float, wall: float) -> dict[str, Any] | None:
        """The record to post now (JSON), or None: unchanged since the last post and within the heartbeat."""
        if (
            self.first_post is None
        ):  # whether S3 takes it or not: a failing board delays the start, never stops it
            self.first_post = now
        if self.mine.same(self.last) and now - self.posted_at < self.cadence.heartbeat_seconds:
            return None
        return RunDemand(**{**self.mine.__dict__, "posted": wall}).to_json()

    def posted(self, record: Mapping[str, Any], now: float) -> None:
        self.last = RunDemand.from_json(record)
        self.posted_at = now

    # ------------------------------------------------------------------------------------------ asking

    @property
    def ready(self) -> bool:
        """Whether the run may take new instances: the board was read :attr:`~.cadence.Cadence.start_settle_seconds`
        after the run's first post, so the runs that start with it have ranked it (see the module docstring)."""
        if self.seen_before:
            return True
        return (
            self.first_post is not None
            and self.read_at >= self.first_post + self.cadence.start_settle_seconds
        )

    def reserve(self, quota: str, capacity: int) -> int:
        """Instances of ``quota`` the runs ranked before this one wait for: the room this run leaves them."""
        me = (self.last or self.mine).rank(quota, capacity)
        ahead = sum(
            record.blocked.get(quota, 0)
            for record in self.others.values()
            if record.blocked.get(quota, 0) > 0 and record.rank(quota, capacity) < me
        )
        return min(capacity, ahead)

    def wanted(self, digest: str) -> int:
        """Cities of the other runs waiting for a pool (or room) of the matching key ``digest``."""
        return sum(record.wants.get(digest, 0) for record in self.others.values())

    def gives(self, job_name: str, digest: str) -> bool | None:
        """Whether the run that owns ``job_name`` (another run's job) gives pools of ``digest`` away — it has no city
        left of that key, or its group yields: its pool is this run's to take at once — or keeps them for its own
        next cities (False); None when that run has no record on the board."""
        owners = [record for record in self.others.values() if record.owns(job_name)]
        return any(digest in record.gives for record in owners) if owners else None
