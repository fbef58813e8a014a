"""Airflow DAG example: wait on a fleet's run, on a warm pool, and on one training job, from another DAG.

The docs include its marked regions (docs/operators/); tests/unit/docs/test_doc_snippets.py builds this DAG. Not in
the demo's DAG list (dags/.airflowignore).
"""

from __future__ import annotations

import datetime as dt
from pathlib import Path
from typing import Any

from airflow.sdk import DAG, BaseOperator

from sagemaker_fleet.sensors.fleet import FleetRunSensor, WarmPoolAvailableSensor
from sagemaker_fleet.triggers.fleet import FleetJobTrigger

SPEC = str(Path(__file__).resolve().parents[1] / "fleets" / "small.yaml")


# [START howto_trigger_fleet_job]
class WaitForTrainingJob(BaseOperator):
    """Wait in the triggerer for one training job of a fleet's run, then return its status."""

    template_fields = ("job_name", "run_key")

    def __init__(self, *, job_name: str, run_key: str, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.job_name = job_name
        self.run_key = run_key

    def execute(self, context: Any) -> None:
        trigger = FleetJobTrigger(job_name=self.job_name, name_contains=f"-{self.run_key}")
        self.defer(trigger=trigger, method_name="execute_complete")

    def execute_complete(self, context: Any, event: dict[str, Any]) -> str:
        if event["status"] != "terminal":
            raise RuntimeError(event["message"])
        return str(event["description"]["TrainingJobStatus"])


# [END howto_trigger_fleet_job]

with DAG(
    dag_id="example_fleet_sensors",
    schedule=None,
    start_date=dt.datetime(2026, 1, 1, tzinfo=dt.UTC),
    catchup=False,
    tags=["sagemaker-fleet-example"],
    default_args={"owner": "ml-platform", "retries": 1},
):
    # [START howto_sensor_fleet_run]
    run_done = FleetRunSensor(
        task_id="wait_for_run",
        spec_path=SPEC,
        run_key="{{ ds_nodash }}",
        poke_interval=60,
        timeout=6 * 3600,
    )
    # [END howto_sensor_fleet_run]

    # [START howto_sensor_warm_pool_available]
    pool_ready = WarmPoolAvailableSensor(
        task_id="wait_for_warm_pool",
        spec_path=SPEC,
        city="lima",
        name_contains="-{{ ds_nodash }}",
        poke_interval=30,
    )
    # [END howto_sensor_warm_pool_available]

    job_done = WaitForTrainingJob(
        task_id="wait_for_lima",
        job_name="small-lima-{{ ds_nodash }}",
        run_key="{{ ds_nodash }}",
    )

    pool_ready >> job_done >> run_done
