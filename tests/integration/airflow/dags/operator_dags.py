"""DAGs for the operator tests (``dag.test()`` needs its DAG in the DAGs folder): the city comes from conf."""

from __future__ import annotations

import datetime as dt
from pathlib import Path

from airflow.sdk import DAG

from sagemaker_fleet.operators.training import FleetTrainingOperator
from sagemaker_fleet.triggers.defaults import CityOptions, CityTiming

QUICK = str(Path(__file__).resolve().parents[1] / "fleets" / "quick.yaml")

for dag_id, force in (("op_train", False), ("op_force_retrain", True)):
    with DAG(
        dag_id=dag_id,
        schedule=None,
        start_date=dt.datetime(2026, 1, 1, tzinfo=dt.UTC),
        params={"city": "seoul", "keep_alive": 0},
        tags=["test"],
    ) as dag:
        FleetTrainingOperator(
            task_id="train",
            spec_path=QUICK,
            city="{{ params.city }}",
            run_key="20261129",
            options=CityOptions(keep_alive_seconds="{{ params.keep_alive }}", force_retrain=force),
            timing=CityTiming(poll_interval=0.2, capacity_retry_seconds=0.5),
        )
    globals()[dag_id] = dag
