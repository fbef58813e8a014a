"""A real local Airflow (api-server, scheduler, dag-processor, triggerer; LocalExecutor or Celery) for demos and
end-to-end tests, with the ``aws_default`` connection pointed at an endpoint such as the simulator.

Every component is a separate ``airflow`` process, exactly as deployed; only the addresses are local. The stack
talks to Airflow through its public REST API: by default with SimpleAuthManager in all-admins mode (fine on
loopback, never for a shared deployment); with ``users`` set, as a user of its own (the first admin) with a JWT
from ``/auth/token``, and every other request must log in as Airflow's users do.
"""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from sagemaker_fleet.errors import SageMakerFleetError
from sagemaker_fleet.testing.component_env import (
    FAILOVER_SETTINGS,
    SQLITE_CONNECT_ARGS_PATH,
    aws_connection_json,
    uvicorn_waits_for_startup,
)

COMPONENTS = ("api-server", "scheduler", "dag-processor", "triggerer")


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


def _proc_times(pid: int) -> tuple[int, int, int, int] | None:
    """utime, stime, cutime, cstime of a process in clock ticks (``/proc/<pid>/stat``), or None once it is gone."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return None
    fields = stat[stat.rindex(")") + 2 :].split()  # after "pid (comm) ": field 3 (state) is fields[0]
    return int(fields[11]), int(fields[12]), int(fields[13]), int(fields[14])


def ti_label(ti: Mapping[str, Any]) -> str:
    """A task instance from Airflow's REST API as a person reads it in the grid: its task id, and for a mapped
    instance the rendered map index (a fleet's city) or the index in brackets: ``train[seoul]``, ``train[3]``."""
    index = ti.get("map_index", -1)
    if index in (-1, None):
        return str(ti["task_id"])
    return f"{ti['task_id']}[{ti.get('rendered_map_index') or index}]"


class StackError(SageMakerFleetError, RuntimeError):
    """A component did not start, or Airflow answered with an error."""


@dataclass
class StackSettings:
    home: Path
    dags_folder: Path
    endpoint_url: str
    executor: str = "LocalExecutor"
    sql_alchemy_conn: str | None = None  # default: SQLite in ``home``
    celery_broker_url: str | None = None
    api_port: int = 0  # 0: a free port
    parallelism: int = 32
    extra_env: Mapping[str, str] = field(default_factory=dict)
    #: SimpleAuthManager users, ``{name: (role, password)}`` (role ``""``: a user who may read nothing); empty:
    #: all-admins mode, no login.
    users: Mapping[str, tuple[str, str]] = field(default_factory=dict)
    #: the components' ``airflow`` (default: the one beside this Python; another virtualenv's runs another Airflow)
    airflow_bin: str | None = None


class LocalAirflowStack:
    """Start with :meth:`start` (or as a context manager), drive with :meth:`trigger` and :meth:`wait_for_run`."""

    def __init__(self, settings: StackSettings) -> None:
        self.settings = settings
        self.api_port = settings.api_port or free_port()
        self.processes: dict[str, subprocess.Popen[bytes]] = {}
        settings.home.mkdir(parents=True, exist_ok=True)
        self.log_dir = settings.home / "component-logs"
        self.log_dir.mkdir(exist_ok=True)
        self._token: str | None = None

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.api_port}"

    # ------------------------------------------------------------------------------------------ environment

    def env(self) -> dict[str, str]:
        s = self.settings
        env = {k: v for k, v in os.environ.items() if not k.startswith("AIRFLOW")}
        env.update(
            {
                "AIRFLOW_HOME": str(s.home),
                "AIRFLOW__CORE__DAGS_FOLDER": str(s.dags_folder),
                "AIRFLOW__CORE__LOAD_EXAMPLES": "False",
                "AIRFLOW__CORE__EXECUTOR": s.executor,
                "AIRFLOW__CORE__PARALLELISM": str(s.parallelism),
                "AIRFLOW__DATABASE__SQL_ALCHEMY_CONN": s.sql_alchemy_conn or f"sqlite:///{s.home}/airflow.db",
                "AIRFLOW__API__PORT": str(self.api_port),
                "AIRFLOW__API__HOST": "127.0.0.1",
                "AIRFLOW__CORE__EXECUTION_API_SERVER_URL": f"{self.url}/execution/",
                "AIRFLOW__LOGGING__WORKER_LOG_SERVER_PORT": str(free_port()),
                "AIRFLOW__LOGGING__TRIGGER_LOG_SERVER_PORT": str(free_port()),
                "AIRFLOW__TRIGGERER__TRIGGERER_HEALTH_CHECK_SERVER_PORT": str(free_port()),
                "AIRFLOW__SCHEDULER__ENABLE_HEALTH_CHECK": "False",
                "AIRFLOW__DAG_PROCESSOR__REFRESH_INTERVAL": "5",
                "AIRFLOW__SCHEDULER__SCHEDULER_HEARTBEAT_SEC": "2",
                **FAILOVER_SETTINGS,
                "AIRFLOW__CORE__SIMPLE_AUTH_MANAGER_ALL_ADMINS": "False" if s.users else "True",
                "AIRFLOW__API_AUTH__JWT_SECRET": "sagemaker-fleet-local-stack",
                "AIRFLOW_CONN_AWS_DEFAULT": aws_connection_json(s.endpoint_url),
                "AWS_ACCESS_KEY_ID": "testing",
                "AWS_SECRET_ACCESS_KEY": "testing",
                "AWS_DEFAULT_REGION": "us-east-1",
            }
        )
        if not uvicorn_waits_for_startup(s.airflow_bin):
            env["AIRFLOW__API__WORKERS"] = "1"
        if s.users:
            env["AIRFLOW__CORE__SIMPLE_AUTH_MANAGER_USERS"] = ",".join(
                f"{n}:{r}" for n, (r, _) in s.users.items()
            )
            env["AIRFLOW__CORE__SIMPLE_AUTH_MANAGER_PASSWORDS_FILE"] = str(self.passwords_file)
            # the plan task writes the run's note through the api-server: as the first admin user
            admin = next(n for n, (role, _) in s.users.items() if role.lower() == "admin")
            env["AIRFLOW_CONN_AIRFLOW_API"] = json.dumps(
                {"conn_type": "http", "host": self.url, "login": admin, "password": s.users[admin][1]}
            )
        if env["AIRFLOW__DATABASE__SQL_ALCHEMY_CONN"].startswith("sqlite"):
            env["AIRFLOW__DATABASE__SQL_ALCHEMY_CONNECT_ARGS"] = SQLITE_CONNECT_ARGS_PATH
            env["AIRFLOW__DATABASE__SQL_ALCHEMY_CONNECT_ARGS_ASYNC"] = SQLITE_CONNECT_ARGS_PATH
        if s.celery_broker_url:
            env["AIRFLOW__CELERY__BROKER_URL"] = s.celery_broker_url
            env["AIRFLOW__CELERY__RESULT_BACKEND"] = "db+" + (s.sql_alchemy_conn or "").replace(
                "postgresql+psycopg2", "postgresql"
            )
            env["AIRFLOW__CELERY__WORKER_CONCURRENCY"] = str(s.parallelism)
        env.update(s.extra_env)
        return env

    @property
    def passwords_file(self) -> Path:
        return self.settings.home / "simple_auth_manager_passwords.json"

    def token(self, username: str | None = None) -> str:
        """A JWT for ``username`` (default: the first admin user) from the api-server's ``/auth/token``."""
        users = self.settings.users
        name = username or next(n for n, (role, _) in users.items() if role.lower() == "admin")
        body = json.dumps({"username": name, "password": users[name][1]}).encode()
        request = urllib.request.Request(
            self.url + "/auth/token", data=body, method="POST", headers={"Content-Type": "application/json"}
        )
        with urllib.request.urlopen(request, timeout=30) as response:
            return str(json.loads(response.read())["access_token"])

    @property
    def airflow_bin(self) -> str:
        return self.settings.airflow_bin or str(Path(sys.executable).parent / "airflow")

    def airflow(self, *args: str, check: bool = True) -> subprocess.CompletedProcess[str]:
        """Run an ``airflow`` CLI command in the stack's environment."""
        command = [self.airflow_bin, *args]
        result = subprocess.run(command, env=self.env(), capture_output=True, text=True, check=False)
        if check and result.returncode != 0:
            raise StackError(
                f"airflow {' '.join(args)} failed:\n{result.stdout[-2000:]}\n{result.stderr[-4000:]}"
            )
        return result

    # ------------------------------------------------------------------------------------------ lifecycle

    def start(self, timeout: float = 120.0, components: tuple[str, ...] = ()) -> LocalAirflowStack:
        """Migrate the database, start ``components`` (default: all four, and a Celery worker with a broker)."""
        if self.settings.users:
            passwords = {name: password for name, (_, password) in self.settings.users.items()}
            self.passwords_file.write_text(json.dumps(passwords))
        self.airflow("db", "migrate")
        if not components:
            components = (*COMPONENTS, *(("celery-worker",) if self.settings.celery_broker_url else ()))
        for component in components:
            self.start_component(component)
        self._wait_for_api(timeout)
        return self

    def start_component(self, component: str) -> subprocess.Popen[bytes]:
        """Start ``component`` (``scheduler``, ``triggerer``, …); ``name@2`` starts a second one of that kind."""
        kind = component.partition("@")[0]
        args = ["celery", "worker"] if kind == "celery-worker" else [kind]
        if kind == "api-server":
            args += ["--port", str(self.api_port), "--host", "127.0.0.1"]
        log = (self.log_dir / f"{component}.log").open("ab")
        process = subprocess.Popen(
            [self.airflow_bin, *args],
            env=self.env(),
            stdout=log,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
        self.processes[component] = process
        return process

    def kill_component(self, component: str, sig: int = signal.SIGKILL) -> None:
        """Kill a component and its children at once (as a crashed machine would)."""
        process = self.processes.pop(component)
        try:
            os.killpg(process.pid, sig)
        except ProcessLookupError:
            pass
        process.wait(timeout=30)

    def descendants(self, component: str) -> list[int]:
        """Process ids below a component's main process (Celery's pool processes, task supervisors, ...)."""
        found: list[int] = []
        stack = [self.processes[component].pid]
        while stack:
            pid = stack.pop()
            for children in Path(f"/proc/{pid}/task").glob("*/children"):
                try:
                    kids = [int(k) for k in children.read_text().split()]
                except OSError:
                    continue
                found.extend(kids)
                stack.extend(kids)
        return found

    def cpu_seconds(self) -> dict[str, float]:
        """CPU seconds (user + system) used so far, per running component: ``<component>`` is its main process
        alone (the scheduler's loop, say), ``<component>:children`` everything below it, live or ended (the
        LocalExecutor's workers and their task processes, Celery's pool). Linux only (``/proc``); take two
        readings and subtract."""
        ticks = float(os.sysconf("SC_CLK_TCK"))
        out: dict[str, float] = {}
        for component, process in self.processes.items():
            own = _proc_times(process.pid)
            if own is None:
                continue
            children = own[2] + own[3]  # reaped descendants
            for pid in self.descendants(component):
                times = _proc_times(pid)
                if times is not None:
                    children += sum(times)  # its own time and its reaped children's
            out[component] = (own[0] + own[1]) / ticks
            out[f"{component}:children"] = children / ticks
        return out

    def freeze_children(self, component: str) -> list[int]:
        """SIGSTOP everything below a component's main process, leaving the main process running.

        For a Celery worker this is the window a crash can hit: the main process goes on taking messages off the
        broker (up to its prefetch), but no pool process starts them, so their task instances stay ``queued``.
        Linux only (it reads ``/proc``)."""
        pids = self.descendants(component)
        for pid in pids:
            try:
                os.kill(pid, signal.SIGSTOP)
            except ProcessLookupError:
                pass
        return pids

    def stop(self) -> None:
        for component in list(self.processes):
            process = self.processes.pop(component)
            try:
                os.killpg(process.pid, signal.SIGTERM)
            except ProcessLookupError:
                continue
            try:
                process.wait(timeout=20)
            except subprocess.TimeoutExpired:
                os.killpg(process.pid, signal.SIGKILL)
                process.wait(timeout=10)

    def __enter__(self) -> LocalAirflowStack:
        try:
            return self.start()
        except BaseException:
            self.stop()  # a stack that did not come up leaves no component running
            raise

    def __exit__(self, *exc: object) -> None:
        self.stop()

    def _wait_for_api(self, timeout: float) -> None:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            for component, process in self.processes.items():
                if process.poll() is not None:
                    tail = (self.log_dir / f"{component}.log").read_text(errors="replace")[-3000:]
                    raise StackError(f"{component} exited with {process.returncode}:\n{tail}")
            try:  # asked once: between tries, a component that exited is looked at
                self._request("GET", "/api/v2/version", None)
                return
            except (OSError, StackError):
                time.sleep(1)
        raise StackError(f"the api-server did not answer on {self.url} within {timeout:.0f} s")

    # ------------------------------------------------------------------------------------------ REST API

    #: A request's timeout, and how long a GET is asked again (an api-server on SQLite can take over 30 s to answer)
    request_timeout, read_patience = 30.0, 300.0

    def api(self, method: str, path: str, body: Mapping[str, Any] | None = None) -> Any:
        """Call the REST API; a GET that times out or finds no api-server is asked again (:attr:`read_patience`)."""
        deadline = time.monotonic() + self.read_patience
        while True:
            try:
                return self._request(method, path, body)
            except (TimeoutError, ConnectionError, urllib.error.URLError) as exc:
                if isinstance(exc, urllib.error.HTTPError) or method != "GET" or time.monotonic() >= deadline:
                    raise
                time.sleep(1.0)

    def _request(self, method: str, path: str, body: Mapping[str, Any] | None) -> Any:
        data = json.dumps(body).encode() if body is not None else None
        headers = {"Content-Type": "application/json"}
        if self.settings.users and not path.startswith("/api/v2/version"):
            self._token = self._token or self.token()
            headers["Authorization"] = f"Bearer {self._token}"
        request = urllib.request.Request(self.url + path, data=data, method=method, headers=headers)
        try:
            with urllib.request.urlopen(request, timeout=self.request_timeout) as response:
                text = response.read().decode()
        except urllib.error.HTTPError as exc:
            raise StackError(f"{method} {path}: HTTP {exc.code}: {exc.read().decode()[:1000]}") from exc
        return json.loads(text) if text else None

    def wait_for_dag(self, dag_id: str, timeout: float = 120.0) -> None:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            try:
                self.api("GET", f"/api/v2/dags/{dag_id}")
                return
            except StackError:
                time.sleep(2)
        raise StackError(f"DAG {dag_id} was not parsed within {timeout:.0f} s")

    def unpause(self, dag_id: str) -> None:
        self.api("PATCH", f"/api/v2/dags/{dag_id}", {"is_paused": False})

    def runs(self, dag_id: str) -> list[dict[str, Any]]:
        return list(self.api("GET", f"/api/v2/dags/{dag_id}/dagRuns?order_by=-run_after")["dag_runs"])

    def trigger(
        self, dag_id: str, conf: Mapping[str, Any] | None = None, logical_date: str | None = None
    ) -> str:
        """Unpause the DAG and start a run (a paused DAG's runs would never be scheduled)."""
        self.unpause(dag_id)
        body: dict[str, Any] = {"conf": dict(conf or {}), "logical_date": logical_date}
        run = self.api("POST", f"/api/v2/dags/{dag_id}/dagRuns", body)
        return str(run["dag_run_id"])

    def run_state(self, dag_id: str, run_id: str) -> str:
        return str(self.api("GET", f"/api/v2/dags/{dag_id}/dagRuns/{run_id}")["state"])

    def task_instances(self, dag_id: str, run_id: str) -> list[dict[str, Any]]:
        out: list[dict[str, Any]] = []
        offset = 0
        while True:
            page = self.api(
                "GET", f"/api/v2/dags/{dag_id}/dagRuns/{run_id}/taskInstances?limit=100&offset={offset}"
            )
            out.extend(page["task_instances"])
            offset += 100
            if offset >= page["total_entries"]:
                return out

    def task_states(self, dag_id: str, run_id: str) -> dict[str, list[str]]:
        """Task instances of a run by state: ``{"queued": ["train[seoul]", ...], ...}`` (:func:`ti_label`)."""
        out: dict[str, list[str]] = {}
        for ti in self.task_instances(dag_id, run_id):
            out.setdefault(str(ti["state"]), []).append(ti_label(ti))
        return out

    def wait_for_run(self, dag_id: str, run_id: str, timeout: float, poll: float = 3.0) -> str:
        """Wait for the run to end; on timeout the error lists its unfinished task instances and the tail of each
        component's log, so a CI failure can be read without the machine."""
        deadline = time.monotonic() + timeout
        state = "queued"
        while time.monotonic() < deadline:
            try:
                state = self.run_state(dag_id, run_id)
            except (TimeoutError, OSError):  # an api-server busy past the request's timeout: ask again
                time.sleep(poll)
                continue
            if state in ("success", "failed"):
                return state
            time.sleep(poll)
        unfinished = {k: v for k, v in self.task_states(dag_id, run_id).items() if k != "success"}
        raise StackError(
            f"run {run_id} of {dag_id} still {state} after {timeout:.0f} s; unfinished task instances: "
            f"{json.dumps(unfinished)}\n{self.log_tails()}"
        )

    def log_tails(self, lines: int = 25) -> str:
        parts = []
        for path in sorted(self.log_dir.glob("*.log")):
            tail = path.read_text(errors="replace").splitlines()[-lines:]
            parts.append(f"--- {path.name} (last {len(tail)} lines)\n" + "\n".join(tail))
        return "\n".join(parts)
