"""Cadence: every interval a fleet run's dispatch and its shells keep, in one frozen value (pure).

A shell builds one per run (the triggerer from its task's settings, ``simulate`` from its options) and gives it to
the run's dispatch once (:func:`~sagemaker_fleet.dispatch.build.build_run_dispatch`); the shells bring only clocks.
The defaults are AWS's: a triggerer against SageMaker. The user-facing settings' defaults (the poll interval, the
capacity back-off) are defined by the layer below, which imports nothing of the package (``contract.py``,
``jobs/attempts.py``); the Cadence takes them as its own.

Clocks: every field is seconds of the shell's clock (the triggerer's event loop: real time; ``simulate``: virtual
time) except :attr:`Cadence.heartbeat_seconds` and :attr:`Cadence.stale_seconds`, seconds of the board's wall clock
(``simulate``: its virtual time too). :meth:`Cadence.scaled` gives the cadence a ``simulate`` run needs to predict a
triggerer that runs in real time against a simulator ``speed`` times faster: what the triggerer counts on its own
clock (or on the wall clock) lasts ``speed`` times as many simulated seconds. What is bound to the jobs' own time
or to AWS's API (:attr:`Cadence.min_aws_poll_seconds`, :attr:`Cadence.watch_margin_seconds`) is not scaled.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, fields, replace

from sagemaker_fleet.contract import CAPACITY_RETRY_SECONDS, CAPACITY_TIMEOUT_SECONDS, POLL_INTERVAL
from sagemaker_fleet.jobs.attempts import CAPACITY_RETRY_MAX_SECONDS

#: The fields :meth:`Cadence.scaled` leaves alone (see the module docstring).
UNSCALED = frozenset({"min_aws_poll_seconds", "min_simulated_poll_seconds", "watch_margin_seconds"})
#: The inline keep-alive covers this many times the shell's measured gap between two tasks: a loaded machine
#: starts tasks slower than the machine it was measured on.
INLINE_GAP_MARGIN = 2.0


@dataclass(frozen=True)
class Cadence:
    """The run's intervals in seconds (see the module docstring for their clocks and :meth:`scaled`)."""

    #: Between sweeps of the run (the ``poll_interval`` setting): how late a running job's end is seen.
    poll_interval: float = POLL_INTERVAL
    #: While a city waits the run is swept at least this often: the sweep that sees a job end starts its successor,
    #: so this bounds the hand-off (one ListTrainingJobs call per run a sweep).
    handoff_interval: float = 10.0
    #: A city waiting this long while nothing of its group runs starts anyway: a predecessor whose task never
    #: started (marked failed by hand, say) must not hold the group forever; ten minutes outlasts a busy scheduler.
    stall_seconds: float = 600.0
    #: Another run's job older than the listing window is described again this often while it holds capacity: a
    #: minute is short against a job's life and costs one describe per such job.
    recheck_seconds: float = 60.0
    #: The account's board is read at most this often (one ListObjectsV2, a GetObject per changed record): as
    #: often as the hand-off sweeps, so a ranking is never older than a hand-off.
    board_read_seconds: float = 10.0
    #: A run admits no city into new instances before a read of the board this long after its first post: more
    #: than a create takes to show in a listing.
    start_settle_seconds: float = 5.0
    #: A run's record is posted again at least this often while it sweeps, even unchanged (wall clock): a few
    #: heartbeats fit in :attr:`stale_seconds`.
    heartbeat_seconds: float = 30.0
    #: A record not renewed for this long is gone: its run ended, or no triggerer sweeps it (wall clock); four
    #: heartbeats, so a slow sweep or two never drops a live run.
    stale_seconds: float = 120.0
    #: The capacity back-off's base while the instance quota is in use (ResourceLimitExceeded; the
    #: ``capacity_retry_seconds`` setting): about as long as a short job frees an instance in.
    capacity_retry_seconds: float = CAPACITY_RETRY_SECONDS
    #: ... doubling up to this cap (jittered): a quota freed late is still seen within a quarter-hour.
    capacity_retry_max_seconds: float = CAPACITY_RETRY_MAX_SECONDS
    #: A city waiting this long for room fails (the operator's ``capacity_timeout_seconds``): a quota held a
    #: working day is no longer a queue.
    capacity_timeout_seconds: float = CAPACITY_TIMEOUT_SECONDS
    #: The triggerer's poller tells its triggers it gave up once sweeps failed this long (and five times) in a
    #: row: a minute-long outage fails nothing, one that lasts a quarter-hour fails the tasks (Airflow retries).
    give_up_seconds: float = 900.0
    #: Against AWS itself sweeps come no more often than this (an endpoint under ``amazonaws.com``): a shorter
    #: interval spends the account's ListTrainingJobs rate for nothing a job's minutes-long life would show.
    min_aws_poll_seconds: float = 5.0
    #: Against a sped-up simulator the default poll interval (30 s of the endpoint's clock) is never shorter than
    #: this many real seconds: sweeps a few times a second keep each hand-off within its keep-alive without
    #: loading the machine.
    min_simulated_poll_seconds: float = 0.5
    #: A watched job not ended this long after its own limits (MaxWaitTimeInSeconds for spot,
    #: MaxRuntimeInSeconds) counts as lost: SageMaker stops every job at those limits; an hour covers its lag.
    watch_margin_seconds: float = 3600.0

    @property
    def claim_after_seconds(self) -> float:
        """Another run's Available pool is this run's to take only once its first look is this long ago: the longest
        a run with cities waiting goes between sweeps (:attr:`handoff_interval`), so its owner goes first."""
        return self.handoff_interval

    def endpoint_poll_interval(self, configured: float, speed: float) -> float:
        """The run's poll interval in real seconds: ``configured`` when given (> 0); else :data:`POLL_INTERVAL` of
        the endpoint's own clock — 30 s against AWS, 30 simulated seconds against a simulator ``speed`` times faster
        than the wall clock (at least :attr:`min_simulated_poll_seconds`), so that a job's end is seen as late, in
        the endpoint's seconds, as against AWS."""
        if configured > 0:
            return configured
        if speed <= 1:
            return POLL_INTERVAL
        return max(self.min_simulated_poll_seconds, POLL_INTERVAL / speed)

    def scaled(self, speed: float) -> Cadence:
        """This cadence in the seconds of a simulator running ``speed`` times faster than the shell's real clock
        (every field but :data:`UNSCALED` times ``speed``; see the module docstring)."""
        if speed <= 0:
            raise ValueError(f"speed must be > 0, got {speed}")
        return replace(
            self,
            **{f.name: getattr(self, f.name) * speed for f in fields(self) if f.name not in UNSCALED},
        )


#: The defaults: a triggerer's run against AWS (the default argument wherever a cadence may be left out).
AWS_CADENCE = Cadence()


def inline_keep_alive(poll_interval: float, task_gap: float, speed: float) -> int:
    """The least keep-alive (seconds of the endpoint's clock) that outlives the gap between a job's end and the next
    city's create when a run's cities start one at a time (``airflow dags test``): the poll interval that sees the
    end plus the shell's own ``task_gap`` between the two tasks (real seconds), ``speed`` times over against a
    simulator, with :data:`INLINE_GAP_MARGIN`."""
    return math.ceil((poll_interval + task_gap) * max(speed, 1.0) * INLINE_GAP_MARGIN)
