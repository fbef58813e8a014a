"""Airflow DAG for the end-to-end tests: the 60-city e2e fleet, triggered by the test (no schedule).

Its notice goes to a notifier that writes what it received to ``$AIRFLOW_HOME/notices/<run id>.json``, so the
test reads what a person would have been sent.
"""

from __future__ import annotations

import datetime as dt
import json
import os
from pathlib import Path
from typing import Any

from airflow.sdk import BaseNotifier

from sagemaker_fleet.dags import DispatchConfig, ReportConfig, build_fleet_dag


class RecordingNotifier(BaseNotifier):
    """Writes its rendered fields instead of sending them (the SMTP or Slack notifier would send them)."""

    template_fields = ("subject", "body")

    def __init__(self, kind: str) -> None:
        super().__init__()
        self.kind = kind
        self.subject = "{{ fleet_summary.headline }}"
        self.body = "{{ fleet_message }}"

    def notify(self, context: Any) -> None:
        folder = Path(os.environ["AIRFLOW_HOME"]) / "notices"
        folder.mkdir(exist_ok=True)
        record = {
            "kind": self.kind,
            "subject": self.subject,
            "body": self.body,
            "summary": context["fleet_summary"],
        }
        (folder / f"{context['run_id'].replace(':', '_')}.json").write_text(json.dumps(record, default=str))


dag = build_fleet_dag(
    Path(__file__).resolve().parents[1] / "fleets" / "e2e.yaml",
    dag_id="e2e_fleet",
    schedule=None,
    tags=["e2e"],
    default_args={"retries": 3, "retry_delay": dt.timedelta(seconds=5)},
    dispatch=DispatchConfig(poll_interval=2.0, capacity_retry_seconds=3.0),
    report=ReportConfig(on_success=[RecordingNotifier("success")], on_failure=[RecordingNotifier("failure")]),
)
