"""The fleet's region against the region its AWS connection talks to (pure).

A fleet spec names the region its jobs train in (``region``); the Airflow connection its tasks use (``aws_default``)
names a region of its own (``region_name`` in its extra, else the AWS environment's). When the two differ the jobs
would be created where the connection points — other quotas, other prices, another bucket's region — so ``validate``,
``plan`` and the fleet DAG's plan task refuse the run instead, naming both.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from urllib.parse import parse_qs, urlsplit

#: The AWS environment's region variables, in boto3's order of precedence.
REGION_VARIABLES = ("AWS_REGION", "AWS_DEFAULT_REGION")


@dataclass(frozen=True)
class KnownRegion:
    """A region and where it was read (for the message: the connection, an environment variable)."""

    region: str
    source: str


def connection_env_name(conn_id: str) -> str:
    """The environment variable that defines Airflow connection ``conn_id`` (``AIRFLOW_CONN_AWS_DEFAULT``)."""
    return f"AIRFLOW_CONN_{conn_id.upper()}"


def environment_region(environ: Mapping[str, str], conn_id: str = "aws_default") -> KnownRegion | None:
    """The region Airflow connection ``conn_id`` talks to as far as ``environ`` tells: the ``region_name`` of the
    connection it defines (JSON or URI form), else ``AWS_REGION`` / ``AWS_DEFAULT_REGION`` (what boto3 falls back
    to); None when neither says (a connection kept in Airflow's database is checked by the plan task)."""
    name = connection_env_name(conn_id)
    text = environ.get(name)
    if text:
        region = _connection_region(text)
        if region:
            return KnownRegion(region, f"the {conn_id} connection ({name})")
    for variable in REGION_VARIABLES:
        if environ.get(variable):
            return KnownRegion(environ[variable], variable)
    return None


def _connection_region(text: str) -> str | None:
    """``region_name`` of a connection written as Airflow's JSON or URI form, if any."""
    text = text.strip()
    if text.startswith("{"):
        try:
            connection = json.loads(text)
        except ValueError:
            return None
        extra = connection.get("extra") if isinstance(connection, dict) else None
        if isinstance(extra, str):
            try:
                extra = json.loads(extra)
            except ValueError:
                return None
        region = extra.get("region_name") if isinstance(extra, dict) else None
        return region if isinstance(region, str) and region else None
    query = parse_qs(urlsplit(text).query)
    found = query.get("region_name") or []
    return found[0] if found and found[0] else None


def region_mismatch(fleet_region: str, known: KnownRegion | None) -> str | None:
    """Why the fleet cannot run through a connection in another region (None when they agree or it is unknown)."""
    if known is None or known.region == fleet_region:
        return None
    return (
        f"the fleet trains in {fleet_region} but {known.source} talks to {known.region}: its jobs, quotas and "
        f"prices would be {known.region}'s; set the connection's region_name to {fleet_region} (sagemaker-fleet sim "
        "env does it for the simulator) or correct the spec's region"
    )
