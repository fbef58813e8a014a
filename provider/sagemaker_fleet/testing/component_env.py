"""What every component of the local stack is set to beyond its addresses: the AWS connection to the endpoint, the
SQLite lock wait, the fail-over timings the end-to-end faults recover through, and the api-server's workers."""

from __future__ import annotations

import json
from collections.abc import Mapping
from pathlib import Path
from types import MappingProxyType

#: uvicorn's worker supervisor, under a virtualenv's site-packages
_SUPERVISOR = "uvicorn/supervisors/multiprocess.py"


def aws_connection_json(endpoint_url: str, region: str = "us-east-1") -> str:
    return json.dumps(
        {
            "conn_type": "aws",
            "login": "testing",
            "password": "testing",
            "extra": {"endpoint_url": endpoint_url, "region_name": region},
        }
    )


#: Connection arguments of a SQLite metadata database, which ``AIRFLOW__DATABASE__SQL_ALCHEMY_CONNECT_ARGS`` (and
#: ``…_ASYNC``) name by import path. SQLite has one writer at a time, and Python's driver waits 5 s for the lock by
#: default: a trigger from the UI (it unpauses the DAG and creates the run in two requests at once) while the
#: scheduler writes could answer 500 "database is locked". Waiting up to 60 s serialises the writes instead. A
#: plain dict, because Airflow adds its own keys to it (in each component's own process).
SQLITE_CONNECT_ARGS: dict[str, object] = {"timeout": 60}
SQLITE_CONNECT_ARGS_PATH = f"{__name__}.SQLITE_CONNECT_ARGS"


#: How soon a dead component's work is taken over: the end-to-end tests' faults (a killed scheduler, triggerer or
#: Celery worker) recover through these, and docker-compose.yaml ships the same values (its tests check it), so
#: what was proven is what runs. Airflow's defaults, for comparison: heartbeats 5 s, scheduler health 30 s,
#: orphaned-task check 300 s, task heartbeat timeout 300 s (detected every 10 s), queued timeout 600 s (checked
#: every 120 s), triggerer health 30 s.
FAILOVER_SETTINGS: Mapping[str, str] = MappingProxyType(
    {
        # a dead scheduler's queued and running task instances are adopted within 60-70 s; the threshold stays far
        # above how long a loaded machine may delay a live scheduler's heartbeat, or it marks its own job failed and
        # resets its own running tasks (at 30 s: a heartbeat 31 s late while 60 task processes started on 2 cores)
        "AIRFLOW__SCHEDULER__JOB_HEARTBEAT_SEC": "2",
        "AIRFLOW__SCHEDULER__SCHEDULER_HEALTH_CHECK_THRESHOLD": "60",
        "AIRFLOW__SCHEDULER__ORPHANED_TASKS_CHECK_INTERVAL": "10",
        # a task whose worker died while running it is failed (and retried) after 30 s without a heartbeat
        "AIRFLOW__SCHEDULER__TASK_INSTANCE_HEARTBEAT_TIMEOUT": "30",
        "AIRFLOW__SCHEDULER__TASK_INSTANCE_HEARTBEAT_TIMEOUT_DETECTION_INTERVAL": "5",
        # a task an executor lost before it started (a Celery worker killed with the message taken) is re-queued
        # after 120 s; keep it above the longest legitimate wait for a worker slot (the workload token lives as long)
        "AIRFLOW__SCHEDULER__TASK_QUEUED_TIMEOUT": "120",
        "AIRFLOW__SCHEDULER__TASK_QUEUED_TIMEOUT_CHECK_INTERVAL": "15",
        # a dead triggerer's triggers (every waiting and training city) move to a live one after 30 s; the threshold
        # stays above a loaded machine's heartbeat delay, so a live triggerer's cities are never taken over
        "AIRFLOW__TRIGGERER__JOB_HEARTBEAT_SEC": "2",
        "AIRFLOW__TRIGGERER__TRIGGERER_HEALTH_CHECK_THRESHOLD": "30",
    }
)


def uvicorn_waits_for_startup(airflow_bin: str | None = None) -> bool:
    """Whether the uvicorn beside ``airflow_bin`` (default: this Python's) tells a worker still starting from a hung
    one. Older ones (0.35, which MWAA's Airflow 3.0.6 pins, to 0.4x) kill a worker that does not answer a ping within
    5 s, which Airflow's app can take to build on a busy machine; with those the stack runs one worker, which no ping
    watches."""
    if airflow_bin:
        found = sorted(
            Path(airflow_bin).resolve().parent.parent.glob(f"lib/python3*/site-packages/{_SUPERVISOR}")
        )
        if found:
            return "def is_ready" in found[0].read_text()
    try:
        from uvicorn.supervisors.multiprocess import Process
    except ImportError:
        return True
    return hasattr(Process, "is_ready")
