"""A tiny SageMaker endpoint on loopback serving canned DescribeTrainingJob responses over the real wire protocol.

moto has no BillableTimeInSeconds or WarmPoolStatus, so the CLI tests talk to this instead for SageMaker (JSON 1.1
protocol, ``X-Amz-Target: SageMaker.<Operation>``, timestamps as epoch seconds, as AWS sends them) and to a moto
server for S3. Only ListTrainingJobs (NameContains and WarmPoolStatusEquals applied after the page cut) and DescribeTrainingJob
are served; anything else is a 400.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from datetime import datetime
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

PAGE = 3  # small pages, so pagination is exercised


def _wire(value: Any) -> Any:
    if isinstance(value, datetime):
        return value.timestamp()
    if isinstance(value, Mapping):
        return {k: _wire(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_wire(v) for v in value]
    return value


class FakeSageMaker:
    def __init__(self, describes: list[dict[str, Any]], extra_names: list[str] | None = None) -> None:
        self.describes = {d["TrainingJobName"]: d for d in describes}
        self.names = sorted([*self.describes, *(extra_names or [])])
        self.calls: list[str] = []

    def list_training_jobs(self, body: Mapping[str, Any]) -> dict[str, Any]:
        start = int(body.get("NextToken") or 0)
        size = min(int(body.get("MaxResults") or 100), PAGE)
        page = self.names[start : start + size]
        needle = body.get("NameContains") or ""
        pool = body.get("WarmPoolStatusEquals")
        summaries = [
            {
                "TrainingJobName": name,
                "TrainingJobArn": f"arn:aws:sagemaker:us-east-1:1:training-job/{name}",
                "CreationTime": 0,
                "TrainingJobStatus": "Completed",
                **({"WarmPoolStatus": _wire(self._pool(name))} if self._pool(name) else {}),
            }
            for name in page
            if needle in name and (pool is None or (self._pool(name) or {}).get("Status") == pool)
        ]
        result: dict[str, Any] = {"TrainingJobSummaries": summaries}
        if start + size < len(self.names):
            result["NextToken"] = str(start + size)
        return result

    def _pool(self, name: str) -> Mapping[str, Any] | None:
        pool: Mapping[str, Any] | None = (self.describes.get(name) or {}).get("WarmPoolStatus")
        return pool

    def describe_training_job(self, body: Mapping[str, Any]) -> dict[str, Any] | None:
        found = self.describes.get(body["TrainingJobName"])
        return _wire(found) if found is not None else None


class _Handler(BaseHTTPRequestHandler):
    fake: FakeSageMaker

    def log_message(self, format: str, *args: Any) -> None:  # noqa: A002 - quiet test server
        return

    def do_POST(self) -> None:
        length = int(self.headers.get("Content-Length") or 0)
        body = json.loads(self.rfile.read(length) or b"{}")
        operation = (self.headers.get("X-Amz-Target") or "").removeprefix("SageMaker.")
        self.fake.calls.append(operation)
        if operation == "ListTrainingJobs":
            self._send(200, self.fake.list_training_jobs(body))
        elif operation == "DescribeTrainingJob":
            found = self.fake.describe_training_job(body)
            if found is None:
                self._send(400, {"__type": "ValidationException", "message": "Requested resource not found."})
            else:
                self._send(200, found)
        else:
            self._send(400, {"__type": "UnknownOperationException", "message": operation})

    def _send(self, status: int, payload: Mapping[str, Any]) -> None:
        data = json.dumps(payload).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/x-amz-json-1.1")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)


@contextmanager
def serve_fake_sagemaker(fake: FakeSageMaker) -> Iterator[str]:
    """Serve ``fake`` on 127.0.0.1 (a free port); yields the endpoint URL."""
    handler = type("Handler", (_Handler,), {"fake": fake})
    server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        host, port = server.server_address[:2]
        yield f"http://{host!s}:{port}"
    finally:
        server.shutdown()
        server.server_close()
        thread.join(timeout=10)
