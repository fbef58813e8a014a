"""The log lines of operators and triggers, on every supported Airflow: their ``self.log`` is a structlog logger
from Airflow 3.1 (its lines never reach stdlib ``logging``) and a stdlib logger on 3.0 (its lines never reach
structlog's processors)."""

from __future__ import annotations

import logging
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from structlog.testing import capture_logs


class _Into(logging.Handler):
    def __init__(self, lines: list[dict[str, Any]]) -> None:
        super().__init__(logging.DEBUG)
        self.lines = lines

    def emit(self, record: logging.LogRecord) -> None:
        self.lines.append({"event": record.getMessage(), "log_level": record.levelname.lower()})


@contextmanager
def capture_task_logs() -> Iterator[list[dict[str, Any]]]:
    """structlog's ``capture_logs`` list (``event``, ``log_level``), with the stdlib records added to it as they come."""
    root = logging.getLogger()
    with capture_logs() as lines:
        handler = _Into(lines)
        level = root.level
        root.addHandler(handler)
        root.setLevel(min(level, logging.INFO) if level else logging.INFO)
        try:
            yield lines
        finally:
            root.removeHandler(handler)
            root.setLevel(level)
