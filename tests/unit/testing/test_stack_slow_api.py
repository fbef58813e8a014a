"""The local stack's reads ride out a slow api-server (one that is busy starting a run's task processes on SQLite):
a read that times out is asked again, within its patience, instead of ending a healthy run with a TimeoutError."""

from __future__ import annotations

import json
import threading
import time
import urllib.error
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest

from sagemaker_fleet.testing.stack import LocalAirflowStack, StackSettings


class SlowFirstAnswer(BaseHTTPRequestHandler):
    """Answers every request after ``delays[n]`` seconds for the n-th request (0 past the list)."""

    delays: list[float] = []
    seen: list[str] = []

    def _answer(self) -> None:
        index = len(self.seen)
        self.seen.append(f"{self.command} {self.path}")
        time.sleep(self.delays[index] if index < len(self.delays) else 0.0)
        body = json.dumps({"state": "running"}).encode()
        try:
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)
        except OSError:  # the client gave up on this one
            pass

    do_GET = _answer
    do_POST = _answer

    def log_message(self, format: str, *args: object) -> None:
        pass


@pytest.fixture
def slow_server() -> Iterator[tuple[ThreadingHTTPServer, type[SlowFirstAnswer]]]:
    handler = type("Handler", (SlowFirstAnswer,), {"delays": [], "seen": []})
    server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield server, handler
    finally:
        server.shutdown()
        server.server_close()


def stack_on(server: ThreadingHTTPServer, tmp_path: Path) -> LocalAirflowStack:
    stack = LocalAirflowStack(
        StackSettings(home=tmp_path, dags_folder=tmp_path, endpoint_url="http://127.0.0.1:1", api_port=0)
    )
    stack.api_port = server.server_address[1]
    stack.request_timeout = 0.5
    return stack


def test_a_read_that_times_out_is_asked_again(
    slow_server: tuple[ThreadingHTTPServer, type[SlowFirstAnswer]], tmp_path: Path
) -> None:
    server, handler = slow_server
    handler.delays = [2.0, 2.0]  # two answers later than the request's timeout
    stack = stack_on(server, tmp_path)

    assert stack.run_state("fleet", "run-1") == "running"
    assert len(handler.seen) == 3


def test_a_read_gives_up_after_its_patience(
    slow_server: tuple[ThreadingHTTPServer, type[SlowFirstAnswer]], tmp_path: Path
) -> None:
    server, handler = slow_server
    handler.delays = [2.0] * 10
    stack = stack_on(server, tmp_path)
    stack.read_patience = 1.0

    with pytest.raises((TimeoutError, urllib.error.URLError)):
        stack.run_state("fleet", "run-1")


def test_a_write_is_sent_once(
    slow_server: tuple[ThreadingHTTPServer, type[SlowFirstAnswer]], tmp_path: Path
) -> None:
    """A POST that timed out may have been done: sending it again could create a second run."""
    server, handler = slow_server
    handler.delays = [2.0]
    stack = stack_on(server, tmp_path)

    with pytest.raises((TimeoutError, urllib.error.URLError)):
        stack.api("POST", "/api/v2/dags/fleet/dagRuns", {"conf": {}})
    time.sleep(0.2)
    assert handler.seen == ["POST /api/v2/dags/fleet/dagRuns"]
