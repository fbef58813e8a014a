"""Write the note of the run a task belongs to; a note that cannot be written is a warning, never a failure.

Where the api-server is and how to log in: the connection ``api_conn_id`` (default ``airflow_api``) when it
exists — its host (``http://airflow-api:8080``, or host, port and schema), and either ``extra.token`` or a login
and password — otherwise Airflow's own ``[api] base_url``, or the api-server that serves the execution API, with no
credentials (enough for the simple auth manager in all-admins mode, as in the local stack).
"""

from __future__ import annotations

import logging
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from sagemaker_fleet.compat import AirflowNotFoundException, airflow_conf, base_hook

if TYPE_CHECKING:
    from sagemaker_fleet.runnote import RunNoteClient

# The note's client and text (and the cost package the text formats with) are imported when a note is written, not
# with this module: the DAG factory imports it for DEFAULT_API_CONN_ID, also when a worker parses the file for one
# city's task.

DEFAULT_API_CONN_ID = "airflow_api"


def _from_config() -> str:
    conf = airflow_conf()
    base = conf.get("api", "base_url", fallback="") or ""
    if "://" in base:
        return base
    execution = conf.get("core", "execution_api_server_url", fallback="") or ""
    if execution.rstrip("/").endswith("/execution"):
        return execution.rstrip("/").removesuffix("/execution") + "/"
    return "http://localhost:8080/"


def note_client(api_conn_id: str | None) -> RunNoteClient:
    """The client for the run-note calls (see the module docstring)."""
    from sagemaker_fleet.runnote import RunNoteClient

    try:
        conn = base_hook().get_connection(api_conn_id) if api_conn_id else None
    except AirflowNotFoundException:
        conn = None
    if conn is None or not conn.host:
        return RunNoteClient(_from_config())
    host = str(conn.host)
    if "://" not in host:
        host = f"{conn.schema or 'http'}://{host}" + (f":{conn.port}" if conn.port else "")
    token = (conn.extra_dejson or {}).get("token")
    return RunNoteClient(host.rstrip("/") + "/", token=token, login=conn.login, password=conn.password)


def write_run_note(
    context: Mapping[str, Any], lines: Sequence[str], api_conn_id: str | None, log: logging.Logger | Any
) -> bool:
    """Put ``lines`` in the note of the context's run, under what the person typed there; log them either way."""
    from sagemaker_fleet.runnote import RunNoteError, compose_note

    ti = context["ti"]
    for line in lines:
        log.info("run note: %s", line)
    client = note_client(api_conn_id)
    try:
        client.set(ti.dag_id, ti.run_id, compose_note(lines, client.get(ti.dag_id, ti.run_id)))
    except RunNoteError as exc:
        log.warning(
            "could not write the run's note (%s); to have it, give connection %r the api-server's address "
            "and a user allowed to edit DAG runs (docs/connections.md#the-airflow_api-connection)",
            exc,
            api_conn_id,
        )
        return False
    return True
