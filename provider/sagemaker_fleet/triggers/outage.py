"""Outage: when a run's session gives up on its failing sweeps — the triggerer's give-up policy.

A minute-long outage of the endpoint or the network fails nothing: each failed sweep backs off and tries again
(:meth:`~sagemaker_fleet.dispatch.sweep.RunSweeps.swept`). Only a failure that lasts is handed to the triggers, whose
tasks then fail and Airflow retries them (:meth:`~sagemaker_fleet.triggers.session.RunSession._give_up`).
"""

from __future__ import annotations

import logging
from dataclasses import dataclass

from botocore.exceptions import ClientError

from sagemaker_fleet.jobs.errors import error_code
from sagemaker_fleet.jobs.statuses import THROTTLING_CODES

__all__ = ["MAX_CONSECUTIVE_ERRORS", "Outage"]

log = logging.getLogger(__name__)

#: The session gives up, and tells every trigger that watches or waits through it, once sweeps have failed this
#: many times in a row *and* for at least the cadence's ``give_up_seconds``.
MAX_CONSECUTIVE_ERRORS = 5


@dataclass
class Outage:
    """The sweeps failing in a row now (0: none) and since when, on the session's clock; ``run``: its name filter,
    for the log."""

    run: str
    errors: int = 0
    since: float = 0.0

    def succeeded(self) -> None:
        self.errors = 0

    def failed(self, exc: Exception, now: float, give_up_seconds: float, next_sweep: float) -> float | None:
        """Count a failed sweep (logged with ``next_sweep``, the seconds to the next); the seconds the sweeps have
        been failing when it is time to give up (the count starts again), else None."""
        if self.errors == 0:
            self.since = now
        self.errors += 1
        throttled = isinstance(exc, ClientError) and error_code(exc) in THROTTLING_CODES
        log.warning(
            "polling %s failed (%d in a row%s): %s: %s; next sweep in %.0f s",
            self.run,
            self.errors,
            ", throttled past its retries" if throttled else "",
            type(exc).__name__,
            exc,
            next_sweep,
        )
        if self.errors >= MAX_CONSECUTIVE_ERRORS and now - self.since >= give_up_seconds:
            self.errors = 0
            return now - self.since
        return None
