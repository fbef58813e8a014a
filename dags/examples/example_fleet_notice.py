"""Airflow DAG example: a fleet DAG that mails the run's notice when it ends, and keeps its pools for the next run.

The docs include its marked region (docs/guides/fleet-dag.md); tests/unit/docs/test_doc_snippets.py builds this
DAG. Not in the demo's DAG list (dags/.airflowignore).
"""

from __future__ import annotations

from pathlib import Path

# [START howto_fleet_dag_notice]
from airflow.providers.smtp.notifications.smtp import SmtpNotifier

from sagemaker_fleet.dags import DispatchConfig, ReportConfig, build_fleet_dag

notice = SmtpNotifier(
    to="ml-platform@example.com",
    subject="{{ fleet_summary.headline }}",
    html_content="<pre>{{ fleet_message }}</pre>",
)
dag = build_fleet_dag(
    Path(__file__).resolve().parents[1] / "fleets" / "small.yaml",
    dag_id="example_fleet_notice",
    schedule="@hourly",
    dispatch=DispatchConfig(carry_pools=True),
    report=ReportConfig(on_success=[notice], on_failure=[notice]),
)
# [END howto_fleet_dag_notice]
