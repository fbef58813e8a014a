"""A StatsD server of the tests' own: a UDP socket on 127.0.0.1 that keeps every metric line it is sent."""

from __future__ import annotations

import socket
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class StatsdLine:
    """``name:value|type`` (StatsD's line protocol; ``|@rate`` and tags would follow)."""

    name: str
    value: float
    type: str

    @classmethod
    def parse(cls, line: str) -> StatsdLine:
        name, _, rest = line.partition(":")
        value, _, kind = rest.partition("|")
        return cls(name, float(value), kind.split("|")[0])


class StatsdListener:
    """Receives StatsD datagrams (one or more lines each) until closed."""

    def __init__(self) -> None:
        self.sock = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        self.sock.bind(("127.0.0.1", 0))
        self.sock.settimeout(0.2)
        self.port = int(self.sock.getsockname()[1])
        self.lines: list[StatsdLine] = []
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._serve, daemon=True)
        self._thread.start()

    def _serve(self) -> None:
        while not self._stop.is_set():
            try:
                data = self.sock.recv(65535)
            except TimeoutError:
                continue
            except OSError:
                return
            for line in data.decode("utf-8", "replace").splitlines():
                if line.strip():
                    self.lines.append(StatsdLine.parse(line.strip()))

    def named(self, suffix: str) -> list[StatsdLine]:
        return [line for line in self.lines if line.name.endswith(suffix)]

    def close(self) -> None:
        self._stop.set()
        self._thread.join(timeout=5)
        self.sock.close()


@contextmanager
def airflow_statsd(monkeypatch: Any, prefix: str = "airflow") -> Iterator[StatsdListener]:
    """Airflow's own StatsD client (``[metrics] statsd_on``) pointed at a fresh listener, in this process: the
    Stats the triggerer's runner and task processes use (:func:`sagemaker_fleet.compat.stats`) made again from
    Airflow's config."""
    from sagemaker_fleet.compat import reinitialize_stats

    listener = StatsdListener()
    monkeypatch.setenv("AIRFLOW__METRICS__STATSD_ON", "True")
    monkeypatch.setenv("AIRFLOW__METRICS__STATSD_HOST", "127.0.0.1")
    monkeypatch.setenv("AIRFLOW__METRICS__STATSD_PORT", str(listener.port))
    monkeypatch.setenv("AIRFLOW__METRICS__STATSD_PREFIX", prefix)
    reinitialize_stats()
    try:
        yield listener
    finally:
        reinitialize_stats(off=True)
        listener.close()
