"""Sending the fleet's metrics through Airflow's own Stats (:func:`sagemaker_fleet.compat.stats`).

Whatever Airflow is set to send to — StatsD (``[metrics] statsd_on``), Datadog's StatsD (``statsd_datadog_enabled``)
or OpenTelemetry (``otel_on``) — with Airflow's prefix, allow and block lists and name handler; nothing when metrics
are off. Airflow makes the client in every process that imports its task SDK: a worker's task process, and the
triggerer's trigger runner (where the city triggers run), which Airflow's own trigger metrics use too. A metric
that cannot be sent is a debug line, never a failure: a task's outcome does not depend on a metrics daemon.
"""

from __future__ import annotations

import datetime as dt
import logging
from collections.abc import Iterable, Mapping
from typing import TYPE_CHECKING

from sagemaker_fleet.observability.metrics import RunLedger, waiting_measurement

if TYPE_CHECKING:
    from sagemaker_fleet.observability.metrics import Measurement

log = logging.getLogger(__name__)


def send(measurements: Iterable[Measurement]) -> int:
    """Send each measurement as its kind says (a timer's seconds as a duration: StatsD gets milliseconds,
    OpenTelemetry a histogram in milliseconds); the number sent."""
    from sagemaker_fleet.compat import stats as airflow_stats

    stats = airflow_stats()
    sent = 0
    for m in measurements:
        tags = dict(m.tags)
        try:
            if m.kind == "counter":
                stats.incr(m.name, m.value, tags=tags)  # a float count is sent as is
            elif m.kind == "gauge":
                stats.gauge(m.name, m.value, tags=tags)
            else:
                stats.timing(m.name, dt.timedelta(seconds=m.value), tags=tags)
            sent += 1
        except Exception as exc:  # noqa: BLE001 - metrics never fail a task
            log.debug("metric %s not sent: %s", m.name, exc)
    return sent


class RunSignals:
    """One run's metrics in a triggerer: its :class:`RunLedger` (the run poller feeds it every sweep's listing) and
    the ``cities_waiting`` gauge, sent after each sweep when it changes (and at least every ``every`` sweeps, so a
    gauge backend that forgets quiet series still shows it)."""

    def __init__(self, fleet: str, run_key: str, every: int = 30) -> None:
        self.fleet = fleet
        self.run_key = run_key
        self.ledger = RunLedger()
        self.every = every
        self._last: int | None = None
        self._quiet = 0

    def swept(self, summaries: Iterable[Mapping[str, object]], waiting: int) -> None:
        self.ledger.observe(summaries)
        self._quiet += 1
        if waiting != self._last or self._quiet >= self.every:
            send([waiting_measurement(self.fleet, self.run_key, waiting)])
            self._last, self._quiet = waiting, 0
