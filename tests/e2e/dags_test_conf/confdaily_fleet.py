"""Airflow DAG that `airflow dags test -c CONF` runs in tests/e2e/test_dags_test_conf.py: a scheduled fleet DAG,
built without the trigger form, whose conf must be honoured (a dry run launches nothing) or refused."""

from __future__ import annotations

from pathlib import Path

from sagemaker_fleet.dags import DispatchConfig, build_fleet_dag

dag = build_fleet_dag(
    Path(__file__).resolve().parent / "fleets" / "confdaily.yaml",
    dag_id="confdaily_fleet",
    schedule="@daily",
    dispatch=DispatchConfig(poll_interval=2.0),
)
