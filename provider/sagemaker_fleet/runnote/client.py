"""Read and write a DAG run's note through Airflow's public REST API.

Airflow 3.3's task SDK and execution API can set a note only on a run they trigger, not on the run a task belongs
to; the public API can (``PATCH /api/v2/dags/{dag_id}/dagRuns/{run_id}``). It needs the api-server's address and,
unless the simple auth manager runs in all-admins mode, a token: given, or fetched from ``/auth/token`` with a
user's name and password (the simple and FAB auth managers both serve it).
"""

from __future__ import annotations

import json
import urllib.error
import urllib.parse
import urllib.request
from dataclasses import dataclass
from typing import Any

from sagemaker_fleet.errors import SageMakerFleetError


class RunNoteError(SageMakerFleetError, RuntimeError):
    """The api-server could not be reached or refused the request (the message says which and why)."""


@dataclass(frozen=True)
class RunNoteClient:
    """``base_url``: the api-server (``http://host:8080/``); ``token``: a bearer token, or ``login`` and
    ``password`` to get one."""

    base_url: str
    token: str | None = None
    login: str | None = None
    password: str | None = None
    timeout: float = 10.0

    def get(self, dag_id: str, run_id: str) -> str | None:
        run = self._call("GET", self._run_path(dag_id, run_id), None, self._bearer())
        note = run.get("note") if isinstance(run, dict) else None
        return str(note) if note else None

    def set(self, dag_id: str, run_id: str, note: str) -> None:
        self._call(
            "PATCH", self._run_path(dag_id, run_id) + "?update_mask=note", {"note": note}, self._bearer()
        )

    @staticmethod
    def _run_path(dag_id: str, run_id: str) -> str:
        quote = urllib.parse.quote
        return f"api/v2/dags/{quote(dag_id, safe='')}/dagRuns/{quote(run_id, safe='')}"

    def _bearer(self) -> str | None:
        if self.token or not self.login:
            return self.token
        answer = self._call(
            "POST", "auth/token", {"username": self.login, "password": self.password or ""}, None
        )
        token = answer.get("access_token") if isinstance(answer, dict) else None
        if not token:
            raise RunNoteError(f"{self.base_url}auth/token gave no access_token")
        return str(token)

    def _call(self, method: str, path: str, body: dict[str, Any] | None, token: str | None) -> Any:
        url = self.base_url.rstrip("/") + "/" + path
        headers = {"Content-Type": "application/json", "Accept": "application/json"}
        if token:
            headers["Authorization"] = f"Bearer {token}"
        data = json.dumps(body).encode() if body is not None else None
        request = urllib.request.Request(url, data=data, method=method, headers=headers)
        try:
            with urllib.request.urlopen(request, timeout=self.timeout) as response:
                text = response.read().decode()
        except urllib.error.HTTPError as exc:
            raise RunNoteError(
                f"{method} {url}: HTTP {exc.code} {exc.read().decode(errors='replace')[:300]}"
            ) from exc
        except (OSError, ValueError) as exc:
            raise RunNoteError(f"{method} {url}: {exc}") from exc
        return json.loads(text) if text else None
