"""Checks a user's CI can run over their own DAG folder in one line (see :func:`assert_dag_folder_ok`), and the local
Airflow stack the provider's own demos and end-to-end tests run on.

- ``dag_integrity.py``: the DAG-folder checks (imports, no I/O at parse time, valid fleet specs, tags, owners,
  retries);
- ``stack.py``: a real local Airflow (api-server, scheduler, dag-processor, triggerer) pointed at an AWS endpoint;
- ``component_env.py``: what every component of that stack is set to beyond its addresses.
"""

from __future__ import annotations

from sagemaker_fleet.testing.dag_integrity import DagFolderReport, assert_dag_folder_ok, check_dag_folder

__all__ = ["DagFolderReport", "assert_dag_folder_ok", "check_dag_folder"]
