"""Where the command line's library output goes: its stdout is the command's report (or JSON), so the log lines of
the libraries it drives (botocore, Airflow's hooks) go to stderr, and only from WARNING up."""

from __future__ import annotations

import contextlib
import logging
import os
import sys
from collections.abc import Iterator


@contextlib.contextmanager
def library_logs_to_stderr() -> Iterator[None]:
    """While the command runs, the root logger writes WARNING and above to stderr only (once Airflow is imported,
    3.0's logging sends botocore's INFO lines to stdout, the report's stream); as it was afterwards."""
    root = logging.getLogger()
    handlers, level = root.handlers, root.level
    handler = logging.StreamHandler(sys.stderr)
    handler.setLevel(logging.WARNING)
    root.handlers = [handler]
    try:
        yield
    finally:
        root.handlers, root.level = handlers, level


def quiet_airflow_logs() -> None:
    """Airflow's own INFO lines (a hook without a connection says so each time it opens a session) are not the
    command's report: unless ``AIRFLOW__LOGGING__LOGGING_LEVEL`` is set, this process logs Airflow's WARNING and
    above only. Airflow reads it when it is first imported: call this before."""
    os.environ.setdefault("AIRFLOW__LOGGING__LOGGING_LEVEL", "WARNING")
